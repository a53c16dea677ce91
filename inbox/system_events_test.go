package inbox

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/platform/webhooks"
)

// TestSystemEvents emits events the way the Inbox does (scope: the inbox,
// subject: the e-mail) and reads them back: newest first, pagination to
// the end, each filter, one event with its payload, and nothing of
// another organization.
func TestSystemEvents(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newTestEnv(t, db, whConfig())
		billing := whInbox(t, db, e.Mine.ID, e.MineWS.ID, "billing")
		sales := whInbox(t, db, e.Mine.ID, e.MineWS.ID, "sales")
		mail1 := whEmail(t, db, e.Mine.ID, e.MineWS.ID, billing)
		mail2 := whEmail(t, db, e.Mine.ID, e.MineWS.ID, sales)
		theirInbox := whInbox(t, db, e.Theirs.ID, e.TheirWS.ID, "theirs")
		theirMail := whEmail(t, db, e.Theirs.ID, e.TheirWS.ID, theirInbox)

		emitter := webhooks.New(db, nil, webhooks.Config{Product: "inbox"})
		emit := func(org, ws, slug, inbox, email string) webhooks.SystemEvent {
			ev, err := emitter.Emit(ctx, nil, webhooks.Event{OrganizationID: org, WorkspaceID: ws, Slug: slug, ScopeID: inbox, SubjectID: email,
				Data: map[string]any{"email": map[string]string{"id": email}}})
			if err != nil {
				t.Fatal(err)
			}
			return ev
		}
		// Oldest first: received, processed (mail1), received (mail2),
		// processed (mail2), and one of another organization.
		evs := []webhooks.SystemEvent{
			emit(e.Mine.ID, e.MineWS.ID, "email.received", billing, mail1),
			emit(e.Mine.ID, e.MineWS.ID, "email.processed", billing, mail1),
			emit(e.Mine.ID, e.MineWS.ID, "email.received", sales, mail2),
			emit(e.Mine.ID, e.MineWS.ID, "email.processed", sales, mail2),
		}
		theirs := emit(e.Theirs.ID, e.TheirWS.ID, "email.received", theirInbox, theirMail)

		// Pagination to the end, newest first.
		var seen []string
		path := "/api/v1/system-events?limit=3"
		for pages := 0; ; pages++ {
			p := whListGet[systemEventJSON](t, e, e.Owner, path)
			for _, ev := range p.Data {
				seen = append(seen, ev.ID)
			}
			if p.Meta.NextCursor == nil {
				if pages != 1 {
					t.Fatalf("%d pages, want 2", pages+1)
				}
				break
			}
			path = "/api/v1/system-events?limit=3&cursor=" + *p.Meta.NextCursor
		}
		if strings.Join(seen, ",") != strings.Join([]string{evs[3].ID, evs[2].ID, evs[1].ID, evs[0].ID}, ",") {
			t.Fatalf("events %v, want the four of this workspace newest first", seen)
		}

		for name, c := range map[string]struct {
			query string
			want  []webhooks.SystemEvent
		}{
			"slug":           {"slug=email.processed", []webhooks.SystemEvent{evs[3], evs[1]}},
			"email":          {"email_id=" + mail1, []webhooks.SystemEvent{evs[1], evs[0]}},
			"inbox by ext":   {"inbox_id=sales", []webhooks.SystemEvent{evs[3], evs[2]}},
			"inbox and slug": {"inbox_id=" + billing + "&slug=email.received", []webhooks.SystemEvent{evs[0]}},
			"nothing":        {"slug=agent_run.failed", nil},
		} {
			p := whListGet[systemEventJSON](t, e, e.Owner, "/api/v1/system-events?"+c.query)
			if len(p.Data) != len(c.want) {
				t.Errorf("%s: %d events, want %d", name, len(p.Data), len(c.want))
				continue
			}
			for i, ev := range p.Data {
				if ev.ID != c.want[i].ID {
					t.Errorf("%s: event %d is %s, want %s", name, i, ev.ID, c.want[i].ID)
				}
			}
		}
		for name, c := range map[string]struct {
			query string
			code  int
			field string
		}{
			"unknown slug":                   {"slug=email.sent", 422, "slug"},
			"bad cursor":                     {"cursor=abc", 422, "cursor"},
			"unknown argument":               {"workspace_id=x", 422, "workspace_id"},
			"another organization's e-mail":  {"email_id=" + theirMail, 404, ""},
			"another organization's inbox":   {"inbox_id=" + theirInbox, 404, ""},
			"an e-mail that does not exist":  {"email_id=" + store.NewID(), 404, ""},
			"an inbox that does not exist":   {"inbox_id=nowhere", 404, ""},
			"a limit out of range":           {"limit=201", 422, "limit"},
			"a limit that is not a number":   {"limit=many", 422, "limit"},
			"an e-mail id of an empty value": {"email_id=", 200, ""},
		} {
			code, body := e.Do(e.Owner, "GET", "/api/v1/system-events?"+c.query, nil)
			if code != c.code || (c.field != "" && !whFieldError(body, c.field)) {
				t.Errorf("%s: %d %s", name, code, body)
			}
		}

		// One event, with its payload and ids.
		code, body := e.Do(e.Owner, "GET", "/api/v1/system-events/"+evs[1].ID, nil)
		got := whJSON[systemEventJSON](t, code, body, 200)
		var payload struct {
			Event struct{ ID, Slug string }
			Data  struct{ Email struct{ ID string } }
		}
		_ = json.Unmarshal(got.Payload, &payload)
		if got.Slug != "email.processed" || got.InboxID == nil || *got.InboxID != billing || got.EmailID == nil || *got.EmailID != mail1 ||
			payload.Event.ID != evs[1].ID || payload.Data.Email.ID != mail1 {
			t.Fatalf("event: %s", body)
		}
		for _, c := range []struct {
			user string
			id   string
		}{{"mine", theirs.ID}, {"mine", store.NewID()}, {"theirs", evs[0].ID}} {
			u := e.Owner
			if c.user == "theirs" {
				u = e.Other
			}
			if code, body := e.Do(u, "GET", "/api/v1/system-events/"+c.id, nil); code != 404 || !strings.Contains(body, "system event not found") {
				t.Errorf("%s reading %s: %d %s", c.user, c.id, code, body)
			}
		}

		// Through MCP.
		if text, isErr := e.Call(e.Owner, "system_events_list", map[string]any{"slug": "email.received", "inbox_id": "billing"}); isErr || !strings.Contains(text, evs[0].ID) || strings.Contains(text, evs[2].ID) {
			t.Fatalf("system_events_list: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "system_events_list", map[string]any{"slug": "nope"}); !isErr || !strings.Contains(text, `"slug"`) {
			t.Fatalf("system_events_list, unknown slug: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "system_events_get", map[string]any{"id": evs[2].ID}); isErr || !strings.Contains(text, mail2) {
			t.Fatalf("system_events_get: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "system_events_get", map[string]any{"id": theirs.ID}); !isErr || !strings.Contains(text, `"not_found"`) {
			t.Fatalf("system_events_get, another organization: %s", text)
		}
	})
}
