package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

type ScanBase struct {
	Note string `db:"note"`
}

type scanItem struct {
	ID        int64   `db:"id"`
	Name      string  `db:"name"`
	Size      *int64  `db:"size"`
	Kept      string  // no column: left as it was by Get
	*ScanBase         // embedded through a pointer: allocated when a column reaches it
	When      *string `db:"when_at"`
}

// TestScanPlans: reads into structs go through the kept plans and answer
// exactly what sqlx answered — slices of values and of pointers, Get into
// a struct that keeps the fields no column names, no row, a column the
// struct lacks, scalars (sqlx's own), a transaction, the
// same query after the table changed under it — on both engines.
func TestScanPlans(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		if _, err := db.Exec(ctx, `CREATE TABLE scan_items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, size INTEGER, note TEXT NOT NULL DEFAULT '', when_at TEXT)`); err != nil {
			t.Fatal(err)
		}
		for i, n := range []string{"a", "b", "c"} {
			var size any
			if i != 1 {
				size = i * 10
			}
			if _, err := db.Exec(ctx, `INSERT INTO scan_items (id, name, size, note) VALUES (?, ?, ?, ?)`, i+1, n, size, "note "+n); err != nil {
				t.Fatal(err)
			}
		}
		const all = `SELECT id, name, size, note, when_at FROM scan_items ORDER BY id`
		for range 3 { // the first run makes the plan, the next ones use it
			var vals []scanItem
			if err := db.Select(ctx, &vals, all); err != nil || len(vals) != 3 {
				t.Fatalf("values: %v %d", err, len(vals))
			}
			if vals[1].Name != "b" || vals[1].Size != nil || vals[2].Size == nil || *vals[2].Size != 20 || vals[0].ScanBase == nil || vals[0].Note != "note a" || vals[0].When != nil {
				t.Fatalf("values scanned wrong: %+v %+v", vals[1], vals[2])
			}
			var ptrs []*scanItem
			if err := db.Select(ctx, &ptrs, all); err != nil || len(ptrs) != 3 || ptrs[2].Name != "c" {
				t.Fatalf("pointers: %v %v", err, ptrs)
			}
			// Select appends, as sqlx does.
			more := []scanItem{{Name: "before"}}
			if err := db.Select(ctx, &more, all); err != nil || len(more) != 4 || more[0].Name != "before" {
				t.Fatalf("appending: %v %v", err, more)
			}
			got := scanItem{Kept: "mine"}
			if err := db.Get(ctx, &got, `SELECT id, name FROM scan_items WHERE id = ?`, 2); err != nil || got.Name != "b" || got.Kept != "mine" {
				t.Fatalf("get: %v %+v", err, got)
			}
			if err := db.Get(ctx, &got, `SELECT id, name FROM scan_items WHERE id = ?`, 99); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("no row: %v", err)
			}
			if err := db.Get(ctx, &got, `SELECT id, name, 1 AS stray FROM scan_items WHERE id = ?`, 1); err == nil {
				t.Fatal("a column the struct lacks was accepted")
			}
			var n int
			if err := db.Get(ctx, &n, `SELECT COUNT(*) FROM scan_items`); err != nil || n != 3 {
				t.Fatalf("scalar: %v %d", err, n)
			}
			var names []string
			if err := db.Select(ctx, &names, `SELECT name FROM scan_items ORDER BY id`); err != nil || len(names) != 3 || names[2] != "c" {
				t.Fatalf("scalars: %v %v", err, names)
			}
			if err := db.WithTx(ctx, func(tx *store.Tx) error {
				var in []scanItem
				if err := tx.Select(ctx, &in, all); err != nil || len(in) != 3 {
					t.Fatalf("in a transaction: %v %d", err, len(in))
				}
				var one scanItem
				return tx.Get(ctx, &one, `SELECT id, name FROM scan_items WHERE id = ?`, 3)
			}); err != nil {
				t.Fatal(err)
			}
		}
		// The same text over a table whose columns changed is planned again.
		// (PostgreSQL refuses the text itself once its table changed under
		// pgx's prepared statement: "cached plan must not change result
		// type"; only SQLite gets that far.)
		if db.Dialect() != store.SQLite {
			return
		}
		const star = `SELECT * FROM scan_items WHERE id = 1`
		var before scanItem
		if err := db.Get(ctx, &before, star); err != nil || before.Name != "a" {
			t.Fatalf("before the change: %v %+v", err, before)
		}
		if _, err := db.Exec(ctx, `ALTER TABLE scan_items DROP COLUMN note`); err != nil {
			t.Fatal(err)
		}
		var after scanItem
		if err := db.Get(ctx, &after, star); err != nil || after.Name != "a" || after.ScanBase != nil {
			t.Fatalf("after the change: %v %+v", err, after)
		}
	})
}
