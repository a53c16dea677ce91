#!/usr/bin/env bash
# The one-second bound on two replicas under load (docs/performance.md,
# "Benchmarks", "The signed-in path"; docs/decisions.md, "Identity read cache" and "Load
# checks: peer, memory, replicas"). Creates a fresh PostgreSQL database
# (kobana_replicas on postgres://postgres@127.0.0.1:5432, or REPLICAS_PG_URL),
# starts two `serve --products inbox` replicas on it (A and B: one public
# URL, the issuer of both, as behind a load balancer; the same
# --state-secrets; GOMAXPROCS=1 each; rate limits, and the limit on 401
# answers per address a removed member's requests run into, high enough
# never to refuse), creates ana@demo.local as a member of
# the demo organization, and drives replica B with `loadgen -watch`:
#
#   ana   tools/call emails_list    (needs read: refused once she is removed)
#   ana   tools/call inboxes_upsert (needs write: refused once she is viewer too;
#                                    the same inbox replaced every time)
#   owner tools/call emails_list    (must be served throughout)
#
# while the CLI, as a third process, changes her membership ROUNDS times
# each way: removed (users remove), back as member, demoted to viewer, back
# as member, GAP apart. loadgen polls her membership row every millisecond
# to time each change's commit (to within a poll), and reports, for every
# stream the change flips, the first answer with the new outcome and the
# last stale one (an answer with the old outcome to a request sent after
# the commit). Exits 1 if any is past LIMIT_MS (1000), any change was never
# seen, or the owner was refused once.
#
#   scripts/bench-replicas.sh
#   ROUNDS=5 GAP=2 scripts/bench-replicas.sh
#
# Ports 127.0.0.1:18485 (A) and 18486 (B): REPLICA_A_PORT, REPLICA_B_PORT.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
GAP=${GAP:-1.5}
LIMIT_MS=${LIMIT_MS:-1000}
A_PORT=${REPLICA_A_PORT:-18485}
B_PORT=${REPLICA_B_PORT:-18486}
. scripts/lib/bench-common.sh
[ -n "${REPLICAS_PG_URL:-}" ] || REPLICAS_PG_URL=$(fresh_pg_url kobana_replicas)
secrets=$(new_secret)
public="http://127.0.0.1:$A_PORT"
db=(--database-url "$REPLICAS_PG_URL" --state-secrets "$secrets")
replica() { # name port
	start_serve "$1" "$2" "${db[@]}" --inbox-public-url "$public" --unauthenticated-limit 1000000000-S
}
# A first: it migrates the fresh database and creates the demo organization.
replica a "$A_PORT"
replica b "$B_PORT"

cli() { "$work/kobana-mcp" "$@" --data-dir "$work/cli" --database-url "$REPLICAS_PG_URL"; }
ana_id=$(cli users create --org "Demo Company" --email ana@demo.local --role member --password "replica bench password" | head -1)
org_id=$(cli orgs list | awk '$2 == "Demo" && $3 == "Company" {print $1}')
token() { "$work/kobana-mcp" token --data-dir "$work/cli" "${db[@]}" --product inbox --user "$1" --inbox-public-url "$public" --ttl 1h; }
ana=$(token ana@demo.local)
owner=$(token owner@demo.local)

python3 - "$work/watch.json" <<PY
import json, sys
url = "http://127.0.0.1:$B_PORT/mcp"
list_args = json.dumps({"limit": 10})
upsert = json.dumps({"external_id": "replica-bench", "label": "Replica bench"})
json.dump({"database_url": "$REPLICAS_PG_URL", "user_id": "$ana_id", "org_id": "$org_id", "streams": [
    {"name": "ana emails_list", "url": url, "token": "$ana", "method": "tools/call", "tool": "emails_list", "args": list_args, "workers": 4, "watched": True, "needs": "read"},
    {"name": "ana inboxes_upsert", "url": url, "token": "$ana", "method": "tools/call", "tool": "inboxes_upsert", "args": upsert, "workers": 2, "watched": True, "needs": "write"},
    {"name": "owner emails_list", "url": url, "token": "$owner", "method": "tools/call", "tool": "emails_list", "args": list_args, "workers": 4},
]}, open(sys.argv[1], "w"))
PY

GOMAXPROCS=1 "$work/loadgen" -watch "$work/watch.json" >"$work/watch.out" 2>"$work/watch.err" &
watch_pid=$!
pids+=("$watch_pid")
for _ in $(seq 100); do grep -q "watch: ready" "$work/watch.err" 2>/dev/null && break; sleep 0.1; done
grep -q "watch: ready" "$work/watch.err" || { echo "the watch did not start:"; cat "$work/watch.err"; exit 1; }
sleep "$GAP"

change() { # what, then the CLI's arguments
	local t0 t1
	t0=$(date +%s%N)
	cli users "${@:2}" >/dev/null
	t1=$(date +%s%N)
	echo "$1 $(((t1 - t0) / 1000000))" >>"$work/cli_ms"
	sleep "$GAP"
}
for _ in $(seq "$ROUNDS"); do
	change removed remove --email ana@demo.local --org "$org_id"
	change member set-role --email ana@demo.local --org "$org_id" --role member
	change viewer set-role --email ana@demo.local --org "$org_id" --role viewer
	change member set-role --email ana@demo.local --org "$org_id" --role member
done
kill -INT "$watch_pid"
wait "$watch_pid" || { echo "the watch failed:"; cat "$work/watch.err"; exit 1; }

python3 - "$work/watch.out" "$work/cli_ms" "$LIMIT_MS" <<'PY'
import json, sys
rep = json.loads(open(sys.argv[1]).read())
cli = [l.split() for l in open(sys.argv[2])]
limit = float(sys.argv[3])
name = lambda r: r or "(removed)"
print(f"two replicas on one PostgreSQL database; changes by the CLI (a third process), load on replica B; "
      f"{rep['polls']} polls of the membership")
print(f"{'#':>2} {'change':22} {'CLI ms':>7} {'stream':20} {'first ms':>9} {'settled ms':>11} {'stale':>6}  first refusal / answer")
bad = []
worst = 0.0
if len(rep["changes"]) != len(cli):
    bad.append(f"{len(cli)} changes made, {len(rep['changes'])} seen by the poller")
for i, ch in enumerate(rep["changes"]):
    what = f"{name(ch['from'])} → {name(ch['to'])}"
    cms = cli[i][1] if i < len(cli) else "?"
    for e in ch["streams"]:
        if e["wrong"]:
            bad.append(f"change {i+1}, {e['name']}: {e['wrong']} answers with the wrong outcome")
        if not e["flips"]:
            continue
        if not e["found"] or not e["was_old"]:
            bad.append(f"change {i+1}, {e['name']}: found {e['found']}, old outcome before it {e['was_old']}")
        worst = max(worst, e["first_ms"], e["settled_ms"])
        if max(e["first_ms"], e["settled_ms"]) > limit:
            bad.append(f"change {i+1}, {e['name']}: {max(e['first_ms'], e['settled_ms'])} ms > {limit} ms")
        print(f"{i+1:>2} {what:22} {cms:>7} {e['name']:20} {e['first_ms']:>9.1f} {e['settled_ms']:>11.1f} {e['stale']:>6}  {(e.get('refusal') or 'served')[:90]}")
for s in rep["streams"]:
    print(f"{s['name']:20} {s['requests']:>7} requests, {s['refused']} refused")
    if s["name"].startswith("owner") and (s["refused"] or not s["requests"]):
        bad.append(f"{s['name']}: {s['refused']} of {s['requests']} refused: {s.get('first_error')}")
print(f"worst: {worst:.1f} ms (limit {limit:.0f} ms)")
if bad:
    print("FAIL:\n  " + "\n  ".join(bad))
    sys.exit(1)
print("ok")
PY
