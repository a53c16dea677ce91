package webhooks

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestEmitAllAsManyEmits: several events of one scope emitted together are
// stored in order, each delivered to the webhooks that subscribe to its
// own slug (the look-up is shared, the matching is not); events of
// another scope in the same call get their own look-up; nothing is stored
// when one of them is invalid.
func TestEmitAllAsManyEmits(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := New(db, nil, testConfig())
		tn := newTenant(t, db)
		url := "https://a.example.com"
		processed, _ := hook(t, s, tn, url, "email.processed")
		runs, _ := hook(t, s, tn, url, "agent_run.*")
		all, _ := hook(t, s, tn, url, "*")
		scoped, _ := hook(t, s, tn, url, "*")
		in := "inbox-1"
		if _, err := s.Update(ctx, tn.org, tn.ws, scoped.ID, WebhookPatch{ScopeID: &in}); err != nil {
			t.Fatal(err)
		}
		data := json.RawMessage(`{"email": {"id": "e1", "subject": "<Boleto> & co"}}`)
		var ses []SystemEvent
		err := db.WithTx(ctx, func(tx *store.Tx) error {
			var err error
			ses, err = s.EmitAll(ctx, tx,
				Event{OrganizationID: tn.org, WorkspaceID: tn.ws, Slug: "agent_run.succeeded", ScopeID: "inbox-1", SubjectID: "e1", Data: data},
				Event{OrganizationID: tn.org, WorkspaceID: tn.ws, Slug: "email.processed", ScopeID: "inbox-1", SubjectID: "e1", Data: data},
				Event{OrganizationID: tn.org, WorkspaceID: tn.ws, Slug: "email.processed", ScopeID: "inbox-2", SubjectID: "e2"})
			return err
		})
		if err != nil || len(ses) != 3 {
			t.Fatalf("%v %d", err, len(ses))
		}
		receivers := func(ev SystemEvent) []string {
			var ids []string
			if err := db.Select(ctx, &ids, `SELECT webhook_id FROM webhook_deliveries WHERE system_event_id = ? ORDER BY webhook_id`, ev.ID); err != nil {
				t.Fatal(err)
			}
			return ids
		}
		sorted := func(ids ...string) []string { slices.Sort(ids); return ids }
		for i, want := range [][]string{sorted(runs.ID, all.ID, scoped.ID), sorted(processed.ID, all.ID, scoped.ID), sorted(processed.ID, all.ID)} {
			if got := receivers(ses[i]); !slices.Equal(got, want) {
				t.Errorf("event %d (%s) reached %v, want %v", i, ses[i].Slug, got, want)
			}
		}
		for i, se := range ses {
			got, err := s.GetEvent(ctx, tn.org, tn.ws, se.ID)
			if err != nil || string(got.Payload) != string(se.Payload) || got.Slug != se.Slug {
				t.Fatalf("event %d stored as %+v (%v)", i, got, err)
			}
		}
		var env struct {
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(ses[0].Payload, &env); err != nil || string(env.Data) != `{"email":{"id":"e1","subject":"\u003cBoleto\u003e \u0026 co"}}` {
			t.Fatalf("data stored as %s (%v)", env.Data, err)
		}

		// A workspace without webhooks stores the events and no delivery;
		// once it has one, the next events reach it.
		bare := tenant{org: tn.org, ws: addWorkspace(t, db, tn.org)}
		emitBare := func() []SystemEvent {
			t.Helper()
			got, err := s.EmitAll(ctx, nil,
				Event{OrganizationID: bare.org, WorkspaceID: bare.ws, Slug: "email.received", ScopeID: "inbox-9"},
				Event{OrganizationID: bare.org, WorkspaceID: bare.ws, Slug: "email.rejected", ScopeID: "inbox-9"})
			if err != nil || len(got) != 2 {
				t.Fatalf("%v %d", err, len(got))
			}
			for _, se := range got {
				if _, err := s.GetEvent(ctx, bare.org, bare.ws, se.ID); err != nil {
					t.Fatalf("event %s not stored: %v", se.Slug, err)
				}
			}
			return got
		}
		for _, se := range emitBare() {
			if got := receivers(se); len(got) != 0 {
				t.Fatalf("%s reached %v in a workspace without webhooks", se.Slug, got)
			}
		}
		late, _ := hook(t, s, bare, url, "email.rejected")
		if got := emitBare(); len(receivers(got[0])) != 0 || !slices.Equal(receivers(got[1]), []string{late.ID}) {
			t.Fatalf("after a webhook was added: %v %v", receivers(got[0]), receivers(got[1]))
		}

		var before int
		if err := db.Get(ctx, &before, `SELECT COUNT(*) FROM system_events`); err != nil {
			t.Fatal(err)
		}
		if _, err := s.EmitAll(ctx, nil,
			Event{OrganizationID: tn.org, WorkspaceID: tn.ws, Slug: "email.processed"},
			Event{OrganizationID: tn.org, WorkspaceID: tn.ws, Slug: "not a slug"}); err == nil {
			t.Fatal("an invalid event among others was accepted")
		}
		var after int
		if err := db.Get(ctx, &after, `SELECT COUNT(*) FROM system_events`); err != nil || after != before {
			t.Fatalf("%d events after a refused EmitAll, %d before (%v)", after, before, err)
		}
	})
}

// TestEnvelopeEncoding: the envelope built by hand is json.Marshal's, byte
// for byte, whatever the data (a map, raw JSON with blanks, HTML
// characters, Marshaled data, none).
func TestEnvelopeEncoding(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 1, 12, 30, 0, 123456000, time.UTC)
	for _, data := range []any{
		nil,
		map[string]any{"a": 1, "b": "<x> & \u2028", "c": []int{1, 2}},
		json.RawMessage(" {\"a\" : [1, 2],\n \"b\": \"<y>\"} "),
		struct {
			N int `json:"n"`
		}{7},
		mustMarshalData(t, map[string]any{"b": "<z> & \u2029", "a": []string{"x"}}),
	} {
		se := SystemEvent{ID: "0190-id", WorkspaceID: "ws\"1", Slug: "email.processed", CreatedAt: at}
		d, err := eventData(data)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodeEnvelope(se, d)
		if err != nil {
			t.Fatal(err)
		}
		wantData := json.RawMessage(`{}`)
		if m, ok := data.(Marshaled); ok {
			wantData = json.RawMessage(m)
		} else if data != nil {
			if wantData, err = json.Marshal(data); err != nil {
				t.Fatal(err)
			}
		}
		want, err := json.Marshal(envelope{Event: eventRef{ID: se.ID, Slug: se.Slug}, CreatedAt: se.CreatedAt, WorkspaceID: se.WorkspaceID, Data: wantData})
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("data %v:\n got %s\nwant %s", data, got, want)
		}
	}
	if _, err := eventData(json.RawMessage(`{"a":`)); err == nil {
		t.Error("invalid raw data was accepted")
	}
}

func mustMarshalData(t *testing.T, v any) Marshaled {
	t.Helper()
	m, err := MarshalData(v)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
