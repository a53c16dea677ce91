package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

func TestCreateGetAndSecrecy(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := New(db, nil, testConfig())
		tn := newTenant(t, db)
		w, secret, err := s.Create(ctx, NewWebhook{OrganizationID: tn.org, WorkspaceID: tn.ws, ExternalID: "crm", ScopeID: "inbox-1",
			Label: " CRM ", URL: "https://crm.example.com/hook", Auth: AuthBearer, Credentials: Credentials{Token: "tok-123"},
			SubscribedEvents: []string{"email.*", "email.*"}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(secret, "whsec_") {
			t.Errorf("secret %q", secret)
		}
		if w.Status != StatusActive || w.Label != "CRM" || w.ExternalID != "crm" || *w.ScopeID != "inbox-1" || len(w.SubscribedEvents) != 1 {
			t.Errorf("created %+v", w)
		}
		for _, ref := range []string{w.ID, "crm"} {
			got, err := s.Get(ctx, tn.org, tn.ws, ref)
			if err != nil || got.ID != w.ID || got.Auth != AuthBearer || got.SubscribedEvents[0] != "email.*" {
				t.Errorf("Get(%s) = %+v, %v", ref, got, err)
			}
		}
		b, _ := json.Marshal(w)
		if strings.Contains(string(b), secret) || strings.Contains(string(b), "tok-123") || strings.Contains(string(b), "signing_secret") {
			t.Errorf("webhook JSON leaks a secret: %s", b)
		}
		// The external id is unique among live webhooks of the workspace,
		// and free again once the holder is deleted.
		dup := NewWebhook{OrganizationID: tn.org, WorkspaceID: tn.ws, ExternalID: "crm", URL: "https://x.example.com", SubscribedEvents: []string{"*"}}
		if _, _, err := s.Create(ctx, dup); !errors.Is(err, store.ErrConflict) {
			t.Errorf("duplicate external id: %v, want ErrConflict", err)
		}
		if err := s.Delete(ctx, tn.org, tn.ws, "crm"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Get(ctx, tn.org, tn.ws, w.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Get after delete: %v", err)
		}
		if err := s.Delete(ctx, tn.org, tn.ws, w.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("second delete: %v", err)
		}
		if _, _, err := s.Create(ctx, dup); err != nil {
			t.Errorf("external id of a deleted webhook: %v", err)
		}
		// Another product's service does not see the inbox's webhooks.
		other := New(db, nil, Config{Product: "dunning"})
		if _, err := other.Get(ctx, tn.org, tn.ws, "crm"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("other product: %v", err)
		}
	})
}

func TestCreateValidation(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		cfg := testConfig()
		cfg.AllowPrivateTargets = false
		s := New(db, nil, cfg)
		tn := newTenant(t, db)
		base := NewWebhook{OrganizationID: tn.org, WorkspaceID: tn.ws, URL: "https://ok.example.com", SubscribedEvents: []string{"*"}}
		cases := map[string]func(*NewWebhook){
			"url":               func(n *NewWebhook) { n.URL = "http://ok.example.com" },
			"subscribed_events": func(n *NewWebhook) { n.SubscribedEvents = nil },
			"auth":              func(n *NewWebhook) { n.Auth = "digest" },
			"credentials":       func(n *NewWebhook) { n.Auth = AuthBasic },
			"status":            func(n *NewWebhook) { n.Status = "paused" },
			"label":             func(n *NewWebhook) { n.Label = strings.Repeat("a", 201) },
		}
		for field, mutate := range cases {
			in := base
			mutate(&in)
			_, _, err := s.Create(ctx, in)
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Field != field {
				t.Errorf("%s: %v, want a ValidationError on %s", field, err, field)
			}
		}
		for _, u := range []string{"https://127.0.0.1:8443/h", "https://localhost/h", "https://[fd00::1]/h"} {
			in := base
			in.URL = u
			if _, _, err := s.Create(ctx, in); err == nil {
				t.Errorf("private target %s accepted", u)
			}
		}
		// A workspace of another organization is not found.
		other := newTenant(t, db)
		in := base
		in.WorkspaceID = other.ws
		if _, _, err := s.Create(ctx, in); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("foreign workspace: %v", err)
		}
	})
}

func TestUpdate(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := New(db, nil, testConfig())
		tn := newTenant(t, db)
		w, _ := hook(t, s, tn, "https://a.example.com", "*")
		ptr := func(s string) *string { return &s }

		got, err := s.Update(ctx, tn.org, tn.ws, w.ID, WebhookPatch{Label: ptr("New"), Status: ptr(StatusInactive), ScopeID: ptr("inbox-9"),
			SubscribedEvents: []string{"email.received"}})
		if err != nil {
			t.Fatal(err)
		}
		if got.Label != "New" || got.Status != StatusInactive || got.ScopeID == nil || *got.ScopeID != "inbox-9" ||
			got.SubscribedEvents[0] != "email.received" || got.URL != w.URL || got.UpdatedAt.Before(w.UpdatedAt) {
			t.Errorf("updated %+v", got)
		}
		again, _ := s.Get(ctx, tn.org, tn.ws, w.ID)
		if again.Label != "New" || *again.ScopeID != "inbox-9" {
			t.Errorf("stored %+v", again)
		}
		if got, _ := s.Update(ctx, tn.org, tn.ws, w.ID, WebhookPatch{ScopeID: ptr("")}); got.ScopeID != nil {
			t.Errorf("scope not cleared: %v", *got.ScopeID)
		}

		// Changing auth needs its credentials; credentials alone are checked
		// against the current auth.
		var ve *ValidationError
		if _, err := s.Update(ctx, tn.org, tn.ws, w.ID, WebhookPatch{Auth: ptr(AuthBasic)}); !errors.As(err, &ve) || ve.Field != "credentials" {
			t.Errorf("auth without credentials: %v", err)
		}
		if _, err := s.Update(ctx, tn.org, tn.ws, w.ID, WebhookPatch{Auth: ptr("digest")}); !errors.As(err, &ve) || ve.Field != "auth" {
			t.Errorf("unknown auth: %v", err)
		}
		if _, err := s.Update(ctx, tn.org, tn.ws, w.ID, WebhookPatch{Auth: ptr(AuthBasic), Credentials: &Credentials{Username: "u", Password: "p"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Update(ctx, tn.org, tn.ws, w.ID, WebhookPatch{Credentials: &Credentials{Token: "t"}}); !errors.As(err, &ve) || ve.Field != "credentials" {
			t.Errorf("bearer credentials for basic auth: %v", err)
		}
		// A patch of other fields keeps the credentials.
		if _, err := s.Update(ctx, tn.org, tn.ws, w.ID, WebhookPatch{Label: ptr("L")}); err != nil {
			t.Fatal(err)
		}
		r, _ := s.load(ctx, db, tn.org, tn.ws, w.ID)
		if c, _ := s.credentials(&r); c.Username != "u" || c.Password != "p" {
			t.Errorf("credentials after patch: %+v", c)
		}
		if got, err := s.Update(ctx, tn.org, tn.ws, w.ID, WebhookPatch{Auth: ptr(AuthNone)}); err != nil || got.Auth != AuthNone {
			t.Fatalf("auth none: %+v %v", got, err)
		}
		r, _ = s.load(ctx, db, tn.org, tn.ws, w.ID)
		if r.SealedCreds != "" {
			t.Errorf("credentials kept after auth none: %q", r.SealedCreds)
		}
		if _, err := s.Update(ctx, tn.org, tn.ws, w.ID, WebhookPatch{URL: ptr("ftp://x")}); !errors.As(err, &ve) || ve.Field != "url" {
			t.Errorf("bad url: %v", err)
		}
	})
}

// Another organization's (or workspace's) ids answer store.ErrNotFound
// everywhere.
func TestOtherTenantsIDsAreNotFound(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := New(db, nil, testConfig())
		mine, theirs := newTenant(t, db), newTenant(t, db)
		w, _ := hook(t, s, theirs, "https://a.example.com", "*")
		ev := emit(t, s, theirs, "email.processed", "")
		d := onlyDelivery(t, s, theirs, w.ID)

		// My own webhook, to pair with their delivery id.
		own, _ := hook(t, s, mine, "https://b.example.com", "*")
		otherWS := tenant{org: theirs.org, ws: addWorkspace(t, db, theirs.org)}
		for _, who := range []tenant{mine, otherWS} {
			checks := map[string]error{}
			_, checks["Get"] = s.Get(ctx, who.org, who.ws, w.ID)
			_, checks["Update"] = s.Update(ctx, who.org, who.ws, w.ID, WebhookPatch{})
			checks["Delete"] = s.Delete(ctx, who.org, who.ws, w.ID)
			_, checks["RotateSecret"] = s.RotateSecret(ctx, who.org, who.ws, w.ID)
			_, checks["Test"] = s.Test(ctx, who.org, who.ws, w.ID, nil)
			_, checks["ListDeliveries"] = s.ListDeliveries(ctx, who.org, who.ws, w.ID, "", 10)
			_, checks["GetDelivery"] = s.GetDelivery(ctx, who.org, who.ws, w.ID, d.ID)
			_, checks["Replay"] = s.Replay(ctx, who.org, who.ws, w.ID, d.ID)
			_, checks["GetEvent"] = s.GetEvent(ctx, who.org, who.ws, ev.ID)
			if who == mine {
				_, checks["GetDelivery(own webhook)"] = s.GetDelivery(ctx, who.org, who.ws, own.ID, d.ID)
				_, checks["Replay(own webhook)"] = s.Replay(ctx, who.org, who.ws, own.ID, d.ID)
			}
			for name, err := range checks {
				if !errors.Is(err, store.ErrNotFound) {
					t.Errorf("%s from %+v: %v, want ErrNotFound", name, who, err)
				}
			}
			if events, err := s.ListEvents(ctx, who.org, who.ws, EventFilter{}); err != nil || len(events) != 0 {
				t.Errorf("ListEvents from %+v: %d events, %v", who, len(events), err)
			}
			if hooks, err := s.List(ctx, who.org, who.ws, ListFilter{}); err != nil || (who == otherWS && len(hooks) != 0) || (who == mine && len(hooks) != 1) {
				t.Errorf("List from %+v: %d, %v", who, len(hooks), err)
			}
		}
		// Nothing changed for the owner.
		if got, err := s.Get(ctx, theirs.org, theirs.ws, w.ID); err != nil || got.UpdatedAt != w.UpdatedAt {
			t.Errorf("owner's webhook: %+v, %v", got, err)
		}
	})
}

func TestListingPaginatesToTheEnd(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := New(db, nil, testConfig())
		tn := newTenant(t, db)
		var ids []string
		for i := range 7 {
			w, _, err := s.Create(ctx, NewWebhook{OrganizationID: tn.org, WorkspaceID: tn.ws, ExternalID: fmt.Sprint("h", i),
				URL: "https://a.example.com", SubscribedEvents: []string{"*"}})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, w.ID)
		}
		deleted := ids[3]
		if err := s.Delete(ctx, tn.org, tn.ws, deleted); err != nil {
			t.Fatal(err)
		}
		var seen []string
		after := ""
		for page := 0; ; page++ {
			got, err := s.List(ctx, tn.org, tn.ws, ListFilter{After: after, Limit: 2})
			if err != nil {
				t.Fatal(err)
			}
			more := len(got) > 2
			got = got[:min(2, len(got))]
			for _, w := range got {
				seen = append(seen, w.ID)
			}
			if !more {
				break
			}
			after = got[len(got)-1].ID
			if page > 10 {
				t.Fatal("no end")
			}
		}
		want := append(append([]string{}, ids[:3]...), ids[4:]...)
		if strings.Join(seen, ",") != strings.Join(want, ",") {
			t.Errorf("pages gave %v, want %v (oldest first, deleted left out)", seen, want)
		}

		// Events and deliveries, newest first.
		for range 5 {
			emit(t, s, tn, "email.processed", "")
		}
		var events []string
		after = ""
		for {
			got, err := s.ListEvents(ctx, tn.org, tn.ws, EventFilter{After: after, Limit: 2, Slug: "email.processed"})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range got[:min(2, len(got))] {
				events = append(events, e.ID)
			}
			if len(got) <= 2 {
				break
			}
			after = got[1].ID
		}
		if len(events) != 5 || events[0] < events[4] {
			t.Errorf("events %v: want 5, newest first", events)
		}
		var deliveries []string
		after = ""
		for {
			got, err := s.ListDeliveries(ctx, tn.org, tn.ws, ids[0], after, 2)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range got[:min(2, len(got))] {
				deliveries = append(deliveries, d.ID)
			}
			if len(got) <= 2 {
				break
			}
			after = got[1].ID
		}
		if len(deliveries) != 5 || deliveries[0] < deliveries[4] {
			t.Errorf("deliveries %v: want 5, newest first", deliveries)
		}
		// Filters.
		if got, _ := s.List(ctx, tn.org, tn.ws, ListFilter{Status: StatusInactive}); len(got) != 0 {
			t.Errorf("inactive filter: %d", len(got))
		}
		var ve *ValidationError
		if _, err := s.List(ctx, tn.org, tn.ws, ListFilter{Status: "bogus"}); !errors.As(err, &ve) {
			t.Errorf("bad status filter: %v", err)
		}
		if got, _ := s.ListEvents(ctx, tn.org, tn.ws, EventFilter{Slug: "email.received"}); len(got) != 0 {
			t.Errorf("slug filter: %d", len(got))
		}
		if got, _ := s.ListEvents(ctx, tn.org, tn.ws, EventFilter{SubjectID: "subject-1"}); len(got) != 5 {
			t.Errorf("subject filter: %d", len(got))
		}
	})
}
