package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestAmbientTransaction: every use of the DB with the ambient context
// goes through one transaction, which commits or rolls back as a whole; a
// failed unit inside it (WithTx) and a failed statement (a unique
// violation, which on PostgreSQL would abort the transaction) roll back
// alone; after finish, the context reaches the pool again.
func TestAmbientTransaction(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		count := func(q store.Querier, c context.Context) int {
			var n int
			if err := q.Get(c, &n, "SELECT COUNT(*) FROM organizations"); err != nil {
				t.Fatal(err)
			}
			return n
		}
		add := func(c context.Context, id string) error {
			_, err := db.Exec(c, "INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)", id, "n", time.Now().UTC())
			return err
		}
		run, finish, err := db.BeginAmbient(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := db.BeginAmbient(run); err == nil {
			t.Fatal("a second ambient transaction in the same context")
		}
		if err := add(run, "a"); err != nil {
			t.Fatal(err)
		}
		if count(db, run) != 1 {
			t.Fatal("the ambient transaction does not see its own write")
		}
		if err := add(run, "a"); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("duplicate: %v", err)
		}
		failed := db.WithTx(run, func(tx *store.Tx) error {
			if _, err := tx.Exec(run, "INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)", "b", "n", time.Now().UTC()); err != nil {
				return err
			}
			return errors.New("undo")
		})
		if failed == nil || count(db, run) != 1 {
			t.Fatalf("a failed unit: %v, %d rows", failed, count(db, run))
		}
		if err := finish(false); err != nil {
			t.Fatal(err)
		}
		if count(db, ctx) != 0 || count(db, run) != 0 {
			t.Fatal("a rolled-back ambient transaction left rows")
		}
		if err := finish(true); err == nil {
			t.Fatal("finished twice")
		}
		// After finish the context works on the pool.
		if err := add(run, "late"); err != nil || count(db, ctx) != 1 {
			t.Fatalf("after finish: %v", err)
		}
		run, finish, _ = db.BeginAmbient(ctx)
		if err := add(run, "c"); err != nil {
			t.Fatal(err)
		}
		if err := db.WithTx(run, func(tx *store.Tx) error {
			_, err := tx.Exec(run, "INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)", "d", "n", time.Now().UTC())
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if err := finish(true); err != nil {
			t.Fatal(err)
		}
		if count(db, ctx) != 3 {
			t.Fatalf("committed: %d rows, want 3", count(db, ctx))
		}
	})
}
