package store_test

import (
	"context"
	"testing"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestTextQueriesKeptPreparedNest: a query given as text (as the job
// queue's driver gives its queries), run again while an earlier result of
// the same text is still being read on the same connection, answers both
// correctly; the same text keeps answering what the table holds after
// writes and a change of schema; a script of several statements still runs
// whole. SQLite only: PostgreSQL's driver reads one result at a time on a
// connection, and keeps its statements itself.
func TestTextQueriesKeptPreparedNest(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		if db.Dialect() != store.SQLite {
			t.Skip("nested results on one connection are SQLite's")
		}
		ctx := context.Background()
		sdb := db.SQL()
		if _, err := sdb.ExecContext(ctx, `CREATE TABLE nest_items (id INTEGER PRIMARY KEY, name TEXT NOT NULL); INSERT INTO nest_items (id, name) VALUES (1, 'a'), (2, 'b'), (3, 'c')`); err != nil {
			t.Fatal(err)
		}
		tx, err := sdb.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		const query = `SELECT id, name FROM nest_items WHERE id >= ? ORDER BY id`
		outer, err := tx.QueryContext(ctx, query, 1)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for outer.Next() {
			var id int
			var name string
			if err := outer.Scan(&id, &name); err != nil {
				t.Fatal(err)
			}
			// The same text again, while outer is open.
			var inner []string
			rows, err := tx.QueryContext(ctx, query, id)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var i int
				var n string
				if err := rows.Scan(&i, &n); err != nil {
					t.Fatal(err)
				}
				inner = append(inner, n)
			}
			if err := rows.Close(); err != nil {
				t.Fatal(err)
			}
			if len(inner) != 4-id {
				t.Errorf("from %d: %v", id, inner)
			}
			got = append(got, name)
		}
		if err := outer.Err(); err != nil {
			t.Fatal(err)
		}
		outer.Close()
		if len(got) != 3 || got[0] != "a" || got[2] != "c" {
			t.Fatalf("outer read %v", got)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		count := func() (n int, name string) {
			t.Helper()
			for range 3 { // the same text on whichever connection
				if err := sdb.QueryRowContext(ctx, `SELECT COUNT(*), MAX(name) FROM nest_items`).Scan(&n, &name); err != nil {
					t.Fatal(err)
				}
			}
			return n, name
		}
		if n, _ := count(); n != 3 {
			t.Fatalf("count %d", n)
		}
		if _, err := sdb.ExecContext(ctx, `ALTER TABLE nest_items ADD COLUMN extra TEXT`); err != nil {
			t.Fatal(err)
		}
		if _, err := sdb.ExecContext(ctx, `INSERT INTO nest_items (id, name) VALUES (4, 'd')`); err != nil {
			t.Fatal(err)
		}
		if n, name := count(); n != 4 || name != "d" {
			t.Fatalf("after the change: %d %q", n, name)
		}
	})
}
