package accounts

import (
	"context"
	"errors"
	"testing"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestHomeWorkspaceCache: the home workspace is the oldest live one, kept
// while the watch trusts it (a change no one notes is seen only after the
// TTL), and a deletion made through the Store is seen on the next read;
// with no cache (inside a transaction) every read goes to the database.
func TestHomeWorkspaceCache(t *testing.T) {
	// Not parallel, for TestWorkspaceCache's reason: another test's
	// identity change rightly drops the entry this test asserts is kept.
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		a, w, now := watchedStore(t, db)
		org, _ := a.CreateOrganization(ctx, "Home")
		second, err := a.CreateWorkspace(ctx, org.ID, NewWorkspace{ExternalID: "second", Label: "Second", EmailPrefix: "second"})
		if err != nil {
			t.Fatal(err)
		}
		settle(w)
		home, err := a.HomeWorkspace(ctx, org.ID)
		if err != nil || home.ID == second.ID || home.OrganizationID != org.ID {
			t.Fatalf("home: %+v %v (second %s)", home, err, second.ID)
		}
		if _, err := db.Exec(ctx, "UPDATE workspaces SET label = 'by hand' WHERE id = ?", home.ID); err != nil {
			t.Fatal(err)
		}
		if got, _ := a.HomeWorkspace(ctx, org.ID); got.Label != home.Label {
			t.Fatalf("the home workspace was read again: %q", got.Label)
		}
		if err := db.WithTx(ctx, func(tx *store.Tx) error {
			got, err := a.InTx(tx).HomeWorkspace(ctx, org.ID)
			if err == nil && got.Label != "by hand" {
				t.Errorf("a transaction's read used the cache: %q", got.Label)
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
		*now = now.Add(w.TTL())
		if got, _ := a.HomeWorkspace(ctx, org.ID); got.Label != "by hand" {
			t.Fatalf("an entry outlived the TTL: %q", got.Label)
		}
		// Deleting the home workspace makes the next oldest the home, at once.
		if err := a.DeleteWorkspace(ctx, org.ID, home.ID); err != nil {
			t.Fatal(err)
		}
		if got, err := a.HomeWorkspace(ctx, org.ID); err != nil || got.ID != second.ID {
			t.Fatalf("after deleting the home workspace: %+v %v", got, err)
		}
		// The picks of SelectWorkspace and the home are kept apart.
		if got, err := a.SelectWorkspace(ctx, org.ID, "", ""); err != nil || got.ID != second.ID {
			t.Fatalf("the pick: %+v %v", got, err)
		}
		if _, err := a.HomeWorkspace(ctx, "no-such-org"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("an unknown organization: %v", err)
		}
	})
}
