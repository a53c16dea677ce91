package dunning

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
// serve runs it), a destructive call from a 2025-06-18 client is answered
// isError with confirmation_required in Dunning's indented JSON, carrying
// the approval link to a page of Dunning's own listener; nothing runs.
// Another organization's owner gets 404 on the page; the person's
// Continuar runs it exactly once (the webhook is deleted, the same form
// again runs nothing); an expired approval runs nothing.
func TestApprovalLinkInConfirmationRequired(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, nil, func(t *testing.T, db *store.DB) {
		e := producttest.Start(t, db, Spec(), producttest.Options{SignIn: true, Webhooks: productkit.WebhookSettings{AllowPrivateTargets: true}})
		for _, ext := range []string{"erp", "old"} {
			if code, body := e.Do(e.Owner, "POST", "/v1/webhooks", map[string]any{"label": ext, "url": "https://erp.example/h", "external_id": ext, "subscribed_events": []string{"*"}}); code != 201 {
				t.Fatalf("creating webhook %s: %d %s", ext, code, body)
			}
		}
		exists := func(ext string) bool {
			code, body := e.Do(e.Owner, "GET", "/v1/webhooks/"+ext, nil)
			if code != 200 && code != 404 {
				t.Fatalf("webhook %s: %d %s", ext, code, body)
			}
			return code == 200
		}

		text, isErr := e.Call2025(e.Owner, "dunning_webhooks_delete", map[string]any{"id": "erp"})
		if !strings.HasPrefix(text, "{\n  \"error\": {\n    \"code\": \"confirmation_required\"") {
			t.Fatalf("not Dunning's indented error: %s", text)
		}
		l := e.LinkError(text, isErr)
		if !strings.Contains(l.Message, "dunning_webhooks_delete is a destructive tool") || !exists("erp") {
			t.Fatalf("the answer %q, or the webhook was deleted before the approval", l.Message)
		}

		if p := e.Browser().Open(l.ApprovalURL, e.Other.Email); p.Status != http.StatusNotFound {
			t.Fatalf("another organization's owner opened the page: %d", p.Status)
		}
		b := e.Browser()
		page := b.Open(l.ApprovalURL, e.Owner.Email)
		if page.Status != http.StatusOK || !strings.Contains(page.Body, "Continuar") || !strings.Contains(page.Body, Spec().Title) {
			t.Fatalf("approval page: %d\n%s", page.Status, page.Body)
		}
		if r := b.Decide(page, l.ApprovalURL, "continuar"); r.Status != http.StatusSeeOther {
			t.Fatalf("Continuar: %d %s", r.Status, r.Body)
		}
		done := e.WaitApproval(l.ApprovalID, approval.StatusSucceeded)
		if exists("erp") {
			t.Fatalf("after Continuar the webhook is still there (outcome %q)", done.ResultText())
		}
		b.Decide(page, l.ApprovalURL, "continuar")
		if again := e.Approval(l.ApprovalID); again.Status != approval.StatusSucceeded || !again.FinishedAt.Equal(*done.FinishedAt) || again.Result != done.Result {
			t.Fatalf("re-using the link changed the approval: %+v", again)
		}

		old := e.LinkError(e.Call2025(e.Owner, "dunning_webhooks_delete", map[string]any{"id": "old"}))
		page = b.Open(old.ApprovalURL, e.Owner.Email)
		e.ExpireApproval(old.ApprovalID)
		b.Decide(page, old.ApprovalURL, "continuar")
		if a := e.Approval(old.ApprovalID); a.Status != approval.StatusExpired || !exists("old") {
			t.Fatalf("an expired approval: %s, webhook there %v", a.Status, exists("old"))
		}
	})
}
