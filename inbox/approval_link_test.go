package inbox

import (
	"net/http"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/productkit/approval"
	"github.com/kobana/kobana-mcp/productkit/producttest"
)

// TestApprovalLinkInConfirmationRequired: with the built-in sign-in (as
// serve runs it), a destructive call from a client that cannot confirm in
// the chat — a 2025-06-18 client — is still answered isError with the
// seeds' code confirmation_required, now carrying the approval link to a
// page of the Inbox's own listener; nothing runs. Another organization's
// owner gets 404 on the page; the person's Continuar runs the call exactly
// once (the webhook is deleted; pressing Continuar again on the same page
// runs nothing); an expired approval runs nothing. A 2026-07-28 client
// that declared URL elicitation gets the link as an input_required URL
// request, as on Kadu.
func TestApprovalLinkInConfirmationRequired(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		cfg := whConfig()
		e := producttest.Start(t, db, Spec(cfg), producttest.Options{SignIn: true,
			Webhooks: productkit.WebhookSettings{AllowPrivateTargets: true, Retries: cfg.WebhookRetries}})
		for _, ext := range []string{"tool", "old"} {
			if code, body := e.Do(e.Owner, "POST", "/api/v1/webhooks", map[string]any{"label": ext, "url": "https://tool.example/h", "external_id": ext, "subscribed_events": []string{"email.received"}}); code != 201 {
				t.Fatalf("creating webhook %s: %d %s", ext, code, body)
			}
		}
		exists := func(ext string) bool {
			code, body := e.Do(e.Owner, "GET", "/api/v1/webhooks/"+ext, nil)
			if code != 200 && code != 404 {
				t.Fatalf("webhook %s: %d %s", ext, code, body)
			}
			return code == 200
		}

		l := e.LinkError(e.Call2025(e.Owner, "webhooks_delete", map[string]any{"id": "tool"}))
		if !strings.HasPrefix(l.Message, "Nothing was done: webhooks_delete is a destructive tool") || !exists("tool") {
			t.Fatalf("the answer %q, or the webhook was deleted before the approval", l.Message)
		}
		if a := e.Approval(l.ApprovalID); a.Status != approval.StatusPending || a.Tool != "webhooks_delete" || a.UserID != e.Owner.ID {
			t.Fatalf("stored approval: %+v", a)
		}

		if p := e.Browser().Open(l.ApprovalURL, e.Other.Email); p.Status != http.StatusNotFound {
			t.Fatalf("another organization's owner opened the page: %d", p.Status)
		}
		b := e.Browser()
		page := b.Open(l.ApprovalURL, e.Owner.Email)
		if page.Status != http.StatusOK || !strings.Contains(page.Body, "Continuar") || !strings.Contains(page.Body, "webhooks_delete") || !strings.Contains(page.Body, ServerTitle) {
			t.Fatalf("approval page: %d\n%s", page.Status, page.Body)
		}
		if !exists("tool") {
			t.Fatal("opening the page ran the call")
		}
		if r := b.Decide(page, l.ApprovalURL, "continuar"); r.Status != http.StatusSeeOther {
			t.Fatalf("Continuar: %d %s", r.Status, r.Body)
		}
		done := e.WaitApproval(l.ApprovalID, approval.StatusSucceeded)
		if exists("tool") || !strings.Contains(done.ResultText(), "204") {
			t.Fatalf("after Continuar: webhook still there, or the outcome %q", done.ResultText())
		}
		// The same form again: the approval is no longer pending, nothing
		// runs a second time.
		b.Decide(page, l.ApprovalURL, "continuar")
		if again := e.Approval(l.ApprovalID); again.Status != approval.StatusSucceeded || !again.FinishedAt.Equal(*done.FinishedAt) || again.Result != done.Result {
			t.Fatalf("re-using the link changed the approval: %+v", again)
		}
		if p := b.Get(l.ApprovalURL); p.Status != http.StatusOK || strings.Contains(p.Body, `id="continuar"`) {
			t.Fatalf("the used link's page still offers Continuar: %d", p.Status)
		}

		// Expired before Continuar: nothing runs.
		old := e.LinkError(e.Call2025(e.Owner, "webhooks_delete", map[string]any{"id": "old"}))
		page = b.Open(old.ApprovalURL, e.Owner.Email)
		e.ExpireApproval(old.ApprovalID)
		b.Decide(page, old.ApprovalURL, "continuar")
		if a := e.Approval(old.ApprovalID); a.Status != approval.StatusExpired || !exists("old") {
			t.Fatalf("an expired approval: %s, webhook there %v", a.Status, exists("old"))
		}

		// A 2026-07-28 client that declared URL elicitation (and not form).
		raw := e.RPC(e.Owner, "tools/call", map[string]any{"name": "webhooks_delete", "arguments": map[string]any{"id": "old"}, "_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "url-client", "version": "2"},
			"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{"url": map[string]any{}}},
		}})
		if !strings.Contains(raw, `"resultType":"input_required"`) || !strings.Contains(raw, `"mode":"url"`) || !strings.Contains(raw, `"url":"`+e.URL+approval.PathPrefix) || strings.Contains(raw, `"isError"`) {
			t.Fatalf("URL elicitation client: %s", raw)
		}
		if !exists("old") {
			t.Fatal("the URL elicitation ran the call")
		}
	})
}
