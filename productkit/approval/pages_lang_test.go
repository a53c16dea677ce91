package approval_test

import (
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit/approval"
	"github.com/kobana/kobana-mcp/productkit/approval/approvaltest"
)

var leadRE = regexp.MustCompile(`<p class="lead" id="lead">([^<]*)</p>`)

// signInLead follows an anonymous visit of link to the sign-in page and
// returns what it says the person signs in for.
func signInLead(t *testing.T, b *browser, link string) string {
	t.Helper()
	first := b.get(link)
	if first.status != http.StatusSeeOther {
		t.Fatalf("anonymous visit: %d", first.status)
	}
	p := b.get(first.header.Get("Location"))
	m := leadRE.FindStringSubmatch(p.body)
	if p.status != http.StatusOK || m == nil {
		t.Fatalf("sign-in page: %d\n%s", p.status, p.body)
	}
	return html.UnescapeString(m[1])
}

// TestSignInSaysWhatIsApproved: on the way to an approval page the sign-in
// page names what the person will approve and who asked, read from the
// approval by its id, in the browser's language; once decided, what they
// will see; an id that is not an approval says only the account.
func TestSignInSaysWhatIsApproved(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, approvaltest.Options{})
		l := e.createLink(`{"project":"alpha"}`)
		if got, want := signInLead(t, e.browser(), l.ApprovalURL), "Entre para aprovar «Excluir projeto» pedido por «"+approvaltest.ClientID+"»."; got != want {
			t.Errorf("pt-BR: %q, want %q", got, want)
		}
		en := e.browser()
		en.lang = "en-US,en;q=0.9"
		if got, want := signInLead(t, en, l.ApprovalURL), "Sign in to approve “Delete a project”, asked for by “"+approvaltest.ClientID+"”."; got != want {
			t.Errorf("en: %q, want %q", got, want)
		}
		if got, want := signInLead(t, e.browser(), e.srv.URL+approval.PathPrefix+"0190aaaa-0000-7000-8000-000000000000"), "Entre na sua conta «"+approvaltest.ProductName+"»."; got != want {
			t.Errorf("unknown id: %q, want %q", got, want)
		}
		b := e.browser()
		p := b.open(l.ApprovalURL, approvaltest.OwnerEmail, approvaltest.OwnerPassword)
		b.decide(p, l.ApprovalURL, "cancelar")
		if got, want := signInLead(t, e.browser(), l.ApprovalURL), "Entre para ver o que aconteceu com «Excluir projeto»."; got != want {
			t.Errorf("decided: %q, want %q", got, want)
		}
	})
}

var (
	progressStateRE = regexp.MustCompile(`id="progress" data-state="([a-z_]+)"`)
	refreshRE       = regexp.MustCompile(`<meta http-equiv="refresh"`)
)

// TestPageTellsWhatTheCallStarted: a call that succeeded but only queued
// work (projects_export, like Kadu's kadu_tasks_run) is not "done": the
// page says the call ran, where the work stands now (read afresh on every
// visit), where to follow it, and reloads itself until that work ends;
// then it says how it ended and stops reloading. The same in English.
func TestPageTellsWhatTheCallStarted(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, approvaltest.Options{})
		l := e.link(e.do(call{tool: "projects_export", arguments: `{"project":"beta"}`}))
		b := e.browser()
		p := b.open(l.ApprovalURL, approvaltest.OwnerEmail, approvaltest.OwnerPassword)
		if !strings.Contains(p.body, "Exportar projeto") {
			t.Fatalf("pending page:\n%s", p.body)
		}
		b.decide(p, l.ApprovalURL, "continuar")
		a := e.waitStatus(l.ApprovalID, approval.StatusSucceeded)
		exportID := "exp-beta-1"
		if !strings.Contains(a.ResultText(), exportID) {
			t.Fatalf("result %q", a.ResultText())
		}

		queued := b.get(l.ApprovalURL)
		for _, want := range []string{`data-status="succeeded"`, "Ação iniciada", "ainda não terminou", "Na fila", "a exportação " + exportID,
			`href="` + e.srv.URL + approvaltest.ExportFollowPath + exportID + `"`, "projects://exports/" + exportID, "Esta página se atualiza sozinha"} {
			if !strings.Contains(queued.body, want) {
				t.Errorf("queued: the page lacks %q", want)
			}
		}
		for _, lie := range []string{"Ação executada", "com sucesso", "Ação concluída"} {
			if strings.Contains(queued.body, lie) {
				t.Errorf("queued: the page says %q while the export is only queued:\n%s", lie, queued.body)
			}
		}
		if m := progressStateRE.FindStringSubmatch(queued.body); m == nil || m[1] != "queued" || !refreshRE.MatchString(queued.body) {
			t.Errorf("queued: state %v, reloading %v", m, refreshRE.MatchString(queued.body))
		}

		e.srv.Projects.SetExport(exportID, approval.WorkRunning)
		running := b.get(l.ApprovalURL)
		if !strings.Contains(running.body, "Em execução") || !refreshRE.MatchString(running.body) {
			t.Errorf("running: %s", running.body)
		}
		en := e.browser()
		en.lang = "en"
		enPage := en.open(l.ApprovalURL, approvaltest.OwnerEmail, approvaltest.OwnerPassword)
		for _, want := range []string{`<html lang="en">`, "Action started", "has not finished yet", "Running", "export " + exportID, "Export a project"} {
			if !strings.Contains(enPage.body, want) {
				t.Errorf("en running: the page lacks %q", want)
			}
		}

		e.srv.Projects.SetExport(exportID, approval.WorkSucceeded)
		done := b.get(l.ApprovalURL)
		if m := progressStateRE.FindStringSubmatch(done.body); m == nil || m[1] != "succeeded" || refreshRE.MatchString(done.body) || !strings.Contains(done.body, "Ação concluída") {
			t.Errorf("done: state %v, reloading %v:\n%s", m, refreshRE.MatchString(done.body), done.body)
		}
		e.srv.Projects.SetExport(exportID, approval.WorkFailed)
		failed := b.get(l.ApprovalURL)
		if !strings.Contains(failed.body, "terminou sem sucesso") || refreshRE.MatchString(failed.body) {
			t.Errorf("failed:\n%s", failed.body)
		}

		// A call whose answer starts nothing says it is done, as before.
		l2 := e.createLink(`{"project":"alpha"}`)
		p2 := b.get(l2.ApprovalURL)
		b.decide(p2, l2.ApprovalURL, "continuar")
		e.waitStatus(l2.ApprovalID, approval.StatusSucceeded)
		if d := b.get(l2.ApprovalURL); !strings.Contains(d.body, "Ação executada") || strings.Contains(d.body, `id="progress"`) || refreshRE.MatchString(d.body) {
			t.Errorf("a plain call:\n%s", d.body)
		}
	})
}

// TestPagesInEnglish: a browser that prefers English gets every approval
// page in English, the pending page's expiry in minutes and as a time,
// and error pages too.
func TestPagesInEnglish(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, approvaltest.Options{})
		l := e.createLink(`{"project":"alpha"}`)
		b := e.browser()
		b.lang = "en-GB,en;q=0.8"
		p := b.open(l.ApprovalURL, approvaltest.OwnerEmail, approvaltest.OwnerPassword)
		for _, want := range []string{`<html lang="en">`, "Approve an action", "Delete a project", "Waiting for your decision", ">Continue<", ">Cancel<",
			"in 10 minutes", "Nothing runs before you choose Continue"} {
			if !strings.Contains(p.body, want) {
				t.Errorf("en pending page lacks %q", want)
			}
		}
		if p.header.Get("Content-Language") != "en" {
			t.Errorf("Content-Language %q", p.header.Get("Content-Language"))
		}
		pt := e.browser()
		ptPage := pt.open(l.ApprovalURL, approvaltest.OwnerEmail, approvaltest.OwnerPassword)
		for _, want := range []string{`<html lang="pt-BR">`, "em 10 minutos", "Excluir projeto", `<p class="what" id="message" lang="en">`} {
			if !strings.Contains(ptPage.body, want) {
				t.Errorf("pt-BR pending page lacks %q", want)
			}
		}
		bad := b.decide(p, l.ApprovalURL, "maybe")
		if bad.status != http.StatusBadRequest || !strings.Contains(bad.body, "Choose Continue or Cancel. Nothing was run.") {
			t.Errorf("a bad decision in English: %d\n%s", bad.status, bad.body)
		}
		other := e.browser()
		other.lang = "en"
		if nf := other.open(l.ApprovalURL, approvaltest.OtherEmail, approvaltest.OtherPassword); nf.status != http.StatusNotFound || !strings.Contains(nf.body, "Approval not found") {
			t.Errorf("another person's approval in English: %d\n%s", nf.status, nf.body)
		}
	})
}
