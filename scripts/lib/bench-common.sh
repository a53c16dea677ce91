# Shared by the load scripts (scripts/bench.sh, bench-rss.sh,
# bench-replicas.sh; docs/operating.md, "Benchmarks"): a work directory removed at
# exit with every process started, the two binaries built into it, rate
# limits high enough never to refuse, and a way to start `serve` and wait
# for its endpoint. Source it from the repository's root.

work=$(mktemp -d)
pids=()
autovacuum_set=""
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
	if [ -n "$autovacuum_set" ]; then
		psql -q -h 127.0.0.1 -U postgres -d postgres -c "ALTER SYSTEM RESET autovacuum" -c "SELECT pg_reload_conf()" >/dev/null
	fi
}
trap cleanup EXIT

# bench_bin NAME PACKAGE: the binary NAME in $work, built from PACKAGE, or
# linked from KOBANA_BENCH_BIN when that directory has it (scripts/bench-smoke.sh
# builds each once for all its runs).
bench_bin() {
	if [ -n "${KOBANA_BENCH_BIN:-}" ] && [ -x "$KOBANA_BENCH_BIN/$1" ]; then
		ln -s "$KOBANA_BENCH_BIN/$1" "$work/$1"
	else
		go build -o "$work/$1" "$2"
	fi
}
bench_bin kobana-mcp ./cmd/kobana-mcp
bench_bin loadgen ./cmd/loadgen

# Counters no run reaches: the scripts measure, the limiter must not refuse.
high="reads=1000000000-S,writes=1000000000-S,org-reads=1000000000-S,org-writes=1000000000-S"

# fresh_pg_url NAME: drops and creates database NAME on the machine's
# PostgreSQL (127.0.0.1:5432, trust) and prints its URL.
fresh_pg_url() {
	psql -q -h 127.0.0.1 -U postgres -d postgres -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1"
	echo "postgres://postgres@127.0.0.1:5432/$1?sslmode=disable"
}

# with_autovacuum turns PostgreSQL's autovacuum on until the script ends
# when the server has it off (this machine kind's PostgreSQL does, for the
# tests' speed): without it the tables a run fills are never analyzed and
# keep the plans made while they were empty (docs/performance.md "The step
# runner at scale"). A production server runs autovacuum.
# KOBANA_BENCH_KEEP_AUTOVACUUM=1 leaves the server as it is (scripts/bench-smoke.sh:
# its runs are too small to need it, and the Go tests share the server).
with_autovacuum() {
	if [ -z "${KOBANA_BENCH_KEEP_AUTOVACUUM:-}" ] && [ "$(psql -At -h 127.0.0.1 -U postgres -d postgres -c 'SHOW autovacuum')" = off ]; then
		psql -q -h 127.0.0.1 -U postgres -d postgres -c "ALTER SYSTEM SET autovacuum = on" -c "SELECT pg_reload_conf()" >/dev/null
		autovacuum_set=1
	fi
}

# new_secret prints a random 32-byte hex secret (--state-secrets).
new_secret() { head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n'; }

# start_serve NAME PORT [ARG...]: starts `serve --products $PRODUCT` (inbox
# unless PRODUCT says dunning or kadu) at GOMAXPROCS=1 on 127.0.0.1:PORT
# with the Inbox's SMTP intake off, the high limits and JSON logs, data in
# $work/NAME (unless an ARG says otherwise), output in $work/NAME.out and
# .err; waits for its MCP endpoint and sets serve_pid.
start_serve() {
	local name=$1 port=$2 product=${PRODUCT:-inbox}
	shift 2
	GOMAXPROCS=1 "$work/kobana-mcp" serve --data-dir "$work/$name" --products "$product" \
		"--$product-addr" "127.0.0.1:$port" --inbox-smtp-addr off --rate-limits "$high" --log-format json "$@" \
		>"$work/$name.out" 2>"$work/$name.err" &
	serve_pid=$!
	pids+=("$serve_pid")
	for _ in $(seq 150); do grep -q "MCP endpoint" "$work/$name.out" 2>/dev/null && break; sleep 0.1; done
	grep -q "MCP endpoint" "$work/$name.out" || { echo "serve $name did not start:"; cat "$work/$name.err"; exit 1; }
}
