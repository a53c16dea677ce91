package accounts

import (
	"context"
	"errors"
	"testing"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestHomeWithOrganization: the one read an event makes answers the
// workspace HomeWorkspace answers (the oldest live one, the next oldest
// once it is deleted) and its organization's id, name and creation,
// inside a transaction as outside; an organization without a live
// workspace, or none at all, is store.ErrNotFound. On both engines.
func TestHomeWithOrganization(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, nil, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		a := New(db, Options{})
		org, err := a.CreateOrganization(ctx, "Cobranças Ltda")
		if err != nil {
			t.Fatal(err)
		}
		other, _ := a.CreateOrganization(ctx, "Outra")
		second, err := a.CreateWorkspace(ctx, org.ID, NewWorkspace{ExternalID: "second", Label: "Second", EmailPrefix: "second"})
		if err != nil {
			t.Fatal(err)
		}
		want := func(what string, q *Store) {
			t.Helper()
			home, err := q.HomeWorkspace(ctx, org.ID)
			if err != nil {
				t.Fatal(err)
			}
			w, o, err := q.HomeWithOrganization(ctx, org.ID)
			if err != nil || w != home || o.ID != org.ID || o.Name != "Cobranças Ltda" || !o.CreatedAt.Equal(org.CreatedAt) {
				t.Fatalf("%s: %+v %+v %v; want %+v in %+v", what, w, o, err, home, org)
			}
		}
		want("outside a transaction", a)
		if err := db.WithTx(ctx, func(tx *store.Tx) error { want("in a transaction", a.InTx(tx)); return nil }); err != nil {
			t.Fatal(err)
		}
		home, _, _ := a.HomeWithOrganization(ctx, org.ID)
		if home.ID == second.ID {
			t.Fatalf("the newer workspace was taken for the home: %+v", home)
		}
		if err := a.DeleteWorkspace(ctx, org.ID, home.ID); err != nil {
			t.Fatal(err)
		}
		if w, _, err := a.HomeWithOrganization(ctx, org.ID); err != nil || w.ID != second.ID {
			t.Fatalf("after deleting the home workspace: %+v %v", w, err)
		}
		// The API keeps one workspace; an organization without one is
		// made by hand.
		if _, err := db.Exec(ctx, "UPDATE workspaces SET deleted_at = ? WHERE id = ?", store.Now(), second.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := a.HomeWithOrganization(ctx, org.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("no live workspace: %v", err)
		}
		if _, _, err := a.HomeWithOrganization(ctx, "00000000-0000-0000-0000-000000000000"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("no organization: %v", err)
		}
		if w, o, err := a.HomeWithOrganization(ctx, other.ID); err != nil || w.OrganizationID != other.ID || o.Name != "Outra" {
			t.Fatalf("another organization: %+v %+v %v", w, o, err)
		}
	})
}
