package webhooks

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

func TestReplaySendsAgain(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := New(db, nil, testConfig())
		tn := newTenant(t, db)
		rcv := newReceiver(t, 404)
		w, _ := hook(t, s, tn, rcv.URL, "*")
		ev := emit(t, s, tn, "email.processed", "")
		orig := onlyDelivery(t, s, tn, w.ID)
		deliverAll(t, s, tn, orig.ID) // fails: 404

		replay, err := s.Replay(ctx, tn.org, tn.ws, w.ExternalID, orig.ID)
		if err != nil {
			t.Fatal(err)
		}
		if replay.ID == orig.ID || replay.ReplayOf == nil || *replay.ReplayOf != orig.ID || replay.SystemEventID != ev.ID ||
			replay.Status != DeliveryPending || replay.Attempt != 0 {
			t.Errorf("replay %+v", replay)
		}
		if got := deliverAll(t, s, tn, replay.ID); strings.Join(got, ",") != "success" {
			t.Fatalf("outcomes %v", got)
		}
		reqs := rcv.requests()
		if len(reqs) != 2 {
			t.Fatalf("%d requests", len(reqs))
		}
		first, second := decodeBody(t, reqs[0].Body), decodeBody(t, reqs[1].Body)
		if first.Event.ID != ev.ID || second.Event.ID != ev.ID || second.Delivery.ID != replay.ID || second.Delivery.Attempt != 1 {
			t.Errorf("bodies %+v / %+v", first, second)
		}
		ds, _ := s.ListDeliveries(ctx, tn.org, tn.ws, w.ID, "", 10)
		if len(ds) != 2 || ds[0].ID != replay.ID || ds[0].Status != DeliverySuccess || ds[1].Status != DeliveryFailed {
			t.Errorf("deliveries %+v", ds)
		}
		if _, err := s.Replay(ctx, tn.org, tn.ws, w.ID, store.NewID()); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("replay of an unknown delivery: %v", err)
		}
	})
}
