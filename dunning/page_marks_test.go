package dunning

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestNumberedPagesSeek walks every page of the charges' and debtors'
// listings served by remembered marks (docs/decisions.md, "Numbered pages
// by remembered marks"), on both engines, with writes between the pages
// that move rows across the marks (a new charge, a due date moved to the
// front, a charge archived, a debtor renamed), and holds each page to
// what a plain OFFSET query answers at that moment; another organization's
// rows, seeded alongside, never appear. It also proves the marks were read:
// after the last walk the stored marks are of the current version.
func TestNumberedPagesSeek(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startListing(t, db)
		const n = 1300
		seedListing(t, db, "mine", e.Mine.ID, n)
		seedListing(t, db, "theirs", e.Theirs.ID, n)
		ctx := context.Background()
		tok := e.Token(e.Owner, "api")
		page := func(path string, p int) []string {
			t.Helper()
			code, body := e.DoToken(tok, "GET", fmt.Sprintf("%s&per_page=100&page=%d", path, p), nil)
			var doc struct {
				Data []struct{ ID string }
				Meta struct{ Total int }
			}
			if err := json.Unmarshal([]byte(body), &doc); code != 200 || err != nil {
				t.Fatalf("%s page %d: %d %v %.300s", path, p, code, err, body)
			}
			ids := make([]string, 0, len(doc.Data))
			for _, d := range doc.Data {
				ids = append(ids, d.ID)
			}
			return ids
		}
		plain := func(query string, p int) []string {
			t.Helper()
			var ids []string
			if err := db.Select(ctx, &ids, query+` LIMIT 100 OFFSET ?`, e.Mine.ID, (p-1)*100); err != nil {
				t.Fatal(err)
			}
			return ids
		}
		write := func(i int) {
			t.Helper()
			switch i % 4 {
			case 0: // a new charge, first in the due-date order
				code, body := e.DoToken(tok, "POST", "/v1/charges", map[string]any{"debtor_id": "d-0000000007", "external_id": fmt.Sprintf("new-%d", i),
					"amount": 10, "due_date": "2025-06-01"})
				if code != 201 {
					t.Fatalf("create: %d %.300s", code, body)
				}
			case 1: // a charge from the end moved to the front, by the ledger's write path and its sync
				moveCharge(t, db, fmt.Sprintf("mine-c-%010d", n-i), "2025-01-01")
			case 2:
				if code, body := e.DoToken(tok, "POST", fmt.Sprintf("/v1/charges/mine-c-%010d/archive", (20*i+9)%n), nil); code != 200 {
					t.Fatalf("archive: %d %.300s", code, body)
				}
			case 3:
				if code, body := e.DoToken(tok, "PATCH", fmt.Sprintf("/v1/debtors/d-%010d", 400+i), map[string]any{"name": "Aaron"}); code != 200 {
					t.Fatalf("rename: %d %.300s", code, body)
				}
			}
		}
		lists := []struct{ path, query string }{
			{"/v1/charges?sort_by=due_date", `SELECT id FROM dunning_charges WHERE organization_id = ? AND archived_at IS NULL ORDER BY due_date, id`},
			{"/v1/charges?status=overdue,pending&sort_by=amount&sort_order=desc", `SELECT id FROM dunning_charges WHERE organization_id = ? AND archived_at IS NULL
				AND status IN ('pending', 'overdue') ORDER BY amount_cents DESC, id DESC`},
			{"/v1/debtors?status=active", `SELECT id FROM dunning_debtors WHERE organization_id = ? AND status = 'active' ORDER BY name, id`},
		}
		writes := 0
		for _, l := range lists {
			// Twice: the first walk stores the marks, the second reads them;
			// a write before every third page makes some of them old.
			for walk := range 2 {
				for p := 1; p <= n/100+1; p++ {
					if p%3 == 0 {
						writes++
						write(writes)
					}
					got, want := page(l.path, p), plain(l.query, p)
					if !slices.Equal(got, want) {
						t.Fatalf("%s walk %d page %d:\n got %v\nwant %v", l.path, walk, p, got, want)
					}
				}
			}
			// Without writes: the page after the last walk is read under a
			// mark of the version now.
			if got, want := page(l.path, 12), plain(l.query, 12); !slices.Equal(got, want) {
				t.Fatalf("%s page 12: got %v want %v", l.path, got, want)
			}
		}
		// A lone write that keeps the row's status (its counter key) still
		// makes the marks old: a charge from the last page moved to the
		// front, a debtor from the last page renamed to the front.
		last := func(query string) string { ids := plain(query, n/100); return ids[len(ids)-1] }
		for _, l := range []struct {
			list  int
			write func(id string)
		}{
			{0, func(id string) { moveCharge(t, db, id, "2024-01-01") }},
			{2, func(id string) {
				if code, body := e.DoToken(tok, "PATCH", "/v1/debtors/"+id, map[string]any{"name": "AAA"}); code != 200 {
					t.Fatalf("rename: %d %.300s", code, body)
				}
			}},
		} {
			path, query := lists[l.list].path, lists[l.list].query
			page(path, 12)
			l.write(last(query))
			if got, want := page(path, 12), plain(query, 12); !slices.Equal(got, want) {
				t.Fatalf("%s page 12 after a lone write: got %v want %v", path, got, want)
			}
		}
		var current, foreign int
		if err := db.Get(ctx, &current, `SELECT COUNT(*) FROM dunning_page_marks m WHERE m.organization_id = ? AND m.list LIKE 'debtors|%'
			AND m.version = (SELECT SUM(v) FROM dunning_debtor_counts WHERE organization_id = m.organization_id)`, e.Mine.ID); err != nil {
			t.Fatal(err)
		}
		if current < 2 {
			t.Errorf("%d debtors' marks of the current version, want the two under page 12", current)
		}
		if err := db.Get(ctx, &foreign, `SELECT COUNT(*) FROM dunning_page_marks m WHERE m.row_id LIKE 'theirs-%' OR m.organization_id <> ?`, e.Mine.ID); err != nil {
			t.Fatal(err)
		}
		if foreign != 0 {
			t.Errorf("%d marks of or on another organization", foreign)
		}
	})
}

// moveCharge gives charge id a new due date by SQL and counts the write
// as the ledger's write path does (SyncChargeCount in its transaction).
func moveCharge(t *testing.T, db *store.DB, id, due string) {
	t.Helper()
	ctx := context.Background()
	err := db.WithTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE dunning_charges SET due_date = ? WHERE id = ?`, due, id); err != nil {
			return err
		}
		return ledger.SyncChargeCount(ctx, tx, id)
	})
	if err != nil {
		t.Fatal(err)
	}
}
