#!/usr/bin/env bash
# The step runner at scale in real processes (docs/performance.md "The step
# runner at scale"): `serve --jobs off` and WORKERS `worker` processes
# (GOMAXPROCS=1 each) on one fresh PostgreSQL database, Dunning's e-mail
# going to examples/smtp-receiver on loopback. N debtors, charges and
# enrollments (ids in the order of i, as the API's UUID v7 are in the
# order they were made) are written by INSERT … SELECT generate_series with one
# e-mail step due a minute ago (the organization's time zone is moved to
# one where it is day, so the quiet hours do not hold the run back); the
# workers' step runner, started by the leader at once, decides them and
# the workers send them. Prints the time until every row was written and
# until the last message reached the relay, msg/s, CPU µs per message of
# the workers and of every PostgreSQL process (the shared server: other
# sessions' queries count too; a backend that exited counts in its
# postmaster's children's CPU), the database's size, each worker's peak
# RSS, and checks every (enrollment, step) was written, sent and received
# exactly once.
#
#   N=10000 WORKERS=2 scripts/bench-regua.sh
#
# The organization's counters (dunning_charge_counts) are not recounted
# after the bulk load: the run reads none of them.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-10000}
WORKERS=${WORKERS:-1}
PORT=${BENCH_PORT:-18491}
SMTP_PORT=${SMTP_PORT:-18492}
PRODUCT=dunning
. scripts/lib/bench-common.sh
bench_bin smtp-receiver ./examples/smtp-receiver
"$work/smtp-receiver" -addr "127.0.0.1:$SMTP_PORT" >"$work/relay.out" 2>"$work/relay.err" &
pids+=($!)
with_autovacuum
# A run stopped half-way leaves sessions on the database; drop it anyway.
psql -q -h 127.0.0.1 -U postgres -d postgres -c "DROP DATABASE IF EXISTS kobana_regua WITH (FORCE)"
url=$(fresh_pg_url kobana_regua)
psql_() { psql -q -At -h 127.0.0.1 -U postgres -d kobana_regua -v ON_ERROR_STOP=1 "$@"; }
smtp=(--dunning-smtp-host 127.0.0.1 --dunning-smtp-port "$SMTP_PORT" --dunning-smtp-tls none --dunning-smtp-from "Cobrança <cobranca@bench.example>")
db=(--database-url "$url" --state-secrets "$(new_secret)")
start_serve data "$PORT" "${db[@]}" --jobs off "${smtp[@]}"
org=$(psql_ -c "SELECT id FROM organizations ORDER BY created_at LIMIT 1")

# A time zone where it is between 09:00 and 19:00 now, and the step due at
# its previous whole minute (send_time) on today's date there.
zone=$(python3 -c '
import datetime, zoneinfo
for z in ["America/Sao_Paulo", "Europe/Lisbon", "Asia/Dubai", "Asia/Kolkata", "Asia/Tokyo", "Pacific/Auckland", "America/Los_Angeles", "Pacific/Honolulu"]:
    t = datetime.datetime.now(zoneinfo.ZoneInfo(z))
    if 9 <= t.hour < 19: print(z); break')
read -r today at <<<"$(TZ=$zone date -d '-1 min' '+%F %H:%M')"
due_utc=$(date -u -d "TZ=\"$zone\" $today $at" '+%F %T')
psql_ <<SQL
INSERT INTO dunning_settings (organization_id, timezone, quiet_start, quiet_end, grace_days, channels, company_fine_cap, closed_days, updated_at)
VALUES ('$org', '$zone', '20:00', '08:00', 0, '{"email":{"enabled":true,"provider":"smtp"},"sms":{"enabled":true,"provider":"outbox"},"whatsapp":{"enabled":true,"provider":"outbox"}}', 100000, '[]', now())
ON CONFLICT (organization_id) DO UPDATE SET timezone = excluded.timezone, channels = excluded.channels;
INSERT INTO dunning_plans (id, organization_id, external_id, name, description, status, created_at, updated_at)
VALUES ('bench-plan', '$org', NULL, 'Régua em escala', '', 'active', now(), now());
INSERT INTO dunning_plan_steps (id, organization_id, plan_id, offset_days, send_time, channel, action, subject, template, requires_approval, business_days, status, created_at, updated_at)
VALUES ('bench-step', '$org', 'bench-plan', 0, '$at', 'email', 'notify', 'Vence hoje', '{{debtor.name}}: {{charge.updated_amount}} vence {{charge.due_date}}', 0, 0, 'active', now(), now());
INSERT INTO dunning_debtors (id, organization_id, external_id, name, document, person_kind, emails, phones, status, created_at, updated_at)
SELECT 'rd-' || lpad(i::text, 8, '0'), '$org', 'rd-' || lpad(i::text, 8, '0'), 'Devedor ' || i, '52998224725', 'natural', '["d' || i || '@example.com"]', '[]', 'active', now(), now() FROM generate_series(1, $N) i;
INSERT INTO dunning_charges (id, organization_id, debtor_id, amount_cents, open_amount_cents, due_date, description, fine, interest, origin, tags, custom_data, status, created_at, updated_at)
SELECT 'rc-' || lpad(i::text, 8, '0'), '$org', 'rd-' || lpad(i::text, 8, '0'), 10000, 10000, '$today', 'Parcela', 0, 0, 'external', '[]', '{}', 'pending', now(), now() FROM generate_series(1, $N) i;
INSERT INTO dunning_enrollments (id, organization_id, charge_id, plan_id, status, next_step_id, next_run_at, skipped_past, started_at, created_at, updated_at)
SELECT lpad(to_hex(i), 8, '0') || '-0000-7000-8' || substr(md5(random()::text), 1, 3) || '-' || substr(md5(random()::text), 1, 12), '$org', 'rc-' || lpad(i::text, 8, '0'), 'bench-plan', 'active', 'bench-step', '$due_utc', 0, now(), now(), now() FROM generate_series(1, $N) i;
SQL
# As a database whose charges were written days before (docs/decisions.md "The step runner at scale").
psql_ -c "VACUUM (ANALYZE)" -c "CHECKPOINT"

cpu() { # CPU ticks of the given pids, with their children that exited
	local s=0
	for p in "$@"; do s=$((s + $(awk '{print $14 + $15 + $16 + $17}' "/proc/$p/stat" 2>/dev/null || echo 0))); done
	echo $s
}
pgpids() { for f in /proc/[0-9]*/stat; do grep -q '(postgres)' "$f" 2>/dev/null && basename "$(dirname "$f")"; done; }
pg0=$(cpu $(pgpids))
start=$(date +%s.%N)
wpids=()
for i in $(seq "$WORKERS"); do
	GOMAXPROCS=1 "$work/kobana-mcp" worker --data-dir "$work/data" "${db[@]}" --products dunning "${smtp[@]}" --log-format json \
		>"$work/worker$i.out" 2>"$work/worker$i.err" &
	pids+=($!)
	wpids+=($!)
done
written=""
# A run that stalls fails rather than waiting for ever: DEADLINE seconds
# (default two minutes plus 100 ms a message) after the workers start.
deadline=$(echo "$start + ${DEADLINE:-$((120 + N / 10))}" | bc)
while :; do
	rows=$(psql_ -c "SELECT COUNT(*) FROM dunning_notifications")
	[ -z "$written" ] && [ "$rows" -ge "$N" ] && written=$(echo "$(date +%s.%N) - $start" | bc)
	got=$(grep -c '^message ' "$work/relay.out" || true)
	[ "$got" -ge "$N" ] && break
	if [ "$(echo "$(date +%s.%N) > $deadline" | bc)" = 1 ]; then
		echo "FAILED: $got of $N messages at the relay, $rows rows written, after the deadline"
		tail -n 20 "$work"/worker*.err
		exit 1
	fi
	sleep 0.5
done
last=$(echo "$(date +%s.%N) - $start" | bc)
wcpu=$(cpu "${wpids[@]}")
pgcpu=$(($(cpu $(pgpids)) - pg0))
sleep 1
sent=$(psql_ -c "SELECT COUNT(*) FROM dunning_notifications WHERE status = 'sent'")
pairs=$(psql_ -c "SELECT COUNT(*) FROM (SELECT DISTINCT enrollment_id, step_id FROM dunning_notifications) x")
ids=$(grep '^Message-Id:' "$work/relay.out" | sort | uniq | wc -l)
dups=$(grep '^Message-Id:' "$work/relay.out" | sort | uniq -d | wc -l)
size=$(psql_ -c "SELECT pg_database_size('kobana_regua')")
rss=$(for p in "${wpids[@]}"; do awk '/VmHWM/ {printf "%d ", $2/1024}' "/proc/$p/status"; done)
echo "N=$N workers=$WORKERS zone=$zone: rows written in ${written}s, last message at ${last}s"
echo "msg/s $(echo "$N / $last" | bc), worker CPU µs/msg $((wcpu * 10000 / N)), PostgreSQL CPU µs/msg $((pgcpu * 10000 / N)), database $((size / N)) B/msg, worker peak RSS MiB: $rss"
echo "at most once: $sent sent, $pairs distinct (enrollment, step), $got at the relay, $ids distinct Message-Ids, $dups twice"
[ "$sent" -eq "$N" ] && [ "$pairs" -eq "$N" ] && [ "$ids" -eq "$N" ] && [ "$dups" -eq 0 ] || { echo "FAILED: not exactly once"; exit 1; }
