package approval_test

import (
	"context"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit/approval"
	"github.com/kobana/kobana-mcp/productkit/approval/approvaltest"
)

var alphaMessage = approvaltest.ConfirmMessage("Alpha", "alpha")

// TestLinkResult: a client that cannot confirm (2025, or 2026 without
// elicitation) gets a normal result with the link, and a pending approval
// is stored with the caller's identity and the canonical arguments;
// nothing runs.
func TestLinkResult(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, approvaltest.Options{})
		for _, c := range []call{
			{arguments: `{ "reason": "fim do contrato", "project": "alpha" }`},
			{modern: true, arguments: `{"reason":"fim do contrato","project":"alpha"}`},
			{modern: true, caps: `{"sampling":{}}`, arguments: `{"project":"alpha","reason":"fim do contrato"}`},
		} {
			before := time.Now()
			r := e.do(c)
			if c.modern && r.msg.Result["resultType"] != "complete" {
				t.Errorf("resultType = %v, want complete:\n%s", r.msg.Result["resultType"], r.body)
			}
			l := e.link(r)
			if l.ApprovalID == "" || l.ApprovalURL != e.ts.URL+"/approvals/"+l.ApprovalID || l.Status != approval.StatusPending {
				t.Errorf("link = %+v", l)
			}
			exp, err := time.Parse(time.RFC3339, l.ExpiresAt)
			if err != nil || exp.Before(before.Add(approval.DefaultTTL-2*time.Second)) || exp.After(time.Now().Add(approval.DefaultTTL+time.Second)) {
				t.Errorf("expires_at = %q, want about 10 minutes from now", l.ExpiresAt)
			}
			for _, part := range []string{"Open this link to approve", l.ApprovalURL, alphaMessage, "Nothing runs until you choose Continuar"} {
				if !strings.Contains(l.Message, part) {
					t.Errorf("message %q lacks %q", l.Message, part)
				}
			}
			a := e.approval(l.ApprovalID)
			id := a.Identity()
			if a.Status != approval.StatusPending || a.Tool != "projects_delete" || a.Arguments != `{"project":"alpha","reason":"fim do contrato"}` ||
				a.Message != alphaMessage || a.UserID != e.srv.Owner.ID || a.OrganizationID != e.srv.Org.ID || a.Email != approvaltest.OwnerEmail ||
				a.ClientID != approvaltest.ClientID || !reflect.DeepEqual(id.Scopes, []string{approvaltest.Scope}) ||
				a.PrincipalHash != approval.PrincipalHash(id.Principal()) || a.Issuer != e.ts.URL || a.Audience != e.ts.URL+"/mcp" || a.Result != "" {
				t.Errorf("stored approval = %+v", a)
			}
		}
		e.wantRuns("alpha", 0)
	})
}

// TestNothingStoredForMissingTarget: a call whose target does not exist
// gets the tool's own error and no approval.
func TestNothingStoredForMissingTarget(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite), approvaltest.Options{})
	r := e.do(call{arguments: `{"project":"nope"}`})
	if !r.isError() || !strings.Contains(r.text(), "not_found") {
		t.Fatalf("want the not_found error, got:\n%s", r.body)
	}
	var n int
	if err := e.db.Get(context.Background(), &n, "SELECT count(*) FROM approvals"); err != nil || n != 0 {
		t.Fatalf("%d approvals stored (%v), want none", n, err)
	}
}

// TestContinuarRunsOnce: the owner signs in from the link, sees exactly
// what will run, presses Continuar; the call runs once, in the background,
// as the owner, and the outcome is recorded and shown. Pressing again runs
// nothing.
func TestContinuarRunsOnce(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, approvaltest.Options{})
		l := e.createLink(`{"project":"alpha","reason":"fim do contrato"}`)
		b := e.browser()
		// Not signed in: to the sign-in page, which returns to the page.
		first := b.get(l.ApprovalURL)
		if first.status != http.StatusSeeOther || first.header.Get("Location") != "/oauth/sign-in?next="+url.QueryEscape("/approvals/"+l.ApprovalID) {
			t.Fatalf("anonymous visit: %d Location %q", first.status, first.header.Get("Location"))
		}
		p := b.open(l.ApprovalURL, approvaltest.OwnerEmail, approvaltest.OwnerPassword)
		if p.status != http.StatusOK {
			t.Fatalf("approval page: %d\n%s", p.status, p.body)
		}
		for _, want := range []string{"Aprovar ação", `id="continuar"`, `id="cancelar"`, "Excluir projeto", "projects_delete",
			"Delete project &#39;Alpha&#39; (id alpha)", "&#34;reason&#34;: &#34;fim do contrato&#34;", approvaltest.ClientID, approvaltest.OwnerEmail,
			`data-status="pending"`, "Nada é executado antes de você escolher Continuar"} {
			if !strings.Contains(p.body, want) {
				t.Errorf("approval page lacks %q", want)
			}
		}
		h := p.header
		if h.Get("Cache-Control") != "no-store" || h.Get("X-Frame-Options") != "DENY" || !strings.Contains(h.Get("Content-Security-Policy"), "form-action 'self'") {
			t.Errorf("headers: %v", h)
		}
		e.wantRuns("alpha", 0)

		done := b.decide(p, l.ApprovalURL, "continuar")
		if done.status != http.StatusSeeOther || done.header.Get("Location") != "/approvals/"+l.ApprovalID {
			t.Fatalf("Continuar: %d %q\n%s", done.status, done.header.Get("Location"), done.body)
		}
		a := e.waitStatus(l.ApprovalID, approval.StatusSucceeded)
		e.wantRuns("alpha", 1)
		if a.DecidedAt == nil || a.StartedAt == nil || a.FinishedAt == nil || a.ResultText() != `{"deleted":"alpha","runs":1}` {
			t.Errorf("recorded approval = %+v", a)
		}
		seen := e.srv.Projects.Seen()
		if len(seen) != 1 || seen[0].UserID != e.srv.Owner.ID || seen[0].Role != identity.RoleOwner || seen[0].Confirmation != "approval:"+l.ApprovalID {
			t.Errorf("the run saw %+v", seen)
		}
		status := b.get(l.ApprovalURL)
		for _, want := range []string{`data-status="succeeded"`, "Ação executada", "&#34;deleted&#34;: &#34;alpha&#34;"} {
			if !strings.Contains(status.body, want) {
				t.Errorf("status page lacks %q:\n%s", want, status.body)
			}
		}
		if strings.Contains(status.body, `id="continuar"`) {
			t.Error("the status page still offers Continuar")
		}
		// Again, with the old form: nothing more runs.
		again := b.decide(p, l.ApprovalURL, "continuar")
		if again.status != http.StatusSeeOther {
			t.Fatalf("second Continuar: %d", again.status)
		}
		time.Sleep(100 * time.Millisecond)
		e.wantRuns("alpha", 1)
	})
}

// TestConcurrentContinuar: many clicks at once run the call once.
func TestConcurrentContinuar(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, approvaltest.Options{})
		l := e.createLink(`{"project":"beta"}`)
		b := e.browser()
		p := b.open(l.ApprovalURL, approvaltest.OwnerEmail, approvaltest.OwnerPassword)
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() { b.decide(p, l.ApprovalURL, "continuar") })
		}
		wg.Wait()
		e.waitStatus(l.ApprovalID, approval.StatusSucceeded)
		time.Sleep(100 * time.Millisecond)
		e.wantRuns("beta", 1)
	})
}

// TestAnotherPerson: someone else — of the same organization, or of
// another — gets the same 404 as for an id that does not exist, and can
// decide nothing.
func TestAnotherPerson(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, approvaltest.Options{})
		l := e.createLink(`{"project":"alpha"}`)
		for _, who := range [][2]string{{approvaltest.OtherEmail, approvaltest.OtherPassword}, {approvaltest.OutsiderEmail, approvaltest.OutsiderPassword}} {
			b := e.browser()
			p := b.open(l.ApprovalURL, who[0], who[1])
			none := b.get("/approvals/" + store.NewID())
			if p.status != http.StatusNotFound || !strings.Contains(p.body, "Aprovação não encontrada") || strings.Contains(p.body, "Alpha") {
				t.Errorf("%s sees %d:\n%s", who[0], p.status, p.body)
			}
			if none.status != p.status || none.body != p.body {
				t.Errorf("%s: another person's approval differs from a missing one", who[0])
			}
			post := b.post(mustPath(l.ApprovalURL), url.Values{"decision": {"continuar"}, "csrf_token": {"x"}})
			if post.status != http.StatusNotFound {
				t.Errorf("%s: POST answered %d", who[0], post.status)
			}
		}
		if a := e.approval(l.ApprovalID); a.Status != approval.StatusPending {
			t.Errorf("status = %s, want pending", a.Status)
		}
		e.wantRuns("alpha", 0)
	})
}

// TestExpired: an approval past its expiry runs nothing and says so.
func TestExpired(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, approvaltest.Options{})
		l := e.createLink(`{"project":"gama"}`)
		b := e.browser()
		p := b.open(l.ApprovalURL, approvaltest.OwnerEmail, approvaltest.OwnerPassword)
		e.clock.Advance(approval.DefaultTTL + time.Second)
		// The page, opened before the expiry, is submitted after it.
		b.decide(p, l.ApprovalURL, "continuar")
		after := b.get(l.ApprovalURL)
		for _, want := range []string{`data-status="expired"`, "Nada foi executado", "Aprovação expirada"} {
			if !strings.Contains(after.body, want) {
				t.Errorf("expired page lacks %q:\n%s", want, after.body)
			}
		}
		if strings.Contains(after.body, `id="continuar"`) {
			t.Error("an expired approval offers Continuar")
		}
		time.Sleep(100 * time.Millisecond)
		e.wantRuns("gama", 0)
		if a := e.approval(l.ApprovalID); a.Status != approval.StatusExpired || a.StartedAt != nil {
			t.Errorf("approval = %+v", a)
		}
	})
}

// TestCancel: Cancelar runs nothing, and Continuar afterwards neither.
func TestCancel(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, approvaltest.Options{})
		l := e.createLink(`{"project":"delta"}`)
		b := e.browser()
		p := b.open(l.ApprovalURL, approvaltest.OwnerEmail, approvaltest.OwnerPassword)
		b.decide(p, l.ApprovalURL, "cancelar")
		b.decide(p, l.ApprovalURL, "continuar")
		after := b.get(l.ApprovalURL)
		if !strings.Contains(after.body, `data-status="cancelled"`) || !strings.Contains(after.body, "Nada foi executado") {
			t.Errorf("cancelled page:\n%s", after.body)
		}
		time.Sleep(100 * time.Millisecond)
		e.wantRuns("delta", 0)
	})
}

// TestCSRF: a decision without the page's token, with another approval's
// token, or sent from another site, is refused and runs nothing.
func TestCSRF(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite), approvaltest.Options{})
	l := e.createLink(`{"project":"alpha"}`)
	other := e.createLink(`{"project":"beta"}`)
	b := e.browser()
	p := b.open(l.ApprovalURL, approvaltest.OwnerEmail, approvaltest.OwnerPassword)
	otherPage := b.get(other.ApprovalURL)
	for name, form := range map[string]url.Values{
		"no token":                 {"decision": {"continuar"}},
		"another approval's token": {"decision": {"continuar"}, "csrf_token": {otherPage.hidden().Get("csrf_token")}},
	} {
		if r := b.post(mustPath(l.ApprovalURL), form); r.status != http.StatusForbidden || !strings.Contains(r.body, "Este formulário expirou") {
			t.Errorf("%s: %d\n%s", name, r.status, r.body)
		}
	}
	form := p.hidden()
	form.Set("decision", "continuar")
	if r := b.post(mustPath(l.ApprovalURL), form, "Sec-Fetch-Site", "cross-site"); r.status != http.StatusForbidden {
		t.Errorf("cross-site: %d", r.status)
	}
	// Another browser signed in as the same person has its own tokens.
	b2 := e.browser()
	b2.open(l.ApprovalURL, approvaltest.OwnerEmail, approvaltest.OwnerPassword)
	if r := b2.post(mustPath(l.ApprovalURL), form); r.status != http.StatusForbidden {
		t.Errorf("another session's token: %d", r.status)
	}
	time.Sleep(50 * time.Millisecond)
	if a := e.approval(l.ApprovalID); a.Status != approval.StatusPending {
		t.Errorf("status = %s", a.Status)
	}
	e.wantRuns("alpha", 0)
}

// TestRoleCheckedWhenRunning: a person demoted between the call and
// Continuar runs nothing; one removed from the organization no longer
// sees the page.
func TestRoleCheckedWhenRunning(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite), approvaltest.Options{})
	ctx := context.Background()
	l := e.createLink(`{"project":"alpha"}`)
	b := e.browser()
	p := b.open(l.ApprovalURL, approvaltest.OwnerEmail, approvaltest.OwnerPassword)
	// bruno is an owner too, so ana may be demoted.
	if err := e.srv.Accounts.SetRole(ctx, e.srv.Org.ID, e.srv.Owner.ID, identity.RoleViewer); err != nil {
		t.Fatal(err)
	}
	b.decide(p, l.ApprovalURL, "continuar")
	a := e.waitStatus(l.ApprovalID, approval.StatusFailed)
	if !strings.Contains(a.ResultText(), "Nothing was done") {
		t.Errorf("result = %q", a.ResultText())
	}
	e.wantRuns("alpha", 0)

	// Removed from the organization: the page is a 404.
	if err := e.srv.Accounts.SetRole(ctx, e.srv.Org.ID, e.srv.Owner.ID, identity.RoleOwner); err != nil {
		t.Fatal(err)
	}
	l2 := e.createLink(`{"project":"beta"}`)
	if _, err := e.db.Exec(ctx, "DELETE FROM memberships WHERE user_id = ? AND organization_id = ?", e.srv.Owner.ID, e.srv.Org.ID); err != nil {
		t.Fatal(err)
	}
	if p := b.get(l2.ApprovalURL); p.status != http.StatusNotFound {
		t.Errorf("after leaving the organization: %d", p.status)
	}
}
