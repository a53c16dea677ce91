package accounts

import (
	"context"
	"errors"
	"testing"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestSelectWorkspace runs without and with the cache of picks: the
// answers are the same, and a workspace added after a pick changes the next
// one at once.
func TestSelectWorkspace(t *testing.T) {
	t.Parallel()
	t.Run("uncached", func(t *testing.T) { testSelectWorkspace(t, false) })
	t.Run("cached", func(t *testing.T) { testSelectWorkspace(t, true) })
}

func testSelectWorkspace(t *testing.T, cached bool) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		var opts Options
		if cached {
			opts.Watch = NewChangeWatch(ctx, db, 0)
			t.Cleanup(opts.Watch.Close)
			waitListening(t, opts.Watch)
		}
		a := New(db, opts)
		one, _ := a.CreateOrganization(ctx, "One")
		two, _ := a.CreateOrganization(ctx, "Two")
		only, err := a.SelectWorkspace(ctx, one.ID, "", "")
		if err != nil {
			t.Fatalf("a single workspace needs no header: %v", err)
		}
		second, err := a.CreateWorkspace(ctx, one.ID, NewWorkspace{ExternalID: "billing", Label: "Billing", EmailPrefix: "billing"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.SelectWorkspace(ctx, one.ID, "", ""); !errors.Is(err, ErrWorkspaceRequired) {
			t.Fatalf("two workspaces, no header: %v", err)
		}
		if w, err := a.SelectWorkspace(ctx, one.ID, "", "billing"); err != nil || w.ID != second.ID {
			t.Fatalf("by external id: %v %v", w, err)
		}
		if w, err := a.SelectWorkspace(ctx, one.ID, "", second.ID); err != nil || w.ID != second.ID {
			t.Fatalf("by id: %v %v", w, err)
		}
		if w, err := a.SelectWorkspace(ctx, one.ID, only.ID, ""); err != nil || w.ID != only.ID {
			t.Fatalf("bound token: %v %v", w, err)
		}
		if _, err := a.SelectWorkspace(ctx, one.ID, only.ID, "billing"); !errors.Is(err, ErrWorkspaceMismatch) {
			t.Fatalf("bound token, other header: %v", err)
		}
		other, _ := a.ListWorkspaces(ctx, two.ID)
		if _, err := a.SelectWorkspace(ctx, one.ID, "", other[0].ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another organization's workspace must be not found: %v", err)
		}
		if _, err := a.SelectWorkspace(ctx, one.ID, other[0].ID, ""); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a token bound to another organization's workspace: %v", err)
		}
	})
}
