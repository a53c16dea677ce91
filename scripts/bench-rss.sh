#!/usr/bin/env bash
# Memory under load (docs/performance.md, "Benchmarks", "The signed-in path";
# docs/decisions.md, "Load checks: peer, memory, replicas"): starts `serve
# --products inbox` (embedded SQLite, GOMAXPROCS=1, rate limits high enough
# never to refuse), posts SEED e-mails to its intake so emails_list answers
# full pages, drives a mix of server/discover, tools/list and tools/call
# emails_list {"limit":10} with a closed loop of WORKERS workers for WARMUP,
# then for DURATION while sampling serve's VmRSS (/proc/PID/status) every
# EVERY. Prints the series (with the requests answered by then, so growth
# per request would show), the first and last sample and their ratio, and
# exits 1 when the last is more than 1.2 × the first.
#
#   scripts/bench-rss.sh                        # 60 s, samples every 5 s
#   DURATION=120s EVERY=10s scripts/bench-rss.sh
#   SEED=0 scripts/bench-rss.sh                 # empty workspace
#
# Port 127.0.0.1:18484 (RSS_PORT); the SMTP intake is off.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-60s}
WARMUP=${WARMUP:-10s}
EVERY=${EVERY:-5s}
WORKERS=${WORKERS:-16}
SEED=${SEED:-200}
MAX_RATIO=${MAX_RATIO:-1.2}
PORT=${RSS_PORT:-18484}
. scripts/lib/bench-common.sh
start_serve data "$PORT"
token=$("$work/kobana-mcp" token --data-dir "$work/data" --product inbox --user owner@demo.local --ttl 1h)

if [ "$SEED" -gt 0 ]; then
	api="http://127.0.0.1:$PORT/api/v1"
	apitoken=$("$work/kobana-mcp" token --data-dir "$work/data" --product inbox --user owner@demo.local --resource api --ttl 1h)
	address=$(curl -s -H "Authorization: Bearer $apitoken" -H 'Content-Type: application/json' -d '{"label":"RSS"}' "$api/inboxes" |
		sed -n 's/.*"email":"\([^"]*\)".*/\1/p')
	"$work/loadgen" -intake "$SEED" -c 8 -url "$api" -token "$apitoken" -to "$address" -eml examples/inbox/boleto.eml >"$work/seed.json"
fi

GOMAXPROCS=1 "$work/loadgen" -url "http://127.0.0.1:$PORT/mcp" -token "$token" -c "$WORKERS" -warmup "$WARMUP" -d "$DURATION" \
	-mix server/discover,tools/list,tools/call:emails_list -args '{"limit":10}' -rss-every "$EVERY" -pid "$serve_pid" >"$work/rss.json"

python3 - "$work/rss.json" "$MAX_RATIO" "$WARMUP" "$DURATION" "$SEED" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
limit = float(sys.argv[2])
s = r["rss"]
print(f"serve RSS under a mix of server/discover, tools/list, emails_list ({sys.argv[5]} e-mails seeded; "
      f"{sys.argv[3]} warm-up, then {sys.argv[4]}; {r['req_per_s']} req/s, {r['errors']} errors, {r['cpu_us_per_req']} µs CPU/req)")
print(f"{'s':>6} {'requests':>10} {'RSS MiB':>8}")
for x in s:
    print(f"{x['s']:>6.1f} {x['requests']:>10} {x['kib']/1024:>8.1f}")
before, after = s[0]["kib"], s[-1]["kib"]
n = s[-1]["requests"]
ratio = after / before
print(f"before {before/1024:.1f} MiB, after {after/1024:.1f} MiB: × {ratio:.3f} "
      f"({(after-before)*1024/max(n,1):+.1f} bytes per request over {n} requests; limit × {limit})")
if r["errors"]:
    print("FAIL: requests refused:", r.get("first_error"))
    sys.exit(1)
if ratio > limit:
    print(f"FAIL: RSS grew more than × {limit}")
    sys.exit(1)
print("ok")
PY
