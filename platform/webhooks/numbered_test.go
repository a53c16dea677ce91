package webhooks

import (
	"context"
	"testing"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// Numbered pages list what List and ListDeliveries list, in their order,
// with the total, filters applied to both; another product's rows are not
// counted.
func TestNumberedPages(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := New(db, nil, testConfig())
		other := New(db, nil, Config{Product: "dunning", AllowPrivateTargets: true})
		tn := newTenant(t, db)
		var ids []string
		for i := 0; i < 5; i++ {
			w, _ := hook(t, s, tn, "http://127.0.0.1:9/h", "*")
			ids = append(ids, w.ID)
		}
		if _, _, err := other.Create(ctx, NewWebhook{OrganizationID: tn.org, WorkspaceID: tn.ws, Label: "x", URL: "http://127.0.0.1:9/h", SubscribedEvents: []string{"*"}}); err != nil {
			t.Fatal(err)
		}
		inactive := "inactive"
		if _, err := s.Update(ctx, tn.org, tn.ws, ids[4], WebhookPatch{Status: &inactive}); err != nil {
			t.Fatal(err)
		}
		rows, total, err := s.ListNumbered(ctx, tn.org, tn.ws, ListFilter{Limit: 2}, 2)
		if err != nil || total != 5 || len(rows) != 2 || rows[0].ID != ids[2] || rows[1].ID != ids[3] {
			t.Fatalf("page 2: %v %d %+v", err, total, rows)
		}
		if rows, total, _ = s.ListNumbered(ctx, tn.org, tn.ws, ListFilter{Limit: 2}, 10); total != 5 || len(rows) != 0 {
			t.Fatalf("past the end: %d %+v", total, rows)
		}
		if rows, total, _ = s.ListNumbered(ctx, tn.org, tn.ws, ListFilter{Status: "inactive"}, 0); total != 1 || len(rows) != 1 || rows[0].ID != ids[4] {
			t.Fatalf("status: %d %+v", total, rows)
		}
		if _, _, err := s.ListNumbered(ctx, tn.org, tn.ws, ListFilter{Status: "paused"}, 0); err == nil {
			t.Fatal("a bad status was accepted")
		}

		for i := 0; i < 3; i++ {
			if _, err := s.Test(ctx, tn.org, tn.ws, ids[0], nil); err != nil {
				t.Fatal(err)
			}
		}
		all, err := s.ListDeliveries(ctx, tn.org, tn.ws, ids[0], "", 10)
		if err != nil || len(all) != 3 {
			t.Fatalf("deliveries: %v %d", err, len(all))
		}
		ds, total, err := s.ListDeliveriesNumbered(ctx, tn.org, tn.ws, ids[0], "", 1, 1)
		if err != nil || total != 3 || len(ds) != 1 || ds[0].ID != all[1].ID {
			t.Fatalf("deliveries page 2: %v %d %+v", err, total, ds)
		}
		if ds, total, _ = s.ListDeliveriesNumbered(ctx, tn.org, tn.ws, ids[0], "success", 0, 10); total != 0 || len(ds) != 0 {
			t.Fatalf("no delivery succeeded without a queue: %d %+v", total, ds)
		}
		if ds, total, _ = s.ListDeliveriesNumbered(ctx, tn.org, tn.ws, ids[0], "pending", 0, 10); total != 3 || len(ds) != 3 {
			t.Fatalf("pending: %d %+v", total, ds)
		}
		if _, _, err := s.ListDeliveriesNumbered(ctx, tn.org, tn.ws, store.NewID(), "", 0, 10); err != store.ErrNotFound {
			t.Fatalf("unknown webhook: %v", err)
		}
	})
}
