#!/usr/bin/env bash
# The project's one test command (the README names it; .ci/run runs it).
# Formatting and vet first, then every Go test with the race detector, then
# the official MCP conformance suite against the fixture server and each
# product's endpoint in every era and the real clients, at once.
# Needs Go; the conformance step installs its pinned Node 22 and suite from
# the npm registry on first use (conformance/package-lock.json).
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
# A plain build of the module: vet's, and the one the servers the tests build with `go build` use
# (the crash and kill tests, the README walkthroughs), and the conformance and e2e steps below.
# All of them build with -trimpath (childproc.GoBuild, the walkthroughs' environment, GOFLAGS for
# the steps below): each walkthrough runs in a view of the repository of its own, and without
# -trimpath the build cache keys the module's packages by that directory, so every walkthrough
# compiled the module again (about 25 s of CPU each).
GOFLAGS=-trimpath go vet ./...

# The steps beside the Go tests are independent: each builds into a directory of its own (vet's
# build above serves them) and starts its servers on ports the kernel picks, so they run at once
# (POST_STEPS_AT_ONCE=1 runs them one after another), and they start now, while `go test` below
# compiles and runs: the Go tests mostly wait, and the steps took about three minutes after them.
# Each one's output is printed whole, in this order, once the Go tests and it have ended; the run
# fails if the Go tests or any of them failed.
steps=(
  # The official MCP conformance suite against the fixture server (examples/everything), every era.
  "conformance suite (examples/everything, every era)|conformance/run-everything.sh"
  # Conformance of the Inbox endpoint itself (conformance/run-product.sh): `kobana-mcp serve` with the
  # embedded defaults, tokens from `kobana-mcp token` added by conformance/auth-preload.cjs, every
  # scenario of conformance/scenarios-inbox.txt in every era (expected failures: expected-failures-inbox.yml).
  "conformance suite (Inbox endpoint, every era)|conformance/run-product.sh inbox"
  # The same for the Dunning endpoint (conformance/scenarios-dunning.txt, expected-failures-dunning.yml):
  # its own origin only, the 2 MB body cap, tool text indented, resource templates and prompts.
  "conformance suite (Dunning endpoint, every era)|conformance/run-product.sh dunning"
  # The same for the Kadu endpoint (conformance/scenarios-kadu.txt, expected-failures-kadu.yml): its own
  # origin and localhost origins, the 1 MB body cap, every tool with its four annotations.
  "conformance suite (Kadu endpoint, every era)|conformance/run-product.sh kadu"
  # End-to-end (e2e/README.md): the official MCP TypeScript SDK v2 client signs in to the Inbox of a
  # real `kobana-mcp serve` through the built-in OAuth server (CIMD and DCR, headless Chromium on the
  # sign-in and consent pages), calls a tool, and checks that Dunning refuses the Inbox token. Needs
  # /usr/bin/chromium (.ci/run installs it); installs its pinned npm packages on first use.
  "e2e: MCP client OAuth sign-in to the Inbox|e2e/run.sh"
  # Real clients on the Inbox, Dunning and Kadu in every era (e2e/clients/README.md): TypeScript SDK
  # v2 and v1 on the three endpoints and the MCP Inspector CLI on the Inbox, pinned in
  # e2e/clients/package-lock.json. (The Go SDK client's tests, cmd/kobana-mcp/clients_test.go, run in
  # `go test` above.)
  "e2e: real MCP clients on the Inbox, Dunning and Kadu, every era|e2e/clients/run.sh"
  # Every load benchmark script once at its smallest size (scripts/bench-smoke.sh): the listings'
  # floors and peers, the Inbox intake on SQLite and PostgreSQL, the step runner in real worker
  # processes (50 reminders, each written, sent and received exactly once). The Go benchmarks have
  # small tests of their own in `go test`.
  "benchmark scripts once, at their smallest size|scripts/bench-smoke.sh"
)
# The steps' own `go build`s find vet's -trimpath build above.
export GOFLAGS=-trimpath
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
at_once="${POST_STEPS_AT_ONCE:-${#steps[@]}}"
pids=()
for i in "${!steps[@]}"; do
  if (( i >= at_once )); then wait "${pids[i - at_once]}" || true; fi
  # Each step in its own process group's background job, its exit status kept beside its log.
  ( set +e; start=$SECONDS; ${steps[i]#*|} >"$logs/$i.log" 2>&1; rc=$?
    echo "$rc $((SECONDS - start))" >"$logs/$i.rc" ) &
  pids+=($!)
done

echo "== go test -race"
# The Dunning and Kadu packages each run for minutes under the race detector (both engines, real
# processes killed, 60-day régua runs); the default 10-minute limit per package is too near (Dunning took 22 min on a loaded host).
# -parallel 8: most tests wait far more than they compute (a server starting, a job's rescue time, a
# child process killed and replaced); with go test's default of one test per core (2 here) the waits
# filled both slots and Dunning took 497 s; with eight at once it took 127 s on the same host
# (docs/decisions.md "Tests eight at a time").
# checkptr off: -race also turns on checkptr, the unsafe.Pointer check; our code has no unsafe, and
# in SQLite's engine (modernc.org/..., C translated to Go) and reflect it took about a tenth of the
# tests' CPU. The race detector itself stays on for every package (docs/decisions.md "No
# checkptr").
# -vet=off: `go vet ./...` above ran every analyzer on the same code; go test's own vet (a subset,
# on the race build's configuration, so never cached from the run above) vetted it a second time
# (docs/decisions.md "Vet once").
# -ldflags=-w: the test binaries are linked without DWARF, which only a debugger reads (a panic's
# or a race report's stack comes from the binary's own tables): a quarter less link time for each of
# some seventy race-built test binaries, and links take go test's slots like runs (docs/decisions.md
# "Test binaries without DWARF").
# The packages whose tests run longest come first (go test starts them in the order given; `./...`
# adds the rest once): most of their time is waiting (a replica's rescue, a walkthrough's step runner,
# a killed runner's rescue), and begun last they ran alone at the end of the run (docs/decisions.md
# "The longest packages first").
first=(./cmd/kobana-mcp ./dunning ./kadu ./productkit/approval ./inbox ./cmd/kobana-mcp/sdktest ./platform/jobs ./platform/idempotency)
(unset GOFLAGS; go test -race -gcflags='all=-d=checkptr=0' -ldflags=-w -vet=off -parallel 8 -count=1 -timeout 60m "${first[@]}" ./...) && gotest=0 || gotest=$?


failed=()
[[ "$gotest" == 0 ]] || failed+=("go test -race (exit $gotest)")
for i in "${!steps[@]}"; do
  wait "${pids[i]}" || true
  read -r rc took <"$logs/$i.rc" || { rc=1; took=?; }
  echo "== ${steps[i]%%|*} (${took}s, exit $rc)"
  cat "$logs/$i.log"
  [[ "$rc" == 0 ]] || failed+=("${steps[i]%%|*}")
done
if [[ ${#failed[@]} -gt 0 ]]; then
  printf 'FAILED: %s\n' "${failed[@]}"
  exit 1
fi
