package dunning

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/regua"
	"github.com/kobana/kobana-mcp/platform/mail"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// The step runner at scale (docs/performance.md "The step runner at
// scale", docs/decisions.md "The step runner at scale"): n charges
// enrolled by SQL in a plan whose one e-mail step is due at the same
// minute, the step runner started once, and every message followed to a
// local SMTP relay. On demand only (it seeds up to a million rows):
//
//	KOBANA_BENCH_REGUA=10000,100000 KOBANA_BENCH_REGUA_WORKERS=1,2,4 \
//	  go test ./dunning -run '^$' -bench ReguaScale -benchtime 1x -timeout 3h
//
// CI runs the same body at 120 enrollments on both engines
// (TestReguaScaleSmall), so it cannot rot.

// scaleSink is an SMTP relay on loopback that keeps only each message's
// Message-ID and when the last one arrived.
type scaleSink struct {
	mu   sync.Mutex
	ids  map[string]int
	last time.Time
}

func (s *scaleSink) NewSession(*smtp.Conn) (smtp.Session, error) { return &scaleSession{s: s}, nil }

// counts are how many messages arrived, how many distinct Message-IDs,
// and when the last arrived.
func (s *scaleSink) counts() (int, int, time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	total := 0
	for _, k := range s.ids {
		total += k
	}
	return total, len(s.ids), s.last
}

type scaleSession struct{ s *scaleSink }

func (*scaleSession) Mail(string, *smtp.MailOptions) error { return nil }
func (*scaleSession) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (*scaleSession) Reset()                               {}
func (*scaleSession) Logout() error                        { return nil }

// Data reads the headers for the Message-ID and drops the rest.
func (x *scaleSession) Data(r io.Reader) error {
	h, err := textproto.NewReader(bufio.NewReader(r)).ReadMIMEHeader()
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, r)
	x.s.mu.Lock()
	x.s.ids[h.Get("Message-Id")]++
	x.s.last = time.Now()
	x.s.mu.Unlock()
	return nil
}

// startScaleSink serves a scaleSink on loopback and returns the settings
// that reach it.
func startScaleSink(tb testing.TB) (*scaleSink, *mail.Config) {
	tb.Helper()
	sink := &scaleSink{ids: map[string]int{}}
	s := smtp.NewServer(sink)
	s.Domain = "sink.test"
	s.ReadTimeout, s.WriteTimeout = 30*time.Second, 30*time.Second
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	go func() { _ = s.Serve(l) }()
	tb.Cleanup(func() { _ = s.Close() })
	return sink, &mail.Config{Host: "127.0.0.1", Port: l.Addr().(*net.TCPAddr).Port, TLS: mail.TLSNone,
		From: "Cobrança <cobranca@mine.example>", Timeout: 10 * time.Second, SendTimeout: 30 * time.Second}
}

// scaleResult is one run's measures.
type scaleResult struct {
	N, Sample, Workers   int
	Seed, Outbox, Last   time.Duration // seeding; until every step's row was written; until the last message reached the relay
	CPU, PGCPU           time.Duration // this process's CPU during the run; the PostgreSQL server's (all its processes)
	DBBytes, RSSBytes    int64
	WALBytes             int64 // PostgreSQL's write-ahead log written during the run (the whole server's)
	Steps                int64 // enrollments updated during the run (PostgreSQL; 0 on SQLite)
	Duplicates, Distinct int
}

// runReguaScale seeds n enrollments due at 10:00 on 16 March 2026,
// starts the step runner once at 12:00 with workers queues (one per
// worker process the deployment would run), and waits for every message
// at the relay, checking that each (enrollment, step) was written and
// sent exactly once.
//
// With sample below n, the run stops once sample messages reached the
// relay and measures those: the cost per message with n enrollments in
// the tables, when sending all n would outlast the session.
func runReguaScale(tb testing.TB, db *store.DB, n, workers, batch, sample int) scaleResult {
	tb.Helper()
	sink, cfg := startScaleSink(tb)
	ne := newEnv(tb, db, envOptions{channels: ledger.ChannelConfig{SMTP: cfg}, start: sp(2026, 3, 16, 12, 0), runnerBatch: batch})
	org := ne.Mine.ID
	ntSettings(tb, db, org, map[string]ledger.ChannelSetting{ledger.ChannelEmail: {Enabled: true, Provider: ledger.ProviderSMTP}}, 0)
	for i := 1; i < workers; i++ {
		ne.secondQueue(tb)
	}
	if sample <= 0 || sample > n {
		sample = n
	}
	res := scaleResult{N: n, Sample: sample, Workers: workers}
	t0 := time.Now()
	seedReguaScale(tb, db, org, n)
	res.Seed = time.Since(t0)
	ctx := context.Background()
	cpu0, pg0, wal0 := selfCPU(tb), postgresCPU(db), walPosition(tb, db)
	upd0, blk0, rel0 := tableUpdates(tb, db), blocks(tb, db), relationHits(tb, db)
	start := time.Now()
	if _, err := ne.Jobs.Enqueue(ctx, regua.RunnerArgs{}, nil); err != nil {
		tb.Fatal(err)
	}
	deadline := start.Add(time.Duration(sample)*100*time.Millisecond + 2*time.Minute)
	// A sampled run counts the notifications written: a scan of a table
	// the run grows, so it asks once a second, not every 50 ms, to keep its
	// cost out of the server's figures (it was not what made a million's
	// window visit thousands of the notifications' pages a message:
	// docs/performance.md, "The cost per message at 10 000, 100 000 and
	// 1 000 000 enrolled"). A whole run's probe is one index seek and
	// keeps the finer step.
	probeEvery := 50 * time.Millisecond
	if sample < n {
		probeEvery = time.Second
	}
	var probed time.Time
	for {
		total, _, last := sink.counts()
		if res.Outbox == 0 && time.Since(probed) >= probeEvery {
			probed = time.Now()
			if outboxWritten(tb, db, n, sample) {
				res.Outbox = time.Since(start)
			}
		}
		if total >= sample {
			res.Last = last.Sub(start)
			break
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%d of %d messages at the relay after %s", total, sample, time.Since(start))
		}
		time.Sleep(50 * time.Millisecond)
	}
	res.CPU, res.PGCPU = selfCPU(tb)-cpu0, postgresCPU(db)-pg0
	if wal0 != "" {
		res.WALBytes = int64(scaleRows(tb, db, `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '`+wal0+`')::bigint`))
		res.Steps = logTableUpdates(tb, db, upd0, sample)
		blk := blocks(tb, db)
		hit, read := blk[0]-blk0[0], blk[1]-blk0[1]
		tb.Logf("buffers a message: %.1f found in PostgreSQL's shared buffers, %.1f read from the OS (%.1f%% read)",
			float64(hit)/float64(sample), float64(read)/float64(sample), 100*float64(read)/float64(max(hit+read, 1)))
		logRelationHits(tb, db, rel0, sample)
		logWAL(tb, db, wal0, sample)
	}
	if sample < n {
		checkReguaSample(tb, db, sink, &res)
		res.DBBytes, res.RSSBytes = databaseBytes(tb, db), peakRSS(tb)
		return res
	}
	ne.settle(tb)
	checkReguaOnce(tb, db, sink, n, &res)
	res.DBBytes, res.RSSBytes = databaseBytes(tb, db), peakRSS(tb)
	return res
}

// pgStats reads PostgreSQL's statistics views into dest, fresh (the
// backend's snapshot of them cleared first); false on SQLite, which has
// none.
func pgStats(tb testing.TB, db *store.DB, dest any, query string) bool {
	tb.Helper()
	if db.Dialect() != store.Postgres {
		return false
	}
	ctx := context.Background()
	_, _ = db.Exec(ctx, `SELECT pg_stat_clear_snapshot()`)
	if err := db.Select(ctx, dest, query); err != nil {
		tb.Fatal(err)
	}
	return true
}

// tableUpdate is one table's update counters (pg_stat_user_tables).
type tableUpdate struct {
	Table string `db:"relname"`
	Upd   int64  `db:"n_tup_upd"`
	HOT   int64  `db:"n_tup_hot_upd"`
}

// tableUpdates reads the test schema's tables' update counters on
// PostgreSQL (nil on SQLite): how many updates were HOT, which write no
// index entry and stay on their page — what a message's write-ahead log
// and its pages touched depend on.
func tableUpdates(tb testing.TB, db *store.DB) map[string]tableUpdate {
	tb.Helper()
	var rows []tableUpdate
	if !pgStats(tb, db, &rows, `SELECT relname, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE schemaname = current_schema()`) {
		return nil
	}
	out := map[string]tableUpdate{}
	for _, r := range rows {
		out[r.Table] = r
	}
	return out
}

// blocks is the database's buffer hits and reads so far (pg_stat_database;
// zeros on SQLite): a page PostgreSQL found in its shared buffers, or had
// to read from the operating system — the work that grows when a run's
// pages outgrow the buffers.
func blocks(tb testing.TB, db *store.DB) [2]int64 {
	tb.Helper()
	var b []struct {
		Hit  int64 `db:"blks_hit"`
		Read int64 `db:"blks_read"`
	}
	if !pgStats(tb, db, &b, `SELECT blks_hit, blks_read FROM pg_stat_database WHERE datname = current_database()`) || len(b) == 0 {
		return [2]int64{}
	}
	return [2]int64{b[0].Hit, b[0].Read}
}

// relationHits is each of the test schema's tables' and indexes' buffer
// hits and reads so far (pg_statio_user_tables, pg_statio_user_indexes;
// nil on SQLite).
func relationHits(tb testing.TB, db *store.DB) map[string]int64 {
	tb.Helper()
	var rows []struct {
		Name   string `db:"name"`
		Blocks int64  `db:"blocks"`
	}
	if !pgStats(tb, db, &rows, `SELECT relname AS name, CAST(COALESCE(heap_blks_hit, 0) + COALESCE(heap_blks_read, 0) AS BIGINT) AS blocks
			FROM pg_statio_user_tables WHERE schemaname = current_schema()
		UNION ALL SELECT indexrelname, CAST(COALESCE(idx_blks_hit, 0) + COALESCE(idx_blks_read, 0) AS BIGINT)
			FROM pg_statio_user_indexes WHERE schemaname = current_schema()`) {
		return nil
	}
	out := map[string]int64{}
	for _, r := range rows {
		out[r.Name] = r.Blocks
	}
	return out
}

// logRelationHits logs the relations whose pages the run visited most, a
// message: where the buffer visits a message makes go.
func logRelationHits(tb testing.TB, db *store.DB, before map[string]int64, sample int) {
	tb.Helper()
	type visit struct {
		name string
		n    int64
	}
	var vs []visit
	for name, n := range relationHits(tb, db) {
		if d := n - before[name]; d > 0 {
			vs = append(vs, visit{name, d})
		}
	}
	slices.SortFunc(vs, func(a, b visit) int { return int(b.n - a.n) })
	var parts []string
	for _, v := range vs[:min(len(vs), 12)] {
		parts = append(parts, fmt.Sprintf("%s %.1f", v.name, float64(v.n)/float64(sample)))
	}
	tb.Logf("pages visited a message, by relation (the twelve most): %s", strings.Join(parts, "; "))
}

// logTableUpdates logs each table's updates per message during the run and
// the share of them that was HOT, and returns how many enrollments were
// updated: the steps taken in the measured window. Short of the whole
// run (a sample of n), the runner has taken steps past the sample's by the
// time its last message reaches the relay, and their cost is in the
// window's; per step is the like-for-like figure.
func logTableUpdates(tb testing.TB, db *store.DB, before map[string]tableUpdate, sample int) int64 {
	tb.Helper()
	// The server publishes a backend's counters within a second or so of
	// its transactions.
	time.Sleep(1500 * time.Millisecond)
	var parts []string
	after := tableUpdates(tb, db)
	for name, a := range after {
		b := before[name]
		if upd := a.Upd - b.Upd; upd > 0 {
			parts = append(parts, fmt.Sprintf("%s %.2f/msg %d%% HOT", name, float64(upd)/float64(sample), 100*(a.HOT-b.HOT)/upd))
		}
	}
	slices.Sort(parts)
	tb.Logf("updates during the run: %s", strings.Join(parts, "; "))
	return after["dunning_enrollments"].Upd - before["dunning_enrollments"].Upd
}

// logWAL logs what the write-ahead log written since from holds per
// message, by resource manager (heap, B-tree, GIN, transactions…), the
// full-page images apart: the images are what grows with the tables (a
// page's first change after a checkpoint is written whole), the records
// what grows with the work. With KOBANA_BENCH_REGUA_WAL_RELS=1 it also
// counts the full-page images by relation. It needs the pg_walinspect
// extension (PostgreSQL 15's contrib), made in public when missing; without
// it, it says so and logs nothing else.
func logWAL(tb testing.TB, db *store.DB, from string, sample int) {
	tb.Helper()
	ctx := context.Background()
	if _, err := db.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pg_walinspect SCHEMA public`); err != nil {
		tb.Logf("write-ahead log by kind: pg_walinspect unavailable: %v", err)
		return
	}
	var to string
	if err := db.Get(ctx, &to, `SELECT pg_current_wal_flush_lsn()::text`); err != nil {
		tb.Fatal(err)
	}
	var stats []struct {
		RM     string `db:"resource_manager"`
		Count  int64  `db:"count"`
		Record int64  `db:"record_size"`
		FPI    int64  `db:"fpi_size"`
	}
	if err := db.Select(ctx, &stats, `SELECT "resource_manager/record_type" AS resource_manager, count, record_size, fpi_size
		FROM public.pg_get_wal_stats(CAST(? AS pg_lsn), CAST(? AS pg_lsn)) WHERE count > 0 ORDER BY record_size + fpi_size DESC`, from, to); err != nil {
		tb.Logf("write-ahead log by kind: %v", err)
		return
	}
	var parts []string
	var records, fpis int64
	for _, st := range stats {
		records, fpis = records+st.Record, fpis+st.FPI
		parts = append(parts, fmt.Sprintf("%s %.1f rec %d+%d B", st.RM, float64(st.Count)/float64(sample), st.Record/int64(sample), st.FPI/int64(sample)))
	}
	tb.Logf("write-ahead log per message: records %d B, full-page images %d B; by kind (records a message, record + image bytes): %s",
		records/int64(sample), fpis/int64(sample), strings.Join(parts, "; "))
	if os.Getenv("KOBANA_BENCH_REGUA_WAL_RELS") == "" {
		return
	}
	var refs []string
	if err := db.Select(ctx, &refs, `SELECT block_ref FROM public.pg_get_wal_records_info(CAST(? AS pg_lsn), CAST(? AS pg_lsn))
		WHERE fpi_length > 0`, from, to); err != nil {
		tb.Logf("full-page images by relation: %v", err)
		return
	}
	var names []struct {
		Node int64  `db:"relfilenode"`
		Name string `db:"relname"`
	}
	if err := db.Select(ctx, &names, `SELECT CAST(relfilenode AS BIGINT) AS relfilenode, relname FROM pg_class WHERE relfilenode <> 0`); err != nil {
		tb.Fatal(err)
	}
	name := map[int64]string{}
	for _, n := range names {
		name[n.Node] = n.Name
	}
	images := map[string]int{}
	for _, ref := range refs {
		for _, m := range fpwRef.FindAllStringSubmatch(ref, -1) {
			node, _ := strconv.ParseInt(m[1], 10, 64)
			rel := name[node]
			if rel == "" {
				rel = m[1]
			}
			images[rel]++
		}
	}
	parts = parts[:0]
	for rel, k := range images {
		parts = append(parts, fmt.Sprintf("%s %.2f", rel, float64(k)/float64(sample)))
	}
	slices.Sort(parts)
	tb.Logf("full-page images a message, by relation: %s", strings.Join(parts, "; "))
}

// fpwRef finds a block reference written as a full-page image in
// pg_walinspect's block_ref ("blkref #0: rel 1663/5/16384 fork main blk 7
// (FPW); hole: …"), capturing the relation's file node.
var fpwRef = regexp.MustCompile(`rel \d+/\d+/(\d+)(?: fork \w+)? blk \d+ \(FPW`)

// walPosition is PostgreSQL's current write-ahead log position ("" on
// SQLite).
func walPosition(tb testing.TB, db *store.DB) string {
	if db.Dialect() != store.Postgres {
		return ""
	}
	var lsn string
	if err := db.Get(context.Background(), &lsn, `SELECT pg_current_wal_lsn()::text`); err != nil {
		tb.Fatal(err)
	}
	return lsn
}

// outboxWritten says whether the run has written its sample's rows. A
// step's row is written in the transaction that moves its enrollment on,
// so a full run (sample = n) is written when no enrollment is still
// active: one probe of the enrollments' due index. It was a COUNT(*) of
// the notifications every 50 ms, a scan of the growing table that cost
// the server more than the run itself at 1 000 000 (docs/performance.md,
// "The step runner at scale"); a sampled run still counts them, at most
// its sample.
func outboxWritten(tb testing.TB, db *store.DB, n, sample int) bool {
	if sample < n {
		return scaleRows(tb, db, `SELECT COUNT(*) FROM dunning_notifications`) >= sample
	}
	return scaleRows(tb, db, `SELECT COUNT(*) FROM (SELECT 1 FROM dunning_enrollments WHERE status = 'active' LIMIT 1) x`) == 0
}

// checkReguaOnce checks every step was written, sent and received
// exactly once: n rows, n distinct (enrollment, step), all sent, n
// distinct Message-IDs at the relay and no message twice.
func checkReguaOnce(tb testing.TB, db *store.DB, sink *scaleSink, n int, res *scaleResult) {
	tb.Helper()
	total, distinct, _ := sink.counts()
	res.Duplicates, res.Distinct = total-distinct, distinct
	rows := scaleRows(tb, db, `SELECT COUNT(*) FROM dunning_notifications`)
	pairs := scaleRows(tb, db, `SELECT COUNT(*) FROM (SELECT DISTINCT enrollment_id, step_id FROM dunning_notifications) x`)
	sent := scaleRows(tb, db, `SELECT COUNT(*) FROM dunning_notifications WHERE status = 'sent'`)
	left := scaleRows(tb, db, `SELECT COUNT(*) FROM dunning_enrollments WHERE status = 'active'`)
	if rows != n || pairs != n || sent != n || distinct != n || total != n || left != 0 {
		tb.Fatalf("at most once, none missing: %d rows, %d (enrollment, step), %d sent, %d at the relay (%d distinct), %d enrollments still active; want %d",
			rows, pairs, sent, total, distinct, left, n)
	}
}

// checkReguaSample checks a run stopped at its sample: no (enrollment,
// step) written twice, no message at the relay twice.
func checkReguaSample(tb testing.TB, db *store.DB, sink *scaleSink, res *scaleResult) {
	tb.Helper()
	total, distinct, _ := sink.counts()
	res.Duplicates, res.Distinct = total-distinct, distinct
	// Both counts in one statement, one snapshot: the run goes on past
	// its sample, and two statements saw rows written between them.
	extra := scaleRows(tb, db, `SELECT COUNT(*) - COUNT(DISTINCT enrollment_id || '/' || step_id) FROM dunning_notifications`)
	if extra != 0 || total != distinct {
		tb.Fatalf("at most once: %d rows more than (enrollment, step) pairs; %d messages at the relay, %d distinct", extra, total, distinct)
	}
}

// seedReguaScale writes n debtors with an e-mail address, a charge due on
// 16 March 2026 each, and an enrollment (an id ordered as the API's are)
// in one new active plan whose only step sends an e-mail on the due date
// at 10:00 — by INSERT … SELECT, then recounts the organization's
// counters (docs/decisions.md "Listings at scale").
func seedReguaScale(tb testing.TB, db *store.DB, org string, n int) {
	tb.Helper()
	ctx := context.Background()
	now := store.Now()
	planID, stepID := store.NewID(), store.NewID()
	due := sp(2026, 3, 16, 10, 0).UTC()
	// Ids in the order of i, as the API's UUID v7 (store.NewID) are in
	// the order they were made: debtor, charge and enrollment i sort i-th
	// (an enrollment's id has a random tail, the slices' digit). With random ids (KOBANA_BENCH_REGUA_RANDOM_IDS=1) the runner
	// visits the charges, debtors and enrollments in no order their pages
	// have: at 1 000 000 that working set outgrows PostgreSQL's buffers
	// (docs/performance.md "The step runner at scale").
	gen, key := `generate_series(1, ?) AS g(i)`, `lpad(i::text, 8, '0')`
	uuid := `lpad(to_hex(i), 8, '0') || '-0000-7000-8' || substr(md5(random()::text), 1, 3) || '-' || substr(md5(random()::text), 1, 12)`
	if os.Getenv("KOBANA_BENCH_REGUA_RANDOM_IDS") != "" {
		uuid = `gen_random_uuid()::text`
	}
	if db.Dialect() == store.SQLite {
		gen, key = `(WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ?) SELECT i FROM s) AS g`, `printf('%08d', i)`
		uuid = `(SELECT printf('%08x', i) || '-0000-7000-8' || substr(h, 18, 3) || '-' || substr(h, 21, 12)
			FROM (SELECT lower(hex(randomblob(16))) AS h WHERE i = i))`
		if os.Getenv("KOBANA_BENCH_REGUA_RANDOM_IDS") != "" {
			uuid = `(SELECT substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-7' || substr(h, 14, 3) || '-8' || substr(h, 18, 3) || '-' || substr(h, 21, 12)
			FROM (SELECT lower(hex(randomblob(16))) AS h WHERE i = i))`
		}
	}
	stmts := []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO dunning_plans (id, organization_id, external_id, name, description, status, created_at, updated_at)
			VALUES (?, ?, NULL, 'Régua em escala', '', 'active', ?, ?)`, []any{planID, org, now, now}},
		{`INSERT INTO dunning_plan_steps (id, organization_id, plan_id, offset_days, send_time, channel, action, subject,
			template, requires_approval, business_days, status, created_at, updated_at)
			VALUES (?, ?, ?, 0, '10:00', 'email', 'notify', 'Vence hoje', '{{debtor.name}}: {{charge.updated_amount}} vence {{charge.due_date}}', 0, 0, 'active', ?, ?)`,
			[]any{stepID, org, planID, now, now}},
		{`INSERT INTO dunning_debtors (id, organization_id, external_id, name, document, person_kind, emails, phones, status, created_at, updated_at)
			SELECT 'rd-' || ` + key + `, ?, 'rd-' || ` + key + `, 'Devedor ' || i, '52998224725', 'natural', '["d' || i || '@example.com"]', '[]', 'active', ?, ? FROM ` + gen,
			[]any{org, now, now, n}},
		{`INSERT INTO dunning_charges (id, organization_id, debtor_id, amount_cents, open_amount_cents, due_date, description, fine, interest,
			origin, tags, custom_data, status, created_at, updated_at)
			SELECT 'rc-' || ` + key + `, ?, 'rd-' || ` + key + `, 10000, 10000, '2026-03-16', 'Parcela', 0, 0, 'external', '[]', '{}', 'pending', ?, ? FROM ` + gen,
			[]any{org, now, now, n}},
		{`INSERT INTO dunning_enrollments (id, organization_id, charge_id, plan_id, status, next_step_id, next_run_at, skipped_past,
			started_at, created_at, updated_at) SELECT ` + uuid + `, ?, 'rc-' || ` + key + `, ?, 'active', ?, ?, 0, ?, ?, ? FROM ` + gen,
			[]any{org, planID, stepID, due, now, now, now, n}},
	}
	for _, s := range stmts {
		if _, err := db.Exec(ctx, s.sql, s.args...); err != nil {
			tb.Fatal(err)
		}
	}
	if err := db.WithTx(ctx, func(tx *store.Tx) error { return ledger.RecountOrganization(ctx, tx, org) }); err != nil {
		tb.Fatal(err)
	}
	if db.Dialect() == store.Postgres {
		// As a database whose charges were written days before their step
		// is due: vacuumed and analyzed, and the load's dirty pages
		// written. Otherwise the run pays for the load (autovacuum's first
		// pass over a million fresh rows, the load's checkpoint) in its
		// own time.
		if _, err := db.Exec(ctx, `VACUUM (ANALYZE) dunning_enrollments, dunning_charges, dunning_debtors`); err != nil {
			tb.Fatal(err)
		}
		// The catalogs too: every test schema created and dropped on this
		// server (a CI run makes hundreds) leaves dead rows in them, and
		// with autovacuum turned on for the run its first pass over them
		// landed in the measured minute: about 1.9 of the 2.3 full-page
		// images a message were the catalogs' (pg_attribute alone 0.8), seen
		// with KOBANA_BENCH_REGUA_WAL_RELS=1 after a CI run.
		if _, err := db.Exec(ctx, `VACUUM pg_catalog.pg_attribute, pg_catalog.pg_class, pg_catalog.pg_constraint, pg_catalog.pg_index,
			pg_catalog.pg_attrdef, pg_catalog.pg_depend, pg_catalog.pg_type, pg_catalog.pg_statistic`); err != nil {
			tb.Logf("VACUUM of the catalogs: %v", err)
		}
		if _, err := db.Exec(ctx, `CHECKPOINT`); err != nil {
			tb.Logf("CHECKPOINT after the load: %v", err)
		}
	}
}

func scaleRows(tb testing.TB, db *store.DB, q string) int {
	tb.Helper()
	var k int
	if err := db.Get(context.Background(), &k, q); err != nil {
		tb.Fatal(err)
	}
	return k
}

// databaseBytes is the size of the test's tables and indexes: its
// schema's relations on PostgreSQL, the file's pages on SQLite.
func databaseBytes(tb testing.TB, db *store.DB) int64 {
	tb.Helper()
	q := `SELECT CAST(COALESCE(SUM(pg_total_relation_size(c.oid)), 0) AS BIGINT) FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
		WHERE s.nspname = current_schema() AND c.relkind = 'r'`
	if db.Dialect() == store.SQLite {
		q = `SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()`
	}
	var k int64
	if err := db.Get(context.Background(), &k, q); err != nil {
		tb.Fatal(err)
	}
	return k
}

// selfCPU is this process's user and system CPU so far.
func selfCPU(tb testing.TB) time.Duration {
	tb.Helper()
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		tb.Fatal(err)
	}
	return statCPU(string(b))
}

// postgresCPU is the CPU of every process named postgres on the machine,
// with that of their children that have exited (a backend whose
// connection closed counts in its postmaster's cutime and cstime): the
// server the tests use, other sessions' queries on it included; 0 on
// SQLite.
func postgresCPU(db *store.DB) time.Duration {
	if db.Dialect() != store.Postgres {
		return 0
	}
	ents, _ := os.ReadDir("/proc")
	var sum time.Duration
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err == nil && strings.Contains(string(b), "(postgres)") {
			sum += statCPU(string(b)) + childCPU(string(b))
		}
	}
	return sum
}

// statCPU reads utime and stime of a /proc/PID/stat line (clock ticks of
// 10 ms, Linux's USER_HZ).
func statCPU(line string) time.Duration { return statTicks(line, 11) }

// childCPU reads cutime and cstime of a /proc/PID/stat line.
func childCPU(line string) time.Duration { return statTicks(line, 13) }

// statTicks is the sum of the two clock-tick fields of a /proc/PID/stat
// line at i and i+1, counted after the command's closing parenthesis, as
// a duration.
func statTicks(line string, i int) time.Duration {
	f := strings.Fields(line[strings.LastIndexByte(line, ')')+2:])
	if len(f) < i+2 {
		return 0
	}
	a, _ := strconv.ParseInt(f[i], 10, 64)
	b, _ := strconv.ParseInt(f[i+1], 10, 64)
	return time.Duration(a+b) * 10 * time.Millisecond
}

// peakRSS is this process's peak resident set (VmHWM).
func peakRSS(tb testing.TB) int64 {
	tb.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// TestReguaScaleSmall runs the scale benchmark's body at 120 enrollments
// on both engines with two workers and a batch of 20, so the run is
// handed to the slice jobs: every step written, sent and received exactly
// once.
func TestReguaScaleSmall(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		r := runReguaScale(t, db, 120, 2, 20, 0)
		t.Logf("%+v", r)
		if k := scaleRows(t, db, `SELECT COUNT(*) FROM river_job WHERE kind = 'dunning.step_runner_slice'`); k == 0 {
			t.Error("a run with more than a batch due was not handed to the slice jobs")
		}
	})
}

// BenchmarkReguaScale is the scale run at each size of
// KOBANA_BENCH_REGUA and each worker count of KOBANA_BENCH_REGUA_WORKERS
// (default 1): msg/s until the last message reached the relay, the
// runner's part (rows written) apart, CPU per message of this process and
// of the PostgreSQL server, the database's size and this process's peak
// RSS.
func BenchmarkReguaScale(b *testing.B) {
	sizes, workers := envInts(b, "KOBANA_BENCH_REGUA", nil), envInts(b, "KOBANA_BENCH_REGUA_WORKERS", []int{1})
	sample := envInts(b, "KOBANA_BENCH_REGUA_SAMPLE", []int{0})[0]
	if len(sizes) == 0 {
		b.Skip("KOBANA_BENCH_REGUA=10000,100000 runs it")
	}
	for _, engine := range storetest.Engines {
		for _, n := range sizes {
			for _, w := range workers {
				b.Run(fmt.Sprintf("%s/%d/workers=%d", engine, n, w), func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						db := storetest.Open(b, engine, Migrations)
						withAutovacuum(b, db)
						r := runReguaScale(b, db, n, w, 0, sample)
						reportReguaScale(b, r)
					}
				})
			}
		}
	}
}

// withAutovacuum turns PostgreSQL's autovacuum on for the run when the
// server has it off (this machine kind's PostgreSQL does, for the tests'
// speed), and back off after: without it no table the run fills is ever
// analyzed, so the plans PostgreSQL made for them while they were empty
// stay (a notification read by its id walked every notification of the
// organization), and nothing is vacuumed; the throughput fell from 180
// to 65 msg/s within 20 000 messages of a 1 000 000 run. A production
// server runs autovacuum (docs/performance.md "The step runner at scale").
func withAutovacuum(b *testing.B, db *store.DB) {
	if db.Dialect() != store.Postgres {
		return
	}
	ctx := context.Background()
	var on string
	if err := db.Get(ctx, &on, `SHOW autovacuum`); err != nil || on == "on" {
		return
	}
	set := func(stmt string) {
		if _, err := db.Exec(ctx, stmt); err != nil {
			b.Fatal(err)
		}
		if _, err := db.Exec(ctx, `SELECT pg_reload_conf()`); err != nil {
			b.Fatal(err)
		}
	}
	set(`ALTER SYSTEM SET autovacuum = on`)
	b.Cleanup(func() { set(`ALTER SYSTEM RESET autovacuum`) })
	b.Log("autovacuum turned on for the run (ALTER SYSTEM), as a production server has it")
}

func reportReguaScale(b *testing.B, r scaleResult) {
	b.ReportMetric(float64(r.Sample)/r.Last.Seconds(), "msg/s")
	b.ReportMetric(float64(r.Sample)/r.Outbox.Seconds(), "rows/s")
	b.ReportMetric(r.Last.Seconds(), "s-last")
	if r.WALBytes > 0 {
		b.ReportMetric(float64(r.WALBytes)/float64(r.Sample), "wal-B/msg")
	}
	b.ReportMetric(float64(r.CPU.Microseconds())/float64(r.Sample), "cpu-µs/msg")
	b.ReportMetric(float64(r.PGCPU.Microseconds())/float64(r.Sample), "pg-cpu-µs/msg")
	if r.Steps > 0 {
		b.ReportMetric(float64(r.PGCPU.Microseconds())/float64(r.Steps), "pg-cpu-µs/step")
		b.ReportMetric(float64(r.CPU.Microseconds())/float64(r.Steps), "cpu-µs/step")
		b.ReportMetric(float64(r.WALBytes)/float64(r.Steps), "wal-B/step")
	}
	b.ReportMetric(float64(r.DBBytes)/float64(r.N), "db-B/msg")
	b.ReportMetric(float64(r.RSSBytes)/(1<<20), "rss-MiB")
	b.Logf("%d enrolled, %d measured: seed %s, rows written in %s, last message at %s, %d duplicates", r.N, r.Sample, r.Seed, r.Outbox, r.Last, r.Duplicates)
}

// envInts reads a comma-separated list of integers from the environment.
func envInts(tb testing.TB, name string, def []int) []int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	var out []int
	for _, s := range strings.Split(v, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			tb.Fatalf("%s: %v", name, err)
		}
		out = append(out, k)
	}
	return out
}
