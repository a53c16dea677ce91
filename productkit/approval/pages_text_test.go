package approval

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/pagetext"
	"github.com/kobana/kobana-mcp/platform/pagetext/pagetexttest"
)

// TestTemplatesHoldNoWords: every word a person reads on the approval pages
// comes from the catalogue (platform/pagetext) or from data.
func TestTemplatesHoldNoWords(t *testing.T) {
	t.Parallel()
	raw, err := pagetexttest.RawText(templateFiles, "templates/*.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range raw {
		t.Errorf("words written in a template instead of the catalogue: %s", r)
	}
}

// TestEveryApprovalPageInOneLanguage renders every kind of approval page
// — pending, each status, work started in each state, a message — in both
// languages, and finds in each only its own language: <html lang>, none
// of the other language's messages, none of its common words. The
// product's own text written in the other language (the catalog's English
// confirmation message) is marked with its lang and left out.
func TestEveryApprovalPageInOneLanguage(t *testing.T) {
	t.Parallel()
	p := &Policy{opts: Options{ProductName: "Kadu", CatalogLanguage: "en"}}
	for _, l := range []*pagetext.Printer{pagetext.In(pagetext.PortugueseBR), pagetext.In(pagetext.English)} {
		base := view{L: l, Client: "Claude", ToolName: "kadu_tasks_run", ToolTitle: l.Pick(pagetext.Phrase{PT: "Executar tarefa", EN: "Run a task"}), MessageLang: otherLang(l, "en"),
			DeclaredClient: "Claude Desktop 0.9", RequesterPage: "https://kadu.example/executions/e1", Email: "ana@acme.example", Message: "Run task 'Boletos' (id t1)? It cannot be undone.",
			Arguments: `{"task_id": "t1"}`, ExpiresAt: l.Time(time.Date(2026, 3, 14, 18, 4, 5, 0, time.UTC), time.UTC)}
		var views []view
		pending := base
		pending.Kind, pending.Status, pending.Title, pending.Action, pending.CSRF, pending.ExpiresIn = "approve", "pending", l.Say(pagetext.KeyApprovalPageTitle), "/approvals/x", "tok", l.Minutes(10*time.Minute)
		views = append(views, pending)
		for st, sp := range statusPages {
			v := base
			v.Kind, v.Status, v.Title, v.StatusLabel, v.Text, v.Refresh, v.Result = "status", string(st), l.Say(sp.title), l.Say(sp.label), l.Say(sp.text), !st.Final(), `{"id": "e1"}`
			views = append(views, v)
		}
		for _, w := range []WorkState{WorkQueued, WorkRunning, WorkWaiting, WorkWaitingInput, WorkWaitingApproval, WorkWaitingBudget, WorkSucceeded, WorkFailed, WorkCancelled} {
			sp := startedPage(w)
			v := base
			v.Kind, v.Status, v.Title, v.StatusLabel, v.Text, v.Refresh = "status", "succeeded", l.Say(sp.title), l.Say(sp.label), l.Say(sp.text), !w.Final()
			v.Progress = newProgressView(l, &Progress{What: pagetext.Phrase{PT: "a execução e1", EN: "execution e1"}, State: w,
				Note: pagetext.Phrase{PT: "O teto de custo foi atingido.", EN: "Its cost ceiling was reached."}, FollowURL: "https://kadu.example/api/v1/executions/e1", Resource: "kobana://kadu/executions/e1"})
			views = append(views, v)
		}
		for _, m := range [][2]pagetext.Key{{pagetext.KeyApprovalNotFoundTitle, pagetext.KeyApprovalNotFound}, {pagetext.KeyApprovalCrossSiteTitle, pagetext.KeyApprovalCrossSite},
			{pagetext.KeyApprovalFormExpiredTitle, pagetext.KeyApprovalFormExpired}, {pagetext.KeyApprovalChooseTitle, pagetext.KeyApprovalChoose},
			{pagetext.KeyErrorTitle, pagetext.KeyErrorServer}, {pagetext.KeyErrorTitle, pagetext.KeyApprovalFormUnreadable}} {
			views = append(views, view{Kind: "message", L: l, Title: l.Say(m[0]), Text: l.Say(m[1])})
		}
		for _, v := range views {
			w := httptest.NewRecorder()
			p.render(w, 200, v)
			body := w.Body.String()
			name := l.Lang() + " " + v.Kind + " " + v.Status + " " + v.Title
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
			if v.Kind == "approve" && !strings.Contains(body, `id="continuar"`) {
				t.Errorf("%s: no Continuar", name)
			}
		}
	}
}
