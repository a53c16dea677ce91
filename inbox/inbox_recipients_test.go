package inbox

import (
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestInboxesRecipients: add answers 201 then 200 for the same sender in
// any case; remove answers the inbox, then 404; bad entries and other
// organizations' inboxes are refused; members may not change who sends;
// through MCP both ask first, naming sender and inbox, and warn when the
// allow-list opens to anyone.
func TestInboxesRecipients(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := newTestEnv(t, db, Config{SMTPAddr: "off"})
		_, body := e.Do(e.Owner, "POST", "/api/v1/inboxes", map[string]any{"label": "Payables", "external_id": "pay"})
		in := cfgData[inboxJSON](t, body)
		code, body := e.Do(e.Owner, "POST", "/api/v1/inboxes/pay/recipients", map[string]any{"email": "Billing@Supplier.example"})
		if code != 201 || strings.Join(cfgData[inboxJSON](t, body).AllowedRecipients, ",") != "billing@supplier.example" {
			t.Fatalf("add: %d %s", code, body)
		}
		if code, body := e.Do(e.Owner, "POST", "/api/v1/inboxes/"+in.ID+"/recipients", map[string]any{"email": "billing@supplier.EXAMPLE"}); code != 200 || len(cfgData[inboxJSON](t, body).AllowedRecipients) != 1 {
			t.Fatalf("add again: %d %s", code, body)
		}
		if code, _ := e.Do(e.Owner, "POST", "/api/v1/inboxes/pay/recipients", map[string]any{"email": "@bank.example"}); code != 201 {
			t.Fatalf("add a domain: %d", code)
		}
		for _, bad := range []any{"not-an-address", "@", "a@b@c.com", ""} {
			if code, body := e.Do(e.Owner, "POST", "/api/v1/inboxes/pay/recipients", map[string]any{"email": bad}); code != 422 || !cfgError(t, body).hasField("email") {
				t.Errorf("add %q: %d %s", bad, code, body)
			}
		}
		if code, _ := e.Do(e.Other, "POST", "/api/v1/inboxes/"+in.ID+"/recipients", map[string]any{"email": "x@y.com"}); code != 404 {
			t.Fatalf("another organization's inbox: %d", code)
		}
		member := cfgUser(t, e, "member@mine.example", identity.RoleMember)
		if code, _ := e.Do(member, "POST", "/api/v1/inboxes/pay/recipients", map[string]any{"email": "x@y.com"}); code != 403 {
			t.Fatalf("a member adding a sender: %d", code)
		}
		code, body = e.Do(e.Owner, "DELETE", "/api/v1/inboxes/pay/recipients?email=BILLING@supplier.example", nil)
		if code != 200 || strings.Join(cfgData[inboxJSON](t, body).AllowedRecipients, ",") != "@bank.example" {
			t.Fatalf("remove: %d %s", code, body)
		}
		if code, body := e.Do(e.Owner, "DELETE", "/api/v1/inboxes/pay/recipients?email=billing@supplier.example", nil); code != 404 || cfgError(t, body).Error.Code != "not_found" {
			t.Fatalf("remove again: %d %s", code, body)
		}
		if code, _ := e.Do(e.Owner, "DELETE", "/api/v1/inboxes/pay/recipients", nil); code != 422 {
			t.Fatalf("remove without email: %d", code)
		}
		if code, _ := e.Do(e.Other, "DELETE", "/api/v1/inboxes/"+in.ID+"/recipients?email=@bank.example", nil); code != 404 {
			t.Fatalf("removing from another organization's inbox: %d", code)
		}

		// MCP: both destructive, refused without confirmation.
		for tool, args := range map[string]map[string]any{
			"inboxes_recipients_add":    {"id": "pay", "email": "new@x.example"},
			"inboxes_recipients_remove": {"id": "pay", "email": "@bank.example"},
		} {
			if text, isErr := e.Call(e.Owner, tool, args); !isErr || !strings.Contains(text, "confirmation_required") {
				t.Fatalf("%s without confirmation: %s", tool, text)
			}
		}
		msg, done := cfgConfirmed(t, e, e.Owner, "inboxes_recipients_add", map[string]any{"id": "pay", "email": "New@X.example"})
		if msg != "Allow new@x.example to send to inbox 'Payables' ("+in.Email+")?" || done.Result.IsError || !strings.Contains(done.text(), "new@x.example") {
			t.Fatalf("confirmed add %q: %s", msg, done.raw)
		}
		msg, done = cfgConfirmed(t, e, e.Owner, "inboxes_recipients_remove", map[string]any{"id": "pay", "email": "nobody@x.example"})
		if msg != "" || !done.Result.IsError || !strings.Contains(done.text(), "not_found") {
			t.Fatalf("removing an absent sender asked %q: %s", msg, done.raw)
		}
		e.Do(e.Owner, "DELETE", "/api/v1/inboxes/pay/recipients?email=@bank.example", nil)
		msg, done = cfgConfirmed(t, e, e.Owner, "inboxes_recipients_remove", map[string]any{"id": "pay", "email": "new@x.example"})
		if !strings.Contains(msg, "the last entry") || !strings.Contains(msg, "from anyone") || done.Result.IsError || !strings.Contains(done.text(), `"allowed_recipients":[]`) {
			t.Fatalf("removing the last sender %q: %s", msg, done.raw)
		}
	})
}
