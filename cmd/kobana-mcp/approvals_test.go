package main

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/dunning"
	"github.com/kobana/kobana-mcp/inbox"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/productkit/approval"
	"github.com/kobana/kobana-mcp/productkit/producttest"
)

// TestApprovalLinksOfTwoProductsOnOneQueue: the Inbox and Dunning served
// as serve serves them — one database, one job queue, one runner of
// approved calls (approval.NewRunners) — each answer a 2025 client's
// destructive call with an approval link to its own listener. The shared
// approvals table notwithstanding, each product's page shows only its own
// approvals (the other product's link is a 404 there, as for anyone
// else's), and the queue's one approval.run worker runs both approved
// calls, each with its own product's tool.
func TestApprovalLinksOfTwoProductsOnOneQueue(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := storetest.Open(t, engine, productMigrations()...)
			q, err := jobs.New(ctx, db, jobs.Config{Work: true, PollInterval: 50 * time.Millisecond, Logger: producttest.FailureLog(t)})
			if err != nil {
				t.Fatal(err)
			}
			runners := approval.NewRunners(db, q)
			hooks := productkit.WebhookSettings{AllowPrivateTargets: true}
			in := producttest.Start(t, db, inbox.Spec(inbox.Config{SMTPAddr: "off"}), producttest.Options{SignIn: true, Queue: q, Approvals: runners, Webhooks: hooks})
			dun := producttest.Start(t, db, dunning.Spec(), producttest.Options{SignIn: true, Queue: q, Approvals: runners, Webhooks: hooks, Share: in})
			if err := q.Start(ctx); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				_ = q.Stop(c)
			})
			if code, body := in.Do(in.Owner, "POST", "/api/v1/webhooks", map[string]any{"label": "Tool", "url": "https://tool.example/h", "external_id": "tool", "subscribed_events": []string{"email.received"}}); code != 201 {
				t.Fatalf("Inbox webhook: %d %s", code, body)
			}
			if code, body := dun.Do(dun.Owner, "POST", "/v1/webhooks", map[string]any{"label": "ERP", "url": "https://erp.example/h", "external_id": "erp", "subscribed_events": []string{"*"}}); code != 201 {
				t.Fatalf("Dunning webhook: %d %s", code, body)
			}
			li := in.LinkError(in.Call2025(in.Owner, "webhooks_delete", map[string]any{"id": "tool"}))
			ld := dun.LinkError(dun.Call2025(dun.Owner, "dunning_webhooks_delete", map[string]any{"id": "erp"}))

			// Each link on the other product's listener: the same person,
			// signed in there, finds nothing.
			if p := dun.Browser().Open(dun.URL+approval.PathPrefix+li.ApprovalID, dun.Owner.Email); p.Status != http.StatusNotFound {
				t.Errorf("the Inbox's approval on Dunning's page: %d", p.Status)
			}
			if p := in.Browser().Open(in.URL+approval.PathPrefix+ld.ApprovalID, in.Owner.Email); p.Status != http.StatusNotFound {
				t.Errorf("Dunning's approval on the Inbox's page: %d", p.Status)
			}

			for _, c := range []struct {
				env  *producttest.Env
				link approval.LinkErrorBody
			}{{in, li}, {dun, ld}} {
				b := c.env.Browser()
				page := b.Open(c.link.ApprovalURL, c.env.Owner.Email)
				if page.Status != http.StatusOK {
					t.Fatalf("%s: approval page %d", c.link.ApprovalURL, page.Status)
				}
				b.Decide(page, c.link.ApprovalURL, "continuar")
			}
			in.WaitApproval(li.ApprovalID, approval.StatusSucceeded)
			dun.WaitApproval(ld.ApprovalID, approval.StatusSucceeded)
			if code, _ := in.Do(in.Owner, "GET", "/api/v1/webhooks/tool", nil); code != 404 {
				t.Errorf("the Inbox's webhook after Continuar: %d", code)
			}
			if code, _ := dun.Do(dun.Owner, "GET", "/v1/webhooks/erp", nil); code != 404 {
				t.Errorf("Dunning's webhook after Continuar: %d", code)
			}
			// River records a job completed just after its work returns.
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				var n int
				if err := db.Get(ctx, &n, `SELECT COUNT(*) FROM river_job WHERE kind = ? AND state = 'completed'`, approval.RunKind); err != nil {
					t.Fatal(err)
				}
				if n == 2 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%d approval.run jobs completed, want 2", n)
				}
			}
		})
	}
}
