package dunning

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit/producttest"
)

// seedListing writes n debtors and n charges of the organization in two
// statements, bypassing the API (the listings read only the rows), then
// rebuilds its counters (recountOrganization): charge i of debtor i, due
// on one of 365 days of 2026, 60 % pending, 30 % overdue, 10 % paid, one
// in twenty archived. The listing tests and benchmark seed with it
// (docs/decisions.md, "Listings at scale").
func seedListing(t testing.TB, db *store.DB, tag, orgID string, n int) {
	t.Helper()
	ctx := context.Background()
	gen, pad, due, ts := `generate_series(1, ?) AS g(i)`, `lpad(i::text, 10, '0')`, `to_char(date '2026-01-01' + (i % 365), 'YYYY-MM-DD')`, `?::timestamptz`
	if db.Dialect() == store.SQLite {
		gen = `(WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ?) SELECT i FROM s) AS g`
		pad, due, ts = `printf('%010d', i)`, `date('2026-01-01', '+' || (i % 365) || ' days')`, `?`
	}
	now := store.Now()
	stmts := []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO dunning_debtors (id, organization_id, external_id, name, document, person_kind, emails, phones, status, created_at, updated_at)
			SELECT ? || '-d-' || ` + pad + `, ?, 'd-' || ` + pad + `, 'Devedor ' || ` + pad + `, '52998224725', 'natural', '[]', '[]',
				CASE WHEN i % 20 = 0 THEN 'archived' ELSE 'active' END, ?, ? FROM ` + gen, []any{tag, orgID, now, now, n}},
		{`INSERT INTO dunning_charges (id, organization_id, debtor_id, amount_cents, open_amount_cents, due_date, description, fine, interest,
			origin, tags, custom_data, status, archived_at, created_at, updated_at)
			SELECT ? || '-c-' || ` + pad + `, ?, ? || '-d-' || ` + pad + `, 1000 + i % 5000, 1000 + i % 5000, ` + due + `, 'Mensalidade', 0, 0,
				'external', '[]', '{}', CASE WHEN i % 10 < 6 THEN 'pending' WHEN i % 10 < 9 THEN 'overdue' ELSE 'paid' END,
				CASE WHEN i % 20 = 1 THEN ` + ts + ` END, ?, ? FROM ` + gen, []any{tag, orgID, tag, now, now, now, n}},
	}
	for _, s := range stmts {
		if _, err := db.Exec(ctx, s.sql, s.args...); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.WithTx(ctx, func(tx *store.Tx) error { return ledger.RecountOrganization(ctx, tx, orgID) }); err != nil {
		t.Fatal(err)
	}
	if db.Dialect() == store.Postgres {
		if _, err := db.Exec(ctx, `ANALYZE dunning_charges; ANALYZE dunning_debtors`); err != nil {
			t.Fatal(err)
		}
	}
}

// The first pages' statements as dunning_charges_list and
// dunning_debtors_list build them (charges.go, debtors.go), with the
// organization as the first argument.
var listingPlans = []struct{ name, query, index string }{
	{"charges by due date", `SELECT c.* FROM dunning_charges c WHERE c.organization_id = ? AND c.archived_at IS NULL ORDER BY c.due_date ASC, c.id ASC LIMIT 25 OFFSET 0`, "dunning_charges_by_due"},
	{"charges by amount", `SELECT c.* FROM dunning_charges c WHERE c.organization_id = ? AND c.archived_at IS NULL ORDER BY c.amount_cents DESC, c.id DESC LIMIT 25 OFFSET 0`, "dunning_charges_by_amount"},
	{"charges by created_at", `SELECT c.* FROM dunning_charges c WHERE c.organization_id = ? AND c.archived_at IS NULL ORDER BY c.created_at DESC, c.id DESC LIMIT 25 OFFSET 0`, "dunning_charges_by_created"},
	{"charges by updated_at", `SELECT c.* FROM dunning_charges c WHERE c.organization_id = ? AND c.archived_at IS NULL ORDER BY c.updated_at ASC, c.id ASC LIMIT 25 OFFSET 0`, "dunning_charges_by_updated"},
	{"overdue charges", `SELECT c.* FROM dunning_charges c WHERE c.organization_id = ? AND c.archived_at IS NULL AND c.status IN ('overdue') ORDER BY c.due_date ASC, c.id ASC LIMIT 25 OFFSET 0`, "dunning_charges_list"},
	{"charges with their total", `SELECT c.id, (SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM dunning_charge_counts WHERE organization_id = 'o' AND archived = 0) AS list_total
		FROM dunning_charges c WHERE c.organization_id = ? AND c.archived_at IS NULL ORDER BY c.due_date ASC, c.id ASC LIMIT 25 OFFSET 0`, "dunning_charges_by_due"},
	{"charges' total", `SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM dunning_charge_counts WHERE organization_id = ? AND archived = 0 AND status IN ('overdue')`, "dunning_charge_counts"},
	{"debtors by name", `SELECT * FROM dunning_debtors WHERE organization_id = ? AND status = 'active' ORDER BY name ASC, id ASC LIMIT 25 OFFSET 0`, "dunning_debtors_list"},
	{"charges after a page mark", `SELECT c.id FROM dunning_charges c WHERE c.organization_id = ? AND c.archived_at IS NULL
		AND (c.due_date, c.id) > (SELECT b.due_date, b.id FROM dunning_charges b JOIN dunning_page_marks m ON m.row_id = b.id
			WHERE m.organization_id = 'o' AND m.list = 'l' AND m.position = 1
			AND m.version = (SELECT CAST(COALESCE(SUM(v), 0) AS BIGINT) FROM dunning_charge_counts WHERE organization_id = 'o'))
		ORDER BY c.due_date ASC, c.id ASC LIMIT 25 OFFSET 10`, "dunning_charges_by_due"},
	{"debtors after a page mark", `SELECT t.id FROM dunning_debtors t WHERE organization_id = ? AND status = 'active'
		AND (t.name, t.id) > (SELECT b.name, b.id FROM dunning_debtors b JOIN dunning_page_marks m ON m.row_id = b.id
			WHERE m.organization_id = 'o' AND m.list = 'l' AND m.position = 1
			AND m.version = (SELECT CAST(COALESCE(SUM(v), 0) AS BIGINT) FROM dunning_debtor_counts WHERE organization_id = 'o'))
		ORDER BY t.name ASC, t.id ASC LIMIT 25 OFFSET 10`, "dunning_debtors_list"},
	{"debtors' total", `SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM dunning_debtor_counts WHERE organization_id = ? AND status = 'active'`, "dunning_debtor_counts"},
}

// TestListingPlans pins the plans of the numbered listings' first pages
// and totals on both engines: with a few thousand rows in each of two
// organizations, each reads its index in order and stops at the page, and
// each total is a counter row (docs/decisions.md, "Listings at scale").
func TestListingPlans(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startListing(t, db)
		seedListing(t, db, "mine", e.Mine.ID, 3000)
		seedListing(t, db, "theirs", e.Theirs.ID, 3000)
		for _, p := range listingPlans {
			plan := storetest.Explain(t, db, p.query, e.Mine.ID)
			if !strings.Contains(plan, p.index) || strings.Contains(plan, "Sort") || strings.Contains(plan, "TEMP B-TREE") || strings.Contains(plan, "Seq Scan") {
				t.Errorf("%s: the plan does not read %s in order:\n%s", p.name, p.index, plan)
			}
			// A seek under a page mark starts the index range at the mark
			// (PostgreSQL's row comparison in the Index Cond, SQLite's range
			// on the order column), not at the organization's first row.
			if strings.Contains(p.name, "page mark") && !strings.Contains(plan, "> ROW($") && !strings.Contains(plan, ">?)") {
				t.Errorf("%s: the index range does not start at the mark:\n%s", p.name, plan)
			}
		}
	})
}

// BenchmarkListingAtScale measures pages of dunning_charges_list and
// dunning_debtors_list (scalePages), with their exact meta.total, and
// dunning_me's counts, through the route
// (HTTP, token, the handler, the queries) in an organization of 1 000
// debtors and charges and in one of 1 000 000 each, side by side in one
// run (docs/performance.md, "Benchmarks", "Listings at scale"). It seeds with INSERT …
// SELECT, so it runs on demand only:
//
//	KOBANA_BENCH_SCALE=1 go test ./dunning -run '^$' -bench ListingAtScale -benchtime 2s
//
// (KOBANA_TEST_ENGINES=postgres or sqlite narrows the engines.)
func BenchmarkListingAtScale(b *testing.B) {
	if os.Getenv("KOBANA_BENCH_SCALE") != "1" {
		b.Skip("seeds 1 000 000 debtors and charges: set KOBANA_BENCH_SCALE=1")
	}
	for _, engine := range storetest.Engines {
		b.Run(string(engine), func(b *testing.B) {
			db := storetest.Open(b, engine, Migrations)
			// An insert-only queue: the overdue sweep would turn the seeded
			// pending charges overdue during the run, each batch a write
			// that makes the page marks old (the cost of a deep page after a
			// write is logged as its first request).
			q, err := jobs.New(context.Background(), db, jobs.Config{})
			if err != nil {
				b.Fatal(err)
			}
			e := producttest.Start(b, db, Spec(), producttest.Options{Queue: q})
			for _, size := range []struct {
				n     int
				org   string
				token string
			}{
				{1000, e.Theirs.ID, e.Token(e.Other, "api")},
				{1000000, e.Mine.ID, e.Token(e.Owner, "api")},
			} {
				tag := fmt.Sprintf("s%d", size.n)
				start := time.Now()
				seedListing(b, db, tag, size.org, size.n)
				b.Logf("%s: seeded %d debtors and charges in %s", engine, size.n, time.Since(start).Round(time.Millisecond))
				for _, p := range scalePages(size.n) {
					first := time.Now()
					checkScalePage(b, e, size.token, p.path)
					b.Logf("rows=%d/%s: first request %s (marks read and stored)", size.n, p.name, time.Since(first).Round(time.Microsecond))
					b.Run(fmt.Sprintf("rows=%d/%s", size.n, p.name), func(b *testing.B) {
						for b.Loop() {
							checkScalePage(b, e, size.token, p.path)
						}
					})
				}
				b.Run(fmt.Sprintf("rows=%d/me_counts", size.n), func(b *testing.B) {
					for b.Loop() {
						checkMeCounts(b, e, size.token, size.n)
					}
				})
			}
		})
	}
}

// scalePages are the pages BenchmarkListingAtScale measures in an
// organization seeded with n rows (seedListing): first pages, a page in
// the middle of each list (read under a remembered mark, page_marks.go)
// and filtered ones.
func scalePages(n int) []struct{ name, path string } {
	mid := func(rows int) int { return rows/25/2 + 1 }
	return []struct{ name, path string }{
		{"charges_first", "/v1/charges"},
		{"charges_middle", fmt.Sprintf("/v1/charges?page=%d", mid(n*95/100))},
		{"charges_overdue", "/v1/charges?status=overdue"},
		{"charges_overdue_middle", fmt.Sprintf("/v1/charges?status=overdue&page=%d", mid(n*30/100*95/100))},
		{"charges_by_amount", "/v1/charges?sort_by=amount&sort_order=desc"},
		{"charges_of_debtor", "/v1/charges?debtor_id=d-" + fmt.Sprintf("%010d", 7)},
		{"debtors_first", "/v1/debtors"},
		{"debtors_middle", fmt.Sprintf("/v1/debtors?page=%d", mid(n*95/100))},
		{"debtors_archived_middle", fmt.Sprintf("/v1/debtors?status=archived&page=%d", mid(n*5/100))},
	}
}

// checkScalePage requests path with token and fails unless it answers a
// page with rows and a total.
func checkScalePage(tb testing.TB, e *producttest.Env, token, path string) {
	code, body := e.DoToken(token, "GET", path, nil)
	var doc struct {
		Data []json.RawMessage
		Meta struct{ Total int }
	}
	if err := json.Unmarshal([]byte(body), &doc); code != 200 || err != nil || len(doc.Data) == 0 || doc.Meta.Total == 0 {
		tb.Fatalf("%s: %d: %v %.300s", path, code, err, body)
	}
}

// checkMeCounts requests dunning_me's route with token and fails unless
// its counts are those of an organization seeded with n rows by
// seedListing (n a multiple of 20): n×19/20 active debtors; 90 % of the
// charges pending or overdue, less the one in twenty archived (all
// pending), 30 % overdue.
func checkMeCounts(tb testing.TB, e *producttest.Env, token string, n int) {
	code, body := e.DoToken(token, "GET", "/v1/me", nil)
	var doc struct {
		Data struct {
			Counts struct {
				Debtors        int `json:"debtors"`
				OpenCharges    int `json:"open_charges"`
				OverdueCharges int `json:"overdue_charges"`
			}
		}
	}
	if err := json.Unmarshal([]byte(body), &doc); code != 200 || err != nil {
		tb.Fatalf("/v1/me: %d: %v %.300s", code, err, body)
	}
	c := doc.Data.Counts
	if c.Debtors != n-n/20 || c.OpenCharges != n*9/10-n/20 || c.OverdueCharges != n*3/10 {
		tb.Fatalf("/v1/me counts %+v for %d rows", c, n)
	}
}

// startListing starts Dunning on db with an insert-only queue, for the
// listing tests that bulk-seed rows: nothing is worked, and a working
// queue's pollers on the same SQLite file held the writers queue past the
// busy timeout behind the bulk seed on a loaded CI host.
func startListing(t *testing.T, db *store.DB) *producttest.Env {
	t.Helper()
	q, err := jobs.New(context.Background(), db, jobs.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return producttest.Start(t, db, Spec(), producttest.Options{Queue: q})
}

// TestListingAtScaleSmall runs BenchmarkListingAtScale's pages once at its
// smallest size (1 000 rows) on both engines, in the ordinary test run, so
// the benchmark's pages cannot rot while it runs on demand only.
func TestListingAtScaleSmall(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startListing(t, db)
		seedListing(t, db, "s1000", e.Mine.ID, 1000)
		for _, p := range scalePages(1000) {
			checkScalePage(t, e, e.Token(e.Owner, "api"), p.path)
		}
		checkMeCounts(t, e, e.Token(e.Owner, "api"), 1000)
	})
}
