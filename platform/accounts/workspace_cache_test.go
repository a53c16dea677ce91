package accounts

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestWorkspaceCache: a pick is kept (a change no one notes is not seen
// until the TTL), every change made through the Store is seen on the next
// pick, a pick that failed is not kept, and a transaction reads its own
// writes.
func TestWorkspaceCache(t *testing.T) {
	// Not parallel: it asserts a pick stays cached, and another test's
	// identity change moves the process-wide generation (or sends a
	// PostgreSQL notice every schema's watch hears) and rightly drops
	// it (seen in CI with eight tests at once).
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		a, w, now := watchedStore(t, db)
		org, _ := a.CreateOrganization(ctx, "Cached")
		settle(w) // the organization's own notice, on PostgreSQL
		first, err := a.SelectWorkspace(ctx, org.ID, "", "")
		if err != nil {
			t.Fatal(err)
		}
		// A change made behind the Store's back (SQL by hand, no notice) is
		// not seen while the entry is fresh: the pick is cached…
		if _, err := db.Exec(ctx, "UPDATE workspaces SET label = 'by hand' WHERE id = ?", first.ID); err != nil {
			t.Fatal(err)
		}
		if got, _ := a.SelectWorkspace(ctx, org.ID, "", ""); got.Label != first.Label {
			t.Fatalf("the pick was read again: %q", got.Label)
		}
		// …until the TTL passes.
		*now = now.Add(w.TTL())
		if got, _ := a.SelectWorkspace(ctx, org.ID, "", ""); got.Label != "by hand" {
			t.Fatalf("an entry outlived the TTL: %q", got.Label)
		}
		// A second workspace makes the pick explicit from the next request on.
		second, err := a.CreateWorkspace(ctx, org.ID, NewWorkspace{ExternalID: "billing", Label: "Billing", EmailPrefix: "billing"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.SelectWorkspace(ctx, org.ID, "", ""); !errors.Is(err, ErrWorkspaceRequired) {
			t.Fatalf("a cached pick survived a new workspace: %v", err)
		}
		if got, err := a.SelectWorkspace(ctx, org.ID, "", "billing"); err != nil || got.ID != second.ID {
			t.Fatalf("by external id: %v %v", got, err)
		}
		// Deleting it: the header no longer finds it, and the pick is implicit again.
		if err := a.DeleteWorkspace(ctx, org.ID, second.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := a.SelectWorkspace(ctx, org.ID, "", "billing"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a deleted workspace is still picked: %v", err)
		}
		if got, err := a.SelectWorkspace(ctx, org.ID, "", ""); err != nil || got.ID != first.ID {
			t.Fatalf("after the deletion: %v %v", got, err)
		}
		// A change noted in its transaction (as the Inbox's workspace update
		// does) is seen once it commits.
		func() {
			defer Committed()
			if err := db.WithTx(ctx, func(tx *store.Tx) error {
				if err := NoteChange(ctx, tx); err != nil {
					return err
				}
				_, err := tx.Exec(ctx, "UPDATE workspaces SET external_id = 'renamed' WHERE id = ?", first.ID)
				return err
			}); err != nil {
				t.Fatal(err)
			}
		}()
		if got, err := a.SelectWorkspace(ctx, org.ID, "", "renamed"); err != nil || got.ID != first.ID {
			t.Fatalf("a renamed external id: %v %v", got, err)
		}
		// Inside a transaction the Store reads, it does not use the cache.
		if err := db.WithTx(ctx, func(tx *store.Tx) error {
			if _, err := tx.Exec(ctx, "UPDATE workspaces SET label = 'in tx' WHERE id = ?", first.ID); err != nil {
				return err
			}
			got, err := a.InTx(tx).SelectWorkspace(ctx, org.ID, "", "")
			if err == nil && got.Label != "in tx" {
				t.Errorf("a transaction did not read its own write: %q", got.Label)
			}
			return errors.New("roll back")
		}); err == nil {
			t.Fatal("expected the rollback")
		}
	})
}

// TestWorkspaceCacheOtherReplica: on PostgreSQL a workspace added through
// another replica (another handle with its own watch) is seen here within
// the notice's delivery, well inside a second.
func TestWorkspaceCacheOtherReplica(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.Postgres)
	ctx := context.Background()
	other, err := store.Open(ctx, db.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	w := NewChangeWatch(ctx, db, 0)
	t.Cleanup(w.Close)
	waitListening(t, w)
	here := New(db, Options{Watch: w})
	frozen := time.Now()
	here.workspaces.Now = func() time.Time { return frozen } // the TTL never passes
	there := New(other, Options{})
	org, _ := here.CreateOrganization(ctx, "Replicas")
	settle(w)
	if _, err := here.SelectWorkspace(ctx, org.ID, "", ""); err != nil {
		t.Fatal(err)
	}
	// Another replica's change would not move this process's generation;
	// here both handles share one process, so the generation is put back,
	// leaving the notice alone to announce the change.
	g := generation.Load()
	if _, err := there.CreateWorkspace(ctx, org.ID, NewWorkspace{Label: "Elsewhere", EmailPrefix: "elsewhere"}); err != nil {
		t.Fatal(err)
	}
	generation.Store(g)
	start := time.Now()
	for {
		if _, err := here.SelectWorkspace(ctx, org.ID, "", ""); errors.Is(err, ErrWorkspaceRequired) {
			break
		}
		if time.Since(start) > time.Second {
			t.Fatal("the other replica's new workspace was not seen within a second")
		}
		time.Sleep(time.Millisecond)
	}
	t.Logf("seen after %v", time.Since(start))
}

// settle waits until no notice has arrived for 100 ms, so one sent by a
// change just made cannot make the next read stale behind the test's back.
func settle(w *ChangeWatch) {
	last, since := w.remote.Load(), time.Now()
	for time.Since(since) < 100*time.Millisecond {
		time.Sleep(5 * time.Millisecond)
		if r := w.remote.Load(); r != last {
			last, since = r, time.Now()
		}
	}
}

func waitListening(t *testing.T, w *ChangeWatch) {
	t.Helper()
	start := time.Now()
	for !w.Listening() {
		if time.Since(start) > 5*time.Second {
			t.Fatal("the listener did not connect")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// watchedStore is a Store whose caches follow a change watch already
// listening, and the instant its workspace cache reads as now, which the
// test moves.
func watchedStore(t *testing.T, db *store.DB) (*Store, *ChangeWatch, *time.Time) {
	t.Helper()
	w := NewChangeWatch(context.Background(), db, 0)
	t.Cleanup(w.Close)
	waitListening(t, w)
	a := New(db, Options{Watch: w})
	now := time.Now()
	a.workspaces.Now = func() time.Time { return now }
	return a, w, &now
}
