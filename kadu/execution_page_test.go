package kadu

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/kadu/runtime"
	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/oauth/server"
	"github.com/kobana/kobana-mcp/oauth/server/sqlstore"
	"github.com/kobana/kobana-mcp/platform/blob/blobtest"
	"github.com/kobana/kobana-mcp/platform/pagetext"
	"github.com/kobana/kobana-mcp/platform/pagetext/pagetexttest"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit/producttest"
)

// pageEnv is Kadu with the test tools, the built-in sign-in and a
// registered OAuth client whose tokens start executions.
type pageEnv struct {
	*runtimeEnv
	clientID string
}

// scriptList is alpha_list's answer in these tests: boletos whose payer is
// markup, and enough of them that the page cuts the result.
const scriptList = `{"data":[{"id":"b1","amount":10.5,"payer":"<script>alert('pwned')</script>"},` +
	`{"id":"b2","amount":3,"payer":"Beta"},{"id":"b3","amount":4,"payer":"Gama Comércio de Papéis Ltda"},` +
	`{"id":"b4","amount":5,"payer":"Delta Serviços Financeiros S.A."},{"id":"b5","amount":6,"payer":"Épsilon Distribuidora"},` +
	`{"id":"b6","amount":7,"payer":"Zeta Construções e Reformas"},{"id":"b7","amount":8,"payer":"Eta Transportes"}],"meta":{"next_cursor":null}}`

func startPages(t *testing.T, db *store.DB) *pageEnv {
	t.Helper()
	return startPagesWith(t, db, Config{})
}

func startPagesWith(t *testing.T, db *store.DB, cfg Config) *pageEnv {
	t.Helper()
	e := &pageEnv{runtimeEnv: startRuntimeWith(t, db, cfg, producttest.Options{SignIn: true}), clientID: "planilha-" + store.NewID()}
	e.cat.listAnswer = scriptList
	// A client registered with a name that is markup too: the page shows
	// it as text.
	if err := sqlstore.New(db).CreateClient(e.ctx, &server.ClientRecord{ID: e.clientID, Name: "Planilha <b>Financeira</b>",
		RedirectURIs: []string{"http://127.0.0.1/cb"}, GrantTypes: []string{"authorization_code"}, ResponseTypes: []string{"code"},
		TokenEndpointAuthMethod: "none", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	return e
}

// runAsClient runs a task through the API as the member, with a token the
// registered client holds, and returns the execution's id.
func (e *pageEnv) runAsClient(taskID string, input map[string]any) string {
	e.t.Helper()
	if input == nil {
		input = map[string]any{}
	}
	tok, _, err := e.Issuer.Issue(oauth.Grant{Subject: e.member.ID, UserID: e.member.ID, OrganizationID: e.Mine.ID, ClientID: e.clientID,
		Audience: e.URL + APIBase, Scopes: Spec().Scopes(), TTL: time.Hour})
	if err != nil {
		e.t.Fatal(err)
	}
	code, body := e.DoToken(tok, "POST", APIBase+"/tasks/"+taskID+"/run", map[string]any{"input": input})
	var out struct{ Data struct{ ID string } }
	if code != http.StatusAccepted || json.Unmarshal([]byte(body), &out) != nil || out.Data.ID == "" {
		e.t.Fatalf("run: %d %s", code, body)
	}
	return out.Data.ID
}

// signedIn is a browser signed in as the organization's owner, who did not
// start the executions: any member may read them.
func (e *pageEnv) signedIn(path string) (*producttest.Browser, producttest.Page) {
	e.t.Helper()
	b := e.Browser()
	return b, b.Open(e.URL+path, e.Owner.Email)
}

var (
	stepIDRE  = regexp.MustCompile(`<li class="step" id="step-(\d+)"`)
	refreshRE = regexp.MustCompile(`<meta http-equiv="refresh" content="\d+">`)
)

// TestExecutionPageShowsASucceededRun: a workflow run through the API by a
// registered client; the owner (not the person who ran it) signs in and
// reads the task, who started it through which client, each step in order
// with its tool, arguments and result — a result holding <script> shows
// as text, and the client's name too — cut with links to each step's
// whole JSON, the cost against the ceiling, and no reload once it ended;
// the step's JSON route has the whole result; the page speaks English to
// a browser that asks.
func TestExecutionPageShowsASucceededRun(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startPages(t, db)
		task := e.task(threeSteps())
		month := strings.Repeat("2026-03 ", 60) // 480 characters: the page cuts the arguments
		id := e.runAsClient(task.ID, map[string]any{"month": month})
		x := e.wait(id, records.ExecSucceeded)
		if deref(x.ClientID) != e.clientID {
			t.Fatalf("the execution's client %q, want %q", deref(x.ClientID), e.clientID)
		}

		_, p := e.signedIn(ExecutionPagePrefix + id)
		if p.Status != http.StatusOK {
			t.Fatalf("page: %d\n%s", p.Status, p.Body)
		}
		for _, want := range []string{
			`<html lang="pt-BR">`, `data-status="succeeded"`, ">Concluída<", "Cobranças do mês",
			`<dd id="started-by">member@mine.example, pela API, com o aplicativo «Planilha &lt;b&gt;Financeira&lt;/b&gt;»</dd>`,
			`<code class="tool">alpha_list</code>`, `<code class="tool">alpha_record</code>`,
			"&lt;script&gt;alert(", "Cortado aqui.",
			`href="/executions/` + id + `/steps/1"`, `href="/executions/` + id + `/steps/2"`, `href="/executions/` + id + `/json"`,
			`<span id="cost">R$ 0,00 de um teto de R$ `, `<meter id="cost-meter"`,
		} {
			if !strings.Contains(p.Body, want) {
				t.Errorf("the page lacks %q", want)
			}
		}
		if strings.Contains(strings.ToLower(p.Body), "<script") || strings.Contains(p.Body, "<b>") {
			t.Errorf("the page carries markup from the data:\n%s", p.Body)
		}
		if refreshRE.MatchString(p.Body) || strings.Contains(p.Body, `id="reloads"`) {
			t.Error("a succeeded execution's page reloads itself")
		}
		var seqs []string
		for _, m := range stepIDRE.FindAllStringSubmatch(p.Body, -1) {
			seqs = append(seqs, m[1])
		}
		if strings.Join(seqs, ",") != "1,2,3" {
			t.Errorf("steps on the page %v, want 1,2,3 in order (the third recorded as skipped)", seqs)
		}
		if got := p.Header.Get("Content-Security-Policy"); got != "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'" {
			t.Errorf("CSP %q", got)
		}
		if p.Header.Get("X-Frame-Options") != "DENY" || p.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("headers %v", p.Header)
		}

		// The step's whole JSON: the result the page cut, with the script
		// as a JSON string (escaped, never sniffed as HTML).
		b, _ := e.signedIn(ExecutionPagePrefix + id)
		sj := b.Get(ExecutionPagePrefix + id + "/steps/1")
		var step struct{ Data stepJSON }
		if sj.Status != http.StatusOK || !strings.HasPrefix(sj.Header.Get("Content-Type"), "application/json") ||
			sj.Header.Get("X-Content-Type-Options") != "nosniff" || json.Unmarshal([]byte(sj.Body), &step) != nil {
			t.Fatalf("step JSON: %d %v\n%s", sj.Status, sj.Header, sj.Body)
		}
		full := deref(step.Data.ResultSummary)
		shown, wasCut := cut(full)
		if step.Data.Seq != 1 || !wasCut || len(full) <= len(shown) || !strings.Contains(full, "<script>alert('pwned')</script>") ||
			!strings.Contains(full, "Eta Transportes") || strings.Contains(sj.Body, "<script") {
			t.Errorf("step JSON %+v (raw %s)", step.Data, sj.Body)
		}
		if strings.Contains(p.Body, "Eta Transportes") {
			t.Error("the page shows the end of a result it says it cut")
		}
		if args := string(step.Data.Arguments); !strings.Contains(args, month) {
			t.Errorf("step JSON arguments %s", args)
		}
		if r := b.Get(ExecutionPagePrefix + id + "/steps/9"); r.Status != http.StatusNotFound {
			t.Errorf("a step that does not exist: %d", r.Status)
		}
		ej := b.Get(ExecutionPagePrefix + id + "/json")
		var ex struct{ Data executionJSON }
		if ej.Status != http.StatusOK || json.Unmarshal([]byte(ej.Body), &ex) != nil || ex.Data.ID != id || ex.Data.Status != records.ExecSucceeded {
			t.Errorf("execution JSON: %d %s", ej.Status, ej.Body)
		}

		// English, by Accept-Language.
		b.AcceptLanguage = "en-US,en;q=0.9"
		en := b.Get(ExecutionPagePrefix + id)
		for _, want := range []string{`<html lang="en">`, ">Succeeded<", "Steps", "through the API, with the application “Planilha &lt;b&gt;Financeira&lt;/b&gt;”",
			"R$ 0.00 of a R$ ", "Cut here."} {
			if !strings.Contains(en.Body, want) {
				t.Errorf("English page lacks %q", want)
			}
		}
		if en.Header.Get("Content-Language") != "en" {
			t.Errorf("Content-Language %q", en.Header.Get("Content-Language"))
		}
	})
}

// TestExecutionPageFollowsARun: while an execution runs the page says so
// and reloads itself, with the step in progress; one that waits for an
// approval shows what it waits for, links the approval and lists it as
// pending for the person who started it, and that approval's page links
// back to the execution's; once approved and done, the
// approval shows as decided and the page stops reloading; a failed one
// says why.
func TestExecutionPageFollowsARun(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startPages(t, db)
		release := make(chan struct{})
		entered := make(chan struct{}, 1)
		e.cat.hook = func(ctx context.Context, tool string) error {
			if tool == "alpha_list" {
				select {
				case entered <- struct{}{}:
				default:
				}
				select {
				case <-release:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			return nil
		}
		body := map[string]any{"name": "Limpar", "allowed_tools": []string{"alpha_list", "alpha_delete"},
			"steps": []map[string]any{
				{"id": "list", "tool": "alpha_list"},
				{"id": "del", "tool": "alpha_delete", "arguments": map[string]any{"id": "{{steps.list.data[1].id}}"}},
			}}
		task := e.task(body)
		id := e.runAsClient(task.ID, nil)
		select {
		case <-entered:
		case <-time.After(30 * time.Second):
			t.Fatal("alpha_list was never called")
		}
		b, p := e.signedIn(ExecutionPagePrefix + id)
		for _, want := range []string{`data-status="running"`, ">Em execução<", `id="reloads"`, `data-status="started"`, ">Em andamento<"} {
			if !strings.Contains(p.Body, want) {
				t.Errorf("running: the page lacks %q\n%s", want, p.Body)
			}
		}
		if !refreshRE.MatchString(p.Body) {
			t.Error("running: the page does not reload itself")
		}
		close(release)

		x := e.wait(id, records.ExecWaitingApproval)
		aid := deref(x.ApprovalID)
		p = b.Get(ExecutionPagePrefix + id)
		for _, want := range []string{`data-status="waiting_approval"`, `id="waiting" data-kind="approval"`, `<code id="waiting-tool">alpha_delete</code>`,
			"Delete charge b2? This cannot be undone.", `href="/approvals/` + aid + `"`, `<tr data-status="pending">`,
			`<td class="approval-person">member@mine.example</td>`, "Aguardando decisão"} {
			if !strings.Contains(p.Body, want) {
				t.Errorf("waiting: the page lacks %q", want)
			}
		}
		if !refreshRE.MatchString(p.Body) {
			t.Error("waiting: the page does not reload itself")
		}

		// The step's approval page, for the person who ran it, links the
		// execution's page: what it did before this step.
		if err := e.Acc.SetPassword(e.ctx, e.member.ID, producttest.Password); err != nil {
			t.Fatal(err)
		}
		ap := e.Browser().Open(e.URL+"/approvals/"+aid, e.member.Email)
		if want := `<a id="requester-page" href="` + e.URL + ExecutionPagePrefix + id + `">(veja o que ela já fez)</a>`; ap.Status != http.StatusOK || !strings.Contains(ap.Body, want) {
			t.Errorf("the step's approval page lacks %q:\n%s", want, ap.Body)
		}
		a, err := e.svc.approvals.Get(e.ctx, aid)
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := e.svc.approvals.Approve(e.ctx, aid, e.member.ID); !ok || err != nil {
			t.Fatal(ok, err)
		}
		if err := e.svc.runtime.ApprovalDecided(e.ctx, a); err != nil {
			t.Fatal(err)
		}
		e.wait(id, records.ExecSucceeded)
		p = b.Get(ExecutionPagePrefix + id)
		if strings.Contains(p.Body, `id="waiting"`) || refreshRE.MatchString(p.Body) || !strings.Contains(p.Body, `<tr data-status="succeeded">`) ||
			!strings.Contains(p.Body, ">Aprovada<") || regexp.MustCompile(`<td class="approval-decided"></td>`).MatchString(p.Body) {
			t.Errorf("after the approval:\n%s", p.Body)
		}

		// A failed run says why.
		e.cat.hook = nil
		e.cat.fail["alpha_list"] = true
		failed := e.runAsClient(task.ID, nil)
		x = e.wait(failed, records.ExecFailed)
		p = b.Get(ExecutionPagePrefix + failed)
		for _, want := range []string{`data-status="failed"`, ">Falhou<", `<code id="error-code">` + deref(x.ErrorCode) + `</code>`, `class="step-error"`} {
			if !strings.Contains(p.Body, want) {
				t.Errorf("failed: the page lacks %q\n%s", want, p.Body)
			}
		}
		if refreshRE.MatchString(p.Body) {
			t.Error("failed: the page reloads itself")
		}
	})
}

// TestExecutionPageIsTheOrganizations: without a session the page (and
// its JSON routes) sends the browser to sign in, whose page says what for
// and comes back; a member of another organization gets exactly the 404
// an unknown id gets, on the page and on its JSON, step and file routes.
func TestExecutionPageIsTheOrganizations(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startPages(t, db)
		id := e.runAsClient(e.task(threeSteps()).ID, map[string]any{"month": "2026-03"})
		e.wait(id, records.ExecSucceeded)
		path := ExecutionPagePrefix + id

		for _, p := range []string{path, path + "/json", path + "/steps/1", path + "/files/x"} {
			r := e.Browser().Get(p)
			loc, want := r.Header.Get("Location"), server.PathSignIn+"?"+url.Values{"next": []string{p}}.Encode()
			if r.Status != http.StatusSeeOther || loc != want {
				t.Errorf("%s without a session: %d to %q", p, r.Status, loc)
			}
		}
		b := e.Browser()
		signIn := b.Get(b.Get(path).Header.Get("Location"))
		if want := "Entre para ver a execução " + id + "."; !strings.Contains(signIn.Body, want) || signIn.Hidden().Get("next") != path {
			t.Errorf("the sign-in page lacks %q or does not return to %s:\n%s", want, path, signIn.Body)
		}
		if p := b.Open(e.URL+path, e.Owner.Email); p.Status != http.StatusOK || !strings.Contains(p.Body, `data-status="succeeded"`) {
			t.Errorf("after sign-in: %d", p.Status)
		}

		theirs := e.Browser()
		unknown := theirs.Open(e.URL+ExecutionPagePrefix+store.NewID(), e.Other.Email)
		if unknown.Status != http.StatusNotFound || !strings.Contains(unknown.Body, "Execução não encontrada") {
			t.Fatalf("unknown id: %d\n%s", unknown.Status, unknown.Body)
		}
		for _, p := range []string{path, path + "/json", path + "/steps/1"} {
			r := theirs.Get(p)
			if r.Status != http.StatusNotFound || r.Body != unknown.Body || strings.Contains(r.Body, "Cobranças") {
				t.Errorf("another organization's %s: %d\n%s", p, r.Status, r.Body)
			}
		}
		if r := theirs.Get(path + "/files/" + store.NewID()); r.Status != http.StatusNotFound {
			t.Errorf("another organization's file: %d", r.Status)
		}
	})
}

// TestExecutionPageAgentFilesAndCost: an agent's run shows each model
// call's cost and tokens, the total against the ceiling, and the output
// file it wrote, whose link sends the browser to a fresh download URL of
// the files routes that serves the file; another execution's file id
// under this execution is a 404.
func TestExecutionPageAgentFilesAndCost(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		m := newFakeModel(t)
		m.script(
			callTools([3]int{1000, 100, 0}, runtime.ToolWriteOutput, `{"filename":"resumo <março>.csv","content_type":"text/csv","content":"boleto;valor\nb1;10,50\n"}`),
			answer([3]int{2000, 50, 0}, "Resumo escrito."),
		)
		cfg := agentConfig(m)
		cfg.Files = FilesConfig{bucket: blobtest.Dir(t), URLSecret: "page files secret"}
		e := startPagesWith(t, db, cfg)
		id := e.runAsClient(e.task(agentTask("alpha_list")).ID, nil)
		x := e.wait(id, records.ExecSucceeded)
		outs, err := records.ExecutionOutputs(e.ctx, db, e.Mine.ID, id)
		if err != nil || len(outs) != 1 || x.CostCents == 0 {
			t.Fatalf("outputs %v %v, cost %d", outs, err, x.CostCents)
		}
		b, p := e.signedIn(ExecutionPagePrefix + id)
		fileLink := ExecutionPagePrefix + id + "/files/" + outs[0].ID
		for _, want := range []string{`<a href="` + fileLink + `" download>resumo &lt;março&gt;.csv</a>`, "· Chamada ao modelo <span", "R$ 0,02 · 1.000 tokens de entrada, 100 de saída, 0 em cache",
			"tokens de entrada", `<span id="cost">` + brl(pagetext.ForHeader("pt-BR"), x.CostCents) + " de um teto de " + brl(pagetext.ForHeader("pt-BR"), x.MaxCostCents) + `</span>`,
			`<code class="tool">` + runtime.ToolWriteOutput + `</code>`} {
			if !strings.Contains(p.Body, want) {
				t.Errorf("the page lacks %q\n%s", want, p.Body)
			}
		}
		r := b.Get(fileLink)
		loc := r.Header.Get("Location")
		if r.Status != http.StatusSeeOther || loc == "" {
			t.Fatalf("download: %d %q", r.Status, loc)
		}
		if got := b.Get(loc); got.Status != http.StatusOK || got.Body != "boleto;valor\nb1;10,50\n" {
			t.Errorf("the download URL: %d %q", got.Status, got.Body)
		}
		other := e.runAsClient(e.task(threeSteps()).ID, map[string]any{"month": "2026-03"})
		e.wait(other, records.ExecSucceeded, records.ExecFailed)
		if r := b.Get(ExecutionPagePrefix + other + "/files/" + outs[0].ID); r.Status != http.StatusNotFound {
			t.Errorf("a file of another execution: %d", r.Status)
		}
	})
}

// TestExecutionPageUnknownStatus: a status the page has no words for (one
// added later, a budget's pause) shows as "in another state" with its
// code, and the page goes on reloading, since it has not ended.
func TestExecutionPageUnknownStatus(t *testing.T) {
	t.Parallel()
	for _, lang := range []string{"pt-BR", "en"} {
		p := &executionPages{s: &service{log: slog.New(slog.DiscardHandler)}}
		req := httptest.NewRequest("GET", "/executions/x", nil)
		req.Header.Set("Accept-Language", lang)
		vw := &execView{Kind: "execution", L: pagetext.For(req), ID: "x", Title: "t", TaskName: "<i>t</i>"}
		vw.setStatus("waiting_budget")
		w := httptest.NewRecorder()
		p.render(w, http.StatusOK, vw)
		out := w.Body.String()
		other := map[string]string{"pt-BR": "Em outra situação", "en": "In another state"}[lang]
		if !strings.Contains(out, `class="status other" data-status="waiting_budget">`+other) || !strings.Contains(out, "waiting_budget") ||
			!refreshRE.MatchString(out) || !strings.Contains(out, "&lt;i&gt;t&lt;/i&gt;") {
			t.Errorf("%s: %s", lang, out)
		}
	}
}

// TestBRL: amounts in reais as each language writes them.
func TestBRL(t *testing.T) {
	t.Parallel()
	pt, en := pagetext.ForHeader("pt-BR"), pagetext.ForHeader("en")
	for _, c := range []struct {
		cents  int64
		pt, en string
	}{{0, "R$ 0,00", "R$ 0.00"}, {5, "R$ 0,05", "R$ 0.05"}, {100000, "R$ 1.000,00", "R$ 1,000.00"},
		{123456789, "R$ 1.234.567,89", "R$ 1,234,567.89"}, {-4050, "R$ -40,50", "R$ -40.50"}} {
		if got := brl(pt, c.cents); got != c.pt {
			t.Errorf("brl(pt, %d) = %q, want %q", c.cents, got, c.pt)
		}
		if got := brl(en, c.cents); got != c.en {
			t.Errorf("brl(en, %d) = %q, want %q", c.cents, got, c.en)
		}
	}
}

// TestExecutionTemplateHoldsNoWords: every word a person reads on the
// execution page comes from the catalogue (platform/pagetext), the
// page's phrases, or the execution's data.
func TestExecutionTemplateHoldsNoWords(t *testing.T) {
	t.Parallel()
	raw, err := pagetexttest.RawText(executionTemplateFiles, "templates/*.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range raw {
		t.Errorf("words written in a template instead of the catalogue: %s", r)
	}
}

// TestEveryExecutionPageInOneLanguage renders the page in each status it
// knows and one it does not, with a step of every kind and status, an
// approval in every status, a wait, an error, output and a file, in both
// languages, and finds in each only its own language.
func TestEveryExecutionPageInOneLanguage(t *testing.T) {
	t.Parallel()
	p := &executionPages{s: &service{log: slog.New(slog.DiscardHandler)}, loc: time.UTC}
	statuses := []string{"waiting_budget"}
	for st := range executionLabels {
		statuses = append(statuses, st)
	}
	for _, l := range []*pagetext.Printer{pagetext.In(pagetext.PortugueseBR), pagetext.In(pagetext.English)} {
		at := l.Time(time.Date(2026, 3, 14, 18, 4, 5, 0, time.UTC), time.UTC)
		var steps []stepView
		seq := 0
		for kind := range stepKinds {
			for st := range stepStatuses {
				seq++
				s := p.step(l, "/executions/e1", &records.Step{Seq: seq, Kind: kind, ToolName: ptr("alpha_list"), ArgumentsJSON: ptr(`{"id": "b1"}`),
					ResultSummary: ptr(`{"data": []}`), Status: st, ErrorMessage: ptr("conflict"), CostCents: 12, DurationMS: 1500,
					TokensIn: 1000, TokensOut: 20, FinishedAt: ptr(time.Now())})
				s.ArgumentsCut, s.Cut = true, true
				steps = append(steps, s)
			}
		}
		var approvals []approvalView
		for st, ph := range approvalStatuses {
			approvals = append(approvals, approvalView{Tool: "alpha_delete", Status: string(st), StatusLabel: l.Pick(ph), Person: "ana@acme.example", Asked: at, Decided: at, URL: "/approvals/a1"})
		}
		for _, st := range statuses {
			vw := &execView{Kind: "execution", L: l, ID: "e1", TaskName: "Boletos", TaskMode: l.Pick(taskModes[records.ModeAgent]),
				StartedBy: l.Say(pagetext.KeyExecutionByClient, "ana@acme.example", "Claude"), Created: at, Started: at, Finished: at,
				Cost: brl(l, 1234), Ceiling: brl(l, 100000), CostCents: 1234, CeilingCents: 100000, Tokens: l.Say(pagetext.KeyExecutionTokens, 1, 2, 3),
				ErrorCode: "step_failed", ErrorMessage: "conflict", Steps: steps, MoreSteps: 3, Approvals: approvals,
				Waiting: &waitView{Kind: "approval", Question: "?", Tool: "alpha_delete", Message: "b2", ApprovalURL: "/approvals/a1", Until: at, Other: `{"kind": "x"}`},
				Files:   []fileView{{Name: "resumo.csv", Size: l.Say(pagetext.KeyExecutionBytes, 22), URL: "/executions/e1/files/f1"}},
				Output:  `{"answer": "ok"}`, OutputCut: true, JSONURL: "/executions/e1/json"}
			vw.Title = l.Say(pagetext.KeyExecutionPageTitle, vw.TaskName)
			vw.setStatus(st)
			views := []*execView{vw}
			for _, m := range [][2]pagetext.Key{{pagetext.KeyExecutionNotFoundTitle, pagetext.KeyExecutionNotFound},
				{pagetext.KeyExecutionNotFoundTitle, pagetext.KeyExecutionStepNotFound}, {pagetext.KeyExecutionNotFoundTitle, pagetext.KeyExecutionFileNotFound},
				{pagetext.KeyErrorTitle, pagetext.KeyErrorServer}} {
				views = append(views, &execView{Kind: "message", L: l, Title: l.Say(m[0]), Text: l.Say(m[1])})
			}
			for _, v := range views {
				w := httptest.NewRecorder()
				p.render(w, 200, v)
				body := w.Body.String()
				name := l.Lang() + " " + v.Kind + " " + st + " " + v.Title
				if w.Code != 200 {
					t.Fatalf("%s: %d %s", name, w.Code, body)
				}
				if got := pagetexttest.Lang(body); got != l.Lang() {
					t.Errorf("%s: <html lang=%q>", name, got)
				}
				text := pagetexttest.Visible(body)
				for _, m := range pagetexttest.OtherLanguage(text, l.Tag()) {
					t.Errorf("%s shows a message of the other language: %s", name, m)
				}
				if words := pagetexttest.ForeignWords(text, l.Tag()); len(words) > 0 {
					t.Errorf("%s has words of the other language %q in: %s", name, words, text)
				}
			}
		}
	}
}

func ptr[T any](v T) *T { return &v }

// TestPrettyData: JSON indented in its own order, Go's HTML escapes shown
// as their characters (an escaped backslash before one left alone), and
// text left as it is.
func TestPrettyData(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"b":1,"a":"\u003cscript\u003e\u0026"}`: "{\n  \"b\": 1,\n  \"a\": \"<script>&\"\n}",
		`["\\u003c","\\\u003c"]`:                 "[\n  \"\\\\u003c\",\n  \"\\\\<\"\n]",
		`not json <b>`:                           `not json <b>`,
	} {
		if got := prettyData(in); got != want {
			t.Errorf("prettyData(%s) = %q, want %q", in, got, want)
		}
	}
}
