#!/usr/bin/env bash
# The project's one test command (the README names it; .ci/run runs it).
# Formatting and vet first, then every Go test with the race detector,
# then the official MCP conformance suite against the fixture server in
# every era. Needs Go; the conformance step installs its pinned Node 22 and
# suite from the npm registry on first use (conformance/package-lock.json).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if ! command -v go >/dev/null && [[ -x /usr/local/go/bin/go ]]; then
  export PATH="/usr/local/go/bin:$PATH"
fi

echo "== gofmt"
unformatted="$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './conformance/node_modules/*'))"
if [[ -n "$unformatted" ]]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

echo "== go vet"
go vet ./...

echo "== go test -race"
# The Dunning and Kadu packages each run for minutes under the race detector (both engines, real
# processes killed, 60-day régua runs); the default 10-minute limit per package is too near (Dunning took 22 min on a loaded host).
go test -race -count=1 -timeout 60m ./...

echo "== conformance suite (examples/everything, every era)"
conformance/run-everything.sh

# Conformance of the Inbox endpoint itself (conformance/run-product.sh): `kobana-mcp serve` with the
# embedded defaults, tokens from `kobana-mcp token` added by conformance/auth-preload.cjs, every
# scenario of conformance/scenarios-inbox.txt in every era (expected failures: expected-failures-inbox.yml).
echo "== conformance suite (Inbox endpoint, every era)"; conformance/run-product.sh inbox
# The same for the Dunning endpoint (conformance/scenarios-dunning.txt, expected-failures-dunning.yml):
# its own origin only, the 2 MB body cap, tool text indented, resource templates and prompts.
echo "== conformance suite (Dunning endpoint, every era)"; conformance/run-product.sh dunning
# The same for the Kadu endpoint (conformance/scenarios-kadu.txt, expected-failures-kadu.yml): its own
# origin and localhost origins, the 1 MB body cap, every tool with its four annotations.
echo "== conformance suite (Kadu endpoint, every era)"; conformance/run-product.sh kadu

# End-to-end (e2e/README.md): the official MCP TypeScript SDK v2 client signs in
# to the Inbox of a real `kobana-mcp serve` through the built-in OAuth server
# (CIMD and DCR, headless Chromium on the sign-in and consent pages), calls a
# tool, and checks that Dunning refuses the Inbox token. Needs /usr/bin/chromium
# (.ci/run installs it); installs its pinned npm packages on first use.
echo "== e2e: MCP client OAuth sign-in to the Inbox"
e2e/run.sh

# Real clients on the Inbox, Dunning and Kadu in every era (e2e/clients/README.md): TypeScript SDK v2
# and v1 on the three endpoints and the MCP Inspector CLI on the Inbox, pinned in
# e2e/clients/package-lock.json. (The Go SDK client's tests, cmd/kobana-mcp/clients_test.go, run in
# `go test` above.)
echo "== e2e: real MCP clients on the Inbox, Dunning and Kadu, every era"; e2e/clients/run.sh
