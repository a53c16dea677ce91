#!/usr/bin/env bash
# Why this file exists: it is the one command CI runs to check the mcp package against the
# official MCP conformance suite. It builds the fixture server (examples/everything), starts it on
# a free loopback port, runs conformance/run.sh for every era that scenarios.txt has a column for,
# stops the server, and exits non-zero if any era failed.
#
#   conformance/run-everything.sh [era ...]
#     era   optional subset of the eras of scenarios.txt (default: all of them, in file order)
#
# Needs: Go with this module's dependencies in the module cache (as `go test ./...` does), and
# network access to the npm registry the first time only (run.sh installs the pinned suite and
# Node 22 with `npm ci` from package-lock.json). The scenarios themselves only talk to the
# loopback server; nothing else is fetched.
# Environment: passed through to run.sh (SCENARIO_TIMEOUT_MS, HARD_TIMEOUT_S, VERBOSE);
#              STARTUP_TIMEOUT_S (default 60) bounds building and starting the server.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
startup_timeout_s="${STARTUP_TIMEOUT_S:-60}"

# The eras are the column headers of scenarios.txt, so adding an era there adds it here.
mapfile -t all_eras < <(grep -v '^[[:space:]]*#' "$here/scenarios.txt" | sed '/^[[:space:]]*$/d' | head -n 1 | awk '{for (i=2;i<=NF;i++) print $i}')
[[ ${#all_eras[@]} -gt 0 ]] || { echo "run-everything: no eras found in scenarios.txt" >&2; exit 2; }
if [[ $# -gt 0 ]]; then
  for e in "$@"; do
    printf '%s\n' "${all_eras[@]}" | grep -qxF -- "$e" || { echo "run-everything: unknown era $e (scenarios.txt has: ${all_eras[*]})" >&2; exit 2; }
  done
  eras=("$@")
else
  eras=("${all_eras[@]}")
fi

work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "Building examples/everything"
(cd "$root" && go build -o "$work/everything" ./examples/everything)

# Port 0: the kernel picks a free port and the server prints the URL it got.
# The files exist before the server starts: its redirections happen in the background job,
# which may not have run yet when the loop below first reads them.
: >"$work/stdout"
: >"$work/stderr"
"$work/everything" -addr 127.0.0.1:0 >"$work/stdout" 2>"$work/stderr" &
server_pid=$!

url=""
for ((i = 0; i < startup_timeout_s * 10; i++)); do
  url="$(sed -n 's/^MCP endpoint: \(http:\/\/[^ ]*\/mcp\)$/\1/p' "$work/stdout" | head -n 1)"
  [[ -n "$url" ]] && break
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "run-everything: the server exited before printing its URL" >&2
    cat "$work/stderr" >&2
    exit 1
  fi
  sleep 0.1
done
if [[ -z "$url" ]]; then
  echo "run-everything: the server printed no URL within ${startup_timeout_s}s" >&2
  cat "$work/stderr" >&2
  exit 1
fi
echo "Server: $url (pid $server_pid)"

failed=()
for era in "${eras[@]}"; do
  echo
  if "$here/run.sh" "$url" "$era"; then
    :
  else
    failed+=("$era")
  fi
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "run-everything: the server died during era $era" >&2
    cat "$work/stderr" >&2
    exit 1
  fi
done

echo
if [[ -s "$work/stderr" ]]; then
  echo "Server log (stderr):"
  sed 's/^/  /' "$work/stderr"
fi
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "Conformance FAILED for era(s): ${failed[*]}"
  exit 1
fi
echo "Conformance passed for era(s): ${eras[*]}"
