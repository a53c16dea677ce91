#!/usr/bin/env bash
# Every load benchmark script once, at its smallest size, so none can rot
# unnoticed (issue 28: "CI runs each new benchmark once at its smallest
# size"; scripts/test.sh runs this beside the Go tests). The figures are
# not read: a run fails when a request failed, a method answered nothing,
# an e-mail was not processed in time, or a reminder was not written,
# sent and received exactly once. The Go benchmarks have their own small
# tests (TestReguaScaleSmall, TestListingAtScaleSmall,
# TestPathDunningChargesListServes, …) in `go test`.
#
#   scripts/bench-smoke.sh
#
# Needs what the scripts need: Go, python3, psql and the machine's
# PostgreSQL (127.0.0.1:5432, trust; the scripts make databases
# kobana_bench and kobana_regua of their own). Ports 18580–18592, apart
# from the scripts' defaults, so a developer's own benchmark run is not
# met.
set -euo pipefail
cd "$(dirname "$0")/.."
KOBANA_BENCH_BIN=$(mktemp -d)
export KOBANA_BENCH_BIN
trap 'rm -rf "$KOBANA_BENCH_BIN"' EXIT
go build -o "$KOBANA_BENCH_BIN/kobana-mcp" ./cmd/kobana-mcp
go build -o "$KOBANA_BENCH_BIN/loadgen" ./cmd/loadgen
go build -o "$KOBANA_BENCH_BIN/smtp-receiver" ./examples/smtp-receiver
# The Go tests share the PostgreSQL server: its autovacuum setting is left as it is.
export KOBANA_BENCH_KEEP_AUTOVACUUM=1
export BENCH_PORT=18581 FLOOR_PORT=18580 SDK_PORT=18583 LIST_FLOOR_PORT=18584 SMTP_PORT=18592
run() { echo "== $*"; env "$@"; }
for product in inbox dunning kadu; do
	# Each listing with rows (Dunning seeds its charges by default).
	run PRODUCT=$product INBOX_EMAILS=2 KADU_EXECUTIONS=2 DURATION=300ms WARMUP=100ms WORKERS=2 scripts/bench.sh
done
run INTAKE=20 INTAKE_ONLY=1 INTAKE_TIMEOUT=2m scripts/bench.sh
run INTAKE=20 INTAKE_ONLY=1 INTAKE_TIMEOUT=2m PG_WORKERS=0 scripts/bench.sh
run INTAKE=20 INTAKE_ONLY=1 INTAKE_TIMEOUT=2m PG_WORKERS=1 scripts/bench.sh
run BENCH_PORT=18591 N=50 WORKERS=2 DEADLINE=180 scripts/bench-regua.sh
echo "bench-smoke: every benchmark script ran once"
