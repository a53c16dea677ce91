#!/usr/bin/env bash
# Load benchmark of the signed-in path over loopback (docs/performance.md,
# "Benchmarks", "The signed-in path").
# Builds kobana-mcp and cmd/loadgen, starts `serve` (Inbox only, embedded
# SQLite, rate limits in memory set high enough never to refuse) and the
# bare net/http floor, each with GOMAXPROCS=1, and drives one at a time with
# a closed loop of 16 workers (also GOMAXPROCS=1). Prints req/s and the
# server's CPU µs per answered request for each method, and the ratios to
# the floor. The official Go SDK's stateless JSON handler with one trivial
# tool and no auth (loadgen -sdk) runs in the same run, also at GOMAXPROCS=1,
# as the peer of the issue's target "emails_list ≥ 2× the official SDK's
# throughput on its trivial tool without auth": called in 2025-06-18 (its
# cheapest: no _meta) and in 2026-07-28, and the ratio emails_list req/s ÷
# go-sdk req/s printed.
#
#   scripts/bench.sh            # 5 s per method, after 1 s of warm-up
#   DURATION=20s WORKERS=16 WARMUP=2s scripts/bench.sh
#   ROUNDS=3 scripts/bench.sh   # the whole sequence three times, each
#       # round's ratios to its own floor, then their min, median and max
#   (it fails when a request failed or a method answered none)
#   INTAKE=1000 scripts/bench.sh  # then 1 000 e-mails posted to the intake
#                                 # (8 at a time), processed end to end
#   INTAKE=1000 INTAKE_ONLY=1 scripts/bench.sh   # the intake alone
#   INTAKE=1000 INTAKE_ONLY=1 PG_WORKERS=2 scripts/bench.sh
#       # the same on PostgreSQL (BENCH_PG_URL, default a fresh database
#       # kobana_bench on postgres://postgres@127.0.0.1:5432): serve
#       # --jobs=off and that many `worker` processes; CPU counts them all
#   INTAKE=1000 INTAKE_ONLY=1 PG_WORKERS=0 scripts/bench.sh
#       # on PostgreSQL with serve working the queue itself (no worker)
#   PPROF_ADDR=127.0.0.1:18482  # serve's profiler, for profiling the run
#
#   PRODUCT=dunning scripts/bench.sh   # Dunning instead: dunning_charges_list
#       # {"per_page":10} as the listing (LIST_TOOL / LIST_ARGS override)
#   PRODUCT=kadu scripts/bench.sh      # Kadu: kadu_executions_list {"limit":10}
#   DUNNING_CHARGES=12   # Dunning: the demo organization has no charges; one
#       # debtor and this many charges (default 12) are created through the
#       # tools first, so the page shows 10 real charges (0: the empty page)
#   INBOX_EMAILS=12      # the Inbox: this many e-mails posted to the intake
#       # and processed first (default 0: emails_list answers an empty page)
#   KADU_EXECUTIONS=12   # Kadu: this many executions of a one-step workflow
#       # (kadu_ask: each waits for input, no model needed) run through the
#       # REST API first (default 0: kadu_executions_list answers an empty page)
#
# A second floor writes the product's captured tools/list answer (a
# product's catalog is tens of kilobytes: writing it is most of a
# tools/list, whatever serves it), and the ratio of tools/list to it is
# printed too (docs/performance.md, "Kadu and Dunning as fast as the Inbox (issue 28)").
#
# Ports: 127.0.0.1:18481 (the product), 18480 (floor), 18484 (the
# tools/list answer's floor) and 18483 (go-sdk); override with BENCH_PORT /
# FLOOR_PORT / LIST_FLOOR_PORT / SDK_PORT. The SMTP intake is off.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-5s}
WARMUP=${WARMUP:-1s}
WORKERS=${WORKERS:-16}
PORT=${BENCH_PORT:-18481}
FLOOR_PORT=${FLOOR_PORT:-18480}
SDK_PORT=${SDK_PORT:-18483}
LIST_FLOOR_PORT=${LIST_FLOOR_PORT:-18484}
PRODUCT=${PRODUCT:-inbox}
case "$PRODUCT" in
inbox) LIST_TOOL=${LIST_TOOL:-emails_list} LIST_ARGS=${LIST_ARGS:-'{"limit":10}'} ;;
dunning) LIST_TOOL=${LIST_TOOL:-dunning_charges_list} LIST_ARGS=${LIST_ARGS:-'{"per_page":10}'} ;;
kadu) LIST_TOOL=${LIST_TOOL:-kadu_executions_list} LIST_ARGS=${LIST_ARGS:-'{"limit":10}'} ;;
*) echo "PRODUCT is inbox, dunning or kadu" >&2; exit 2 ;;
esac
. scripts/lib/bench-common.sh
db=()
if [ -n "${PG_WORKERS:-}" ]; then
	with_autovacuum
	[ -n "${BENCH_PG_URL:-}" ] || BENCH_PG_URL=$(fresh_pg_url kobana_bench)
	db=(--database-url "$BENCH_PG_URL" --state-secrets "$(new_secret)")
fi
serve_extra=()
[ "${PG_WORKERS:-0}" -gt 0 ] && serve_extra+=(--jobs off)
[ -n "${PPROF_ADDR:-}" ] && serve_extra+=(--pprof-addr "$PPROF_ADDR")
start_serve data "$PORT" "${db[@]}" "${serve_extra[@]}"
url="http://127.0.0.1:$PORT/mcp"
worker_pids=""
for i in $(seq "${PG_WORKERS:-0}"); do
	[ "$i" -ge 1 ] || continue
	GOMAXPROCS=1 "$work/kobana-mcp" worker --data-dir "$work/data" "${db[@]}" --products "$PRODUCT" --log-format json \
		>"$work/worker$i.out" 2>"$work/worker$i.err" &
	pids+=($!)
	worker_pids+="$!,"
done
token=$("$work/kobana-mcp" token --data-dir "$work/data" "${db[@]}" --product "$PRODUCT" --user owner@demo.local --ttl 1h)

# intake N posts N e-mails to an inbox made for the run (8 at a time) and
# waits until they are processed, printing loadgen's report.
intake() {
	if [ -z "${address:-}" ]; then
		api="http://127.0.0.1:$PORT/api/v1"
		apitoken=$("$work/kobana-mcp" token --data-dir "$work/data" "${db[@]}" --product inbox --user owner@demo.local --resource api --ttl 1h)
		address=$(curl -s -H "Authorization: Bearer $apitoken" -H 'Content-Type: application/json' -d '{"label":"Bench"}' "$api/inboxes" |
			sed -n 's/.*"email":"\([^"]*\)".*/\1/p')
	fi
	"$work/loadgen" -intake "$1" -c 8 -url "$api" -token "$apitoken" -to "$address" -pid "$serve_pid" -also-pids "$worker_pids" -eml examples/inbox/boleto.eml -timeout "${INTAKE_TIMEOUT:-5m}"
}
if [ "$PRODUCT" = inbox ] && [ "${INBOX_EMAILS:-0}" -gt 0 ]; then
	intake "$INBOX_EMAILS" >/dev/null
fi

if [ "$PRODUCT" = kadu ] && [ "${KADU_EXECUTIONS:-0}" -gt 0 ]; then
	kapi="http://127.0.0.1:$PORT/api/v1"
	ktoken=$("$work/kobana-mcp" token --data-dir "$work/data" "${db[@]}" --product kadu --user owner@demo.local --resource api --ttl 1h)
	task=$(curl -s -H "Authorization: Bearer $ktoken" -H 'Content-Type: application/json' \
		-d '{"name":"Bench","steps":[{"tool":"kadu_ask","arguments":{"question":"Seguimos?"}}]}' "$kapi/tasks" |
		sed -n 's/^{"data":{"id":"\([^"]*\)".*/\1/p')
	for i in $(seq "$KADU_EXECUTIONS"); do
		curl -sf -o /dev/null -H "Authorization: Bearer $ktoken" -H 'Content-Type: application/json' -H "X-Idempotency-Key: bench-$i" \
			-d "{\"input\":{\"n\":$i}}" "$kapi/tasks/$task/run" || { echo "kadu: run $i of task '$task' failed" >&2; exit 1; }
	done
	# Each execution reaches its question (waiting_input) before the runs.
	for _ in $(seq 300); do
		n=$(curl -s -H "Authorization: Bearer $ktoken" "$kapi/executions?limit=100" | grep -o '"status":"waiting_input"' | wc -l)
		[ "$n" -ge "$KADU_EXECUTIONS" ] && break
		sleep 0.1
	done
	[ "$n" -ge "$KADU_EXECUTIONS" ] || { echo "kadu: $n of $KADU_EXECUTIONS executions reached waiting_input" >&2; exit 1; }
fi

if [ "$PRODUCT" = dunning ] && [ "${DUNNING_CHARGES:-12}" -gt 0 ]; then
	one() { "$work/loadgen" -url "$url" -token "$token" -method tools/call -tool "$1" -args "$2" -capture "$work/seed.json" >/dev/null; }
	one dunning_debtors_upsert '{"external_id":"bench","name":"Maria Souza","document":"52998224725","emails":["maria@example.com"]}'
	for i in $(seq "${DUNNING_CHARGES:-12}"); do
		one dunning_charges_create "{\"debtor_id\":\"bench\",\"external_id\":\"c$i\",\"amount\":$i.5,\"due_date\":\"2026-0$((i % 9 + 1))-10\",\"description\":\"Mensalidade $i\",\"fine_percent\":2,\"interest_percent\":1}"
	done
fi

if [ -z "${INTAKE_ONLY:-}" ]; then
load() { GOMAXPROCS=1 "$work/loadgen" -url "$1" -token "$token" -c "$WORKERS" -d "$DURATION" -warmup "$WARMUP" -pid "$2" "${@:3}"; }
"$work/loadgen" -url "$url" -token "$token" -method tools/call -tool "$LIST_TOOL" -args "$LIST_ARGS" -capture "$work/answer.json"
GOMAXPROCS=1 "$work/loadgen" -floor "127.0.0.1:$FLOOR_PORT" -answer "$work/answer.json" >"$work/floor.out" &
floor_pid=$!
pids+=("$floor_pid")
"$work/loadgen" -url "$url" -token "$token" -method tools/list -capture "$work/list-answer.json"
GOMAXPROCS=1 "$work/loadgen" -floor "127.0.0.1:$LIST_FLOOR_PORT" -answer "$work/list-answer.json" >"$work/list-floor.out" &
list_floor_pid=$!
pids+=("$list_floor_pid")
GOMAXPROCS=1 "$work/loadgen" -sdk "127.0.0.1:$SDK_PORT" >"$work/sdk.out" &
sdk_pid=$!
pids+=("$sdk_pid")
sleep 0.5

results="$work/results.jsonl"
sdk() { GOMAXPROCS=1 "$work/loadgen" -url "http://127.0.0.1:$SDK_PORT/mcp" -c "$WORKERS" -d "$DURATION" -warmup "$WARMUP" -pid "$sdk_pid" "$@"; }
# ROUNDS repeats the whole sequence, each round's rows tagged with its
# number: the host's speed drifts over a run (the floor's own CPU per
# request moved by half between runs a minute apart), so every round
# holds each target and its floor minutes apart at most.
for round in $(seq "${ROUNDS:-1}"); do
	{
		load "http://127.0.0.1:$FLOOR_PORT/mcp" "$floor_pid" -method tools/call -tool "$LIST_TOOL" -label floor
		load "$url" "$serve_pid" -method server/discover
		load "$url" "$serve_pid" -method tools/list
		load "http://127.0.0.1:$LIST_FLOOR_PORT/mcp" "$list_floor_pid" -method tools/list -label "floor (tools/list answer)"
		load "$url" "$serve_pid" -method tools/call -tool "$LIST_TOOL" -args "$LIST_ARGS"
		sdk -method tools/call -tool hello -args '{"limit":10}' -protocol 2025-06-18 -label "go-sdk tools/call"
		sdk -method tools/call -tool hello -args '{"limit":10}' -label "go-sdk tools/call (2026-07-28)"
	} | sed -u "s/^{/{\"round\":$round,/" >>"$results"
done

python3 - "$results" "$LIST_TOOL" <<'PY'
import json, sys
tool = sys.argv[2]
def cpu(r):
    # CPU comes in ticks of 10 ms: a short run may see none ("-" or 0).
    v = float(r["cpu_us_per_req"]) if r["cpu_us_per_req"] != "-" else 0.0
    return v if v > 0 else float("nan")
def ratio(a, b):
    return a / b if b == b and b > 0 else float("nan")
every = [json.loads(l) for l in open(sys.argv[1])]
rounds = sorted({r["round"] for r in every})
summary = {}  # target -> [ratio to the floor, round by round]
for n in rounds:
    rows = [r for r in every if r["round"] == n]
    floor = rows[0]
    if len(rounds) > 1:
        print(f"round {n}")
    print(f"{'target':32} {'req/s':>8} {'CPU µs/req':>11} {'× floor CPU':>12} {'floor/target req/s':>19} errors")
    for r in rows:
        summary.setdefault(r["target"], []).append(ratio(cpu(r), cpu(floor)))
        print(f"{r['target']:32} {r['req_per_s']:>8} {cpu(r):>11.1f} {ratio(cpu(r), cpu(floor)):>12.2f} {floor['req_per_s']/max(r['req_per_s'],1):>19.2f} {r['errors']}")
    by = {r["target"]: r for r in rows}
    tl, tf = by["tools/list"], by["floor (tools/list answer)"]
    print(f"tools/list CPU ÷ the floor writing the same answer: {ratio(cpu(tl), cpu(tf)):.2f}")
    summary.setdefault("tools/list ÷ its own floor", []).append(ratio(cpu(tl), cpu(tf)))
    el = by["tools/call " + tool]
    for peer in ("go-sdk tools/call", "go-sdk tools/call (2026-07-28)"):
        p = by[peer]
        print(f"{tool} req/s ÷ {peer} req/s: {el['req_per_s']/max(p['req_per_s'],1):.2f} (issue target ≥ 2); "
              f"server CPU per request {ratio(cpu(el), cpu(p)):.2f}× the SDK's")
if len(rounds) > 1:
    print(f"\n{len(rounds)} rounds, CPU per request ÷ the floor's in the same round (min, median, max):")
    for target, rs in summary.items():
        s = sorted(rs)
        print(f"  {target:32} {s[0]:6.2f} {s[len(s)//2]:6.2f} {s[-1]:6.2f}")
# A run whose requests failed, or that answered none, measured nothing.
bad = [r["target"] + ": " + str(r.get("first_error", "no request answered")) for r in every if r["errors"] or not r["requests"]]
if bad:
    print("FAILED:", *bad, sep="\n  ")
    sys.exit(1)
PY
fi

if [ -n "${INTAKE:-}" ]; then
	intake "$INTAKE"
fi
