package store_test

import (
	"context"
	"sync"
	"testing"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestPreparedReadsFollowTheData: a read kept prepared (SQLite) answers
// what the table holds now, from many goroutines at once, after a change
// of the table's schema and inside a transaction, on both engines.
func TestPreparedReadsFollowTheData(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		if _, err := db.Exec(ctx, `CREATE TABLE prep_items (id INTEGER PRIMARY KEY, name TEXT NOT NULL)`); err != nil {
			t.Fatal(err)
		}
		const one = `SELECT name FROM prep_items WHERE id = ?`
		var name string
		if err := db.Get(ctx, &name, one, 1); err != store.ErrNotFound {
			t.Fatalf("empty table: %v", err)
		}
		for i, n := range []string{"a", "b", "c"} {
			if _, err := db.Exec(ctx, `INSERT INTO prep_items (id, name) VALUES (?, ?)`, i+1, n); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				for range 20 {
					var got string
					if err := db.Get(ctx, &got, one, g%3+1); err != nil || got != string(rune('a'+g%3)) {
						t.Errorf("id %d: %q %v", g%3+1, got, err)
						return
					}
				}
			})
		}
		wg.Wait()
		if _, err := db.Exec(ctx, `UPDATE prep_items SET name = 'B' WHERE id = 2`); err != nil {
			t.Fatal(err)
		}
		if err := db.Get(ctx, &name, one, 2); err != nil || name != "B" {
			t.Fatalf("after update: %q %v", name, err)
		}
		if _, err := db.Exec(ctx, `ALTER TABLE prep_items ADD COLUMN note TEXT`); err != nil {
			t.Fatal(err)
		}
		var rows []struct {
			ID   int     `db:"id"`
			Name string  `db:"name"`
			Note *string `db:"note"`
		}
		if err := db.Select(ctx, &rows, `SELECT * FROM prep_items ORDER BY id`); err != nil || len(rows) != 3 {
			t.Fatalf("after alter: %v %v", rows, err)
		}
		// A text of several statements runs every one of them.
		if _, err := db.Exec(ctx, `INSERT INTO prep_items (id, name) VALUES (10, 'x'); INSERT INTO prep_items (id, name) VALUES (11, 'y')`); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := db.Get(ctx, &n, `SELECT COUNT(*) FROM prep_items WHERE id IN (10, 11)`); err != nil || n != 2 {
			t.Fatalf("two statements in one text: %d rows, %v", n, err)
		}
		err := db.WithTx(ctx, func(tx *store.Tx) error {
			if _, err := tx.Exec(ctx, `UPDATE prep_items SET name = 'C' WHERE id = 3`); err != nil {
				return err
			}
			return tx.Get(ctx, &name, one, 3)
		})
		if err != nil || name != "C" {
			t.Fatalf("in a transaction: %q %v", name, err)
		}
	})
}
