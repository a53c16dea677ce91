package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

func TestEmitFansOutToMatchingWebhooks(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := New(db, nil, testConfig())
		tn := newTenant(t, db)
		url := "https://a.example.com"
		exact, _ := hook(t, s, tn, url, "email.processed")
		all, _ := hook(t, s, tn, url, "*")
		prefix, _ := hook(t, s, tn, url, "email.*")
		other, _ := hook(t, s, tn, url, "agent_run.failed")
		scoped, _ := hook(t, s, tn, url, "*")
		otherScope, _ := hook(t, s, tn, url, "*")
		inactive, _ := hook(t, s, tn, url, "*")
		deleted, _ := hook(t, s, tn, url, "*")
		in, off := "inbox-1", "inbox-2"
		inact := StatusInactive
		for id, p := range map[string]WebhookPatch{scoped.ID: {ScopeID: &in}, otherScope.ID: {ScopeID: &off}, inactive.ID: {Status: &inact}} {
			if _, err := s.Update(ctx, tn.org, tn.ws, id, p); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Delete(ctx, tn.org, tn.ws, deleted.ID); err != nil {
			t.Fatal(err)
		}
		// Webhooks of another workspace, and of another product, match
		// everything but are not the event's.
		otherWS := tenant{org: tn.org, ws: addWorkspace(t, db, tn.org)}
		hook(t, s, otherWS, url, "*")
		dunning := New(db, nil, Config{Product: "dunning", AllowPrivateTargets: true})
		dunningHook, _ := hook(t, dunning, tn, url, "*")

		receivers := func(ev SystemEvent) []string {
			var ids []string
			if err := db.Select(ctx, &ids, `SELECT webhook_id FROM webhook_deliveries WHERE system_event_id = ? ORDER BY webhook_id`, ev.ID); err != nil {
				t.Fatal(err)
			}
			return ids
		}
		sorted := func(ids ...string) []string { slices.Sort(ids); return ids }

		if got, want := receivers(emit(t, s, tn, "email.processed", "inbox-1")), sorted(exact.ID, all.ID, prefix.ID, scoped.ID); !slices.Equal(got, want) {
			t.Errorf("email.processed in inbox-1 reached %v, want %v", got, want)
		}
		if got, want := receivers(emit(t, s, tn, "email.received", "")), sorted(all.ID, prefix.ID); !slices.Equal(got, want) {
			t.Errorf("email.received without scope reached %v, want %v", got, want)
		}
		if got, want := receivers(emit(t, s, tn, "agent_run.failed", "inbox-2")), sorted(all.ID, other.ID, otherScope.ID); !slices.Equal(got, want) {
			t.Errorf("agent_run.failed in inbox-2 reached %v, want %v", got, want)
		}
		if got := receivers(emit(t, dunning, tn, "dunning.charge.paid", "")); !slices.Equal(got, []string{dunningHook.ID}) {
			t.Errorf("dunning event reached %v", got)
		}
		// Each delivery is pending, at attempt 0, with its event's slug.
		d := onlyDelivery(t, s, tn, exact.ID)
		if d.Status != DeliveryPending || d.Attempt != 0 || d.EventSlug != "email.processed" || d.ReplayOf != nil {
			t.Errorf("delivery %+v", d)
		}
	})
}

func TestEmitStoresTheEnvelope(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := New(db, nil, testConfig())
		tn := newTenant(t, db)
		ev := emit(t, s, tn, "email.processed", "inbox-1")
		got, err := s.GetEvent(ctx, tn.org, tn.ws, ev.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Slug != "email.processed" || *got.ScopeID != "inbox-1" || *got.SubjectID != "subject-1" || !got.CreatedAt.Equal(ev.CreatedAt) {
			t.Errorf("event %+v", got)
		}
		var env struct {
			Event       map[string]string `json:"event"`
			CreatedAt   time.Time         `json:"created_at"`
			WorkspaceID string            `json:"workspace_id"`
			Data        map[string]int    `json:"data"`
		}
		if err := json.Unmarshal(got.Payload, &env); err != nil {
			t.Fatal(err)
		}
		if env.Event["id"] != ev.ID || env.Event["slug"] != "email.processed" || env.WorkspaceID != tn.ws || env.Data["n"] != 1 || !env.CreatedAt.Equal(ev.CreatedAt) {
			t.Errorf("payload %s", got.Payload)
		}

		// Bad events are refused.
		for _, bad := range []Event{{WorkspaceID: tn.ws, Slug: "x"}, {OrganizationID: tn.org, WorkspaceID: tn.ws, Slug: "Bad Slug"},
			{OrganizationID: tn.org, WorkspaceID: tn.ws, Slug: "x", Data: func() {}}} {
			if _, err := s.Emit(ctx, nil, bad); err == nil {
				t.Errorf("Emit(%+v) accepted", bad)
			}
		}
	})
}

func TestEmitJoinsTheCallersTransaction(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := New(db, nil, testConfig())
		tn := newTenant(t, db)
		w, _ := hook(t, s, tn, "https://a.example.com", "*")
		boom := errors.New("boom")
		err := db.WithTx(ctx, func(tx *store.Tx) error {
			if _, err := s.Emit(ctx, tx, Event{OrganizationID: tn.org, WorkspaceID: tn.ws, Slug: "email.processed"}); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatal(err)
		}
		if events, _ := s.ListEvents(ctx, tn.org, tn.ws, EventFilter{}); len(events) != 0 {
			t.Errorf("a rolled-back emit left %d events", len(events))
		}
		if ds, _ := s.ListDeliveries(ctx, tn.org, tn.ws, w.ID, "", 10); len(ds) != 0 {
			t.Errorf("a rolled-back emit left %d deliveries", len(ds))
		}
	})
}

func TestTestEventGoesOnlyToThatWebhook(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := New(db, nil, testConfig())
		tn := newTenant(t, db)
		target, _ := hook(t, s, tn, "https://a.example.com", "email.processed")
		everything, _ := hook(t, s, tn, "https://b.example.com", "*")
		ev, err := s.Test(ctx, tn.org, tn.ws, target.ExternalID, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ev.Slug != TestEventSlug || *ev.SubjectID != target.ID {
			t.Errorf("test event %+v", ev)
		}
		if d := onlyDelivery(t, s, tn, target.ID); d.SystemEventID != ev.ID {
			t.Errorf("delivery %+v", d)
		}
		if ds, _ := s.ListDeliveries(ctx, tn.org, tn.ws, everything.ID, "", 10); len(ds) != 0 {
			t.Errorf("the test event reached another webhook")
		}
		inactive := StatusInactive
		if _, err := s.Update(ctx, tn.org, tn.ws, target.ID, WebhookPatch{Status: &inactive}); err != nil {
			t.Fatal(err)
		}
		var ve *ValidationError
		if _, err := s.Test(ctx, tn.org, tn.ws, target.ID, nil); !errors.As(err, &ve) || ve.Field != "status" {
			t.Errorf("test of an inactive webhook: %v", err)
		}
	})
}
