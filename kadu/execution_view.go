package kadu

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/pagetext"
	"github.com/kobana/kobana-mcp/productkit/approval"
)

// execView is what the execution page shows (execution_page.go). Every
// word is the catalogue's (platform/pagetext) in the request's language;
// the rest is the execution's data, which html/template escapes.
type execView struct {
	Kind             string // execution or message
	L                *pagetext.Printer
	Product          string
	Title, Text      string
	BaseStyle, Style string
	Refresh          int

	ID, Status, StatusLabel string
	// Known is false for a status the page has no words for.
	Known                      bool
	TaskName, TaskMode         string
	StartedBy                  string
	Created, Started, Finished string
	Cost, Ceiling              string
	CostCents, CeilingCents    int64
	Tokens                     string
	ErrorCode, ErrorMessage    string
	Waiting                    *waitView
	Steps                      []stepView
	MoreSteps                  int
	Approvals                  []approvalView
	Files                      []fileView
	Output                     string
	OutputCut                  bool
	JSONURL                    string
}

type stepView struct {
	Seq                   int
	Kind, Tool            string
	Status, StatusLabel   string
	Arguments, Result     string
	ArgumentsCut, Cut     bool
	Error                 string
	Cost, Duration, Model string
	JSONURL               string
}

type approvalView struct {
	Tool, Status, StatusLabel string
	Person, Asked, Decided    string
	URL                       string
}

type waitView struct {
	Kind, Question, Tool, Message, ApprovalURL, Until string
	// Other is the wait's JSON when it is of no kind the page knows.
	Other string
}

type fileView struct {
	Name, Size, URL string
}

// setStatus sets the status the page shows: its words when the page knows
// it; otherwise "in another state" with its code (a status added after
// this page, such as a budget's pause, shows generically). The page of an
// execution that has not ended reloads itself.
func (vw *execView) setStatus(status string) {
	vw.Status = status
	if ph, ok := executionLabels[status]; ok {
		vw.StatusLabel, vw.Known = vw.L.Pick(ph), true
	} else {
		vw.StatusLabel, vw.Known = vw.L.Say(pagetext.KeyExecutionOtherStatus), false
	}
	vw.Refresh = 0
	if !executionFinal[status] {
		vw.Refresh = pageReload
	}
}

// build reads what the page of e shows.
func (p *executionPages) build(r *http.Request, e *records.Execution) (*execView, error) {
	ctx := r.Context()
	l := pagetext.For(r)
	t, err := records.TaskOfExecution(ctx, p.s.db, e)
	if err != nil {
		return nil, err
	}
	base := ExecutionPagePrefix + url.PathEscape(e.ID)
	vw := &execView{Kind: "execution", L: l, ID: e.ID, Status: e.Status, TaskName: t.Name, TaskMode: l.Pick(taskModes[t.Mode]),
		CostCents: e.CostCents, CeilingCents: e.MaxCostCents, Cost: brl(l, e.CostCents), Ceiling: brl(l, e.MaxCostCents),
		Tokens: l.Say(pagetext.KeyExecutionTokens, e.TokensIn, e.TokensOut, e.TokensCached), JSONURL: base + "/json",
		Created: l.Time(e.CreatedAt, p.loc)}
	if vw.TaskMode == "" {
		vw.TaskMode = t.Mode
	}
	vw.Title = l.Say(pagetext.KeyExecutionPageTitle, t.Name)
	vw.setStatus(e.Status)
	if e.StartedAt != nil {
		vw.Started = l.Time(*e.StartedAt, p.loc)
	}
	if e.FinishedAt != nil {
		vw.Finished = l.Time(*e.FinishedAt, p.loc)
	}
	if e.ErrorCode != nil {
		vw.ErrorCode, vw.ErrorMessage = *e.ErrorCode, derefString(e.ErrorMessage)
	}
	vw.StartedBy = p.startedBy(r, l, e)
	vw.Waiting = p.waiting(l, e)
	if e.OutputJSON != nil && *e.OutputJSON != "" && *e.OutputJSON != "null" {
		vw.Output, vw.OutputCut = cut(prettyData(*e.OutputJSON))
	}

	steps, err := records.ListSteps(ctx, p.s.db, e.ID, 0, pageMaxSteps)
	if err != nil {
		return nil, err
	}
	if len(steps) > pageMaxSteps {
		steps = steps[:pageMaxSteps]
		vw.MoreSteps = max(e.StepCount-pageMaxSteps, 1)
	}
	for _, st := range steps {
		vw.Steps = append(vw.Steps, p.step(l, base, st))
	}

	as, err := p.s.approvals.ForOwnerRef(ctx, e.OrganizationID, runtimeApprovalOwner, e.ID)
	if err != nil {
		return nil, err
	}
	for _, a := range as {
		av := approvalView{Tool: a.Tool, Status: string(a.Status), StatusLabel: l.Pick(approvalStatuses[a.Status]), Person: a.Email,
			Asked: l.Time(a.CreatedAt, p.loc), URL: approval.PathPrefix + url.PathEscape(a.ID)}
		if av.StatusLabel == "" {
			av.StatusLabel = string(a.Status)
		}
		if a.DecidedAt != nil {
			av.Decided = l.Time(*a.DecidedAt, p.loc)
		}
		vw.Approvals = append(vw.Approvals, av)
	}

	files, err := records.ExecutionOutputs(ctx, p.s.db, e.OrganizationID, e.ID)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		vw.Files = append(vw.Files, fileView{Name: f.Filename, Size: l.Say(pagetext.KeyExecutionBytes, f.ByteSize),
			URL: base + "/files/" + url.PathEscape(f.ID)})
	}
	return vw, nil
}

var taskModes = map[string]pagetext.Phrase{
	records.ModeWorkflow: {PT: "fluxo de passos", EN: "workflow"},
	records.ModeAgent:    {PT: "agente", EN: "agent"},
}

// step is one step as the page shows it.
func (p *executionPages) step(l *pagetext.Printer, base string, st *records.Step) stepView {
	v := stepView{Seq: st.Seq, Kind: l.Pick(stepKinds[st.Kind]), Tool: derefString(st.ToolName), Status: st.Status,
		StatusLabel: l.Pick(stepStatuses[st.Status]), Error: derefString(st.ErrorMessage), Cost: brl(l, st.CostCents),
		JSONURL: base + "/steps/" + strconv.Itoa(st.Seq)}
	if v.Kind == "" {
		v.Kind = st.Kind
	}
	if v.StatusLabel == "" {
		v.StatusLabel = st.Status
	}
	if st.ArgumentsJSON != nil {
		v.Arguments, v.ArgumentsCut = cut(prettyData(*st.ArgumentsJSON))
	}
	if st.ResultSummary != nil {
		v.Result, v.Cut = cut(prettyData(*st.ResultSummary))
	}
	if st.FinishedAt != nil {
		v.Duration = l.Say(pagetext.KeyExecutionDuration, float64(st.DurationMS)/1000)
	}
	if st.Kind == records.StepLLM {
		v.Model = l.Say(pagetext.KeyExecutionTokens, st.TokensIn, st.TokensOut, st.TokensCached)
	}
	return v
}

// startedBy says who or what started e: the schedule, or the person
// (their e-mail) through the OAuth client whose call queued it, named as
// the sign-in and consent pages name it.
func (p *executionPages) startedBy(r *http.Request, l *pagetext.Printer, e *records.Execution) string {
	if e.Trigger == records.TriggerSchedule {
		at := ""
		if e.TickAt != nil {
			at = l.Time(*e.TickAt, p.loc)
		}
		return l.Say(pagetext.KeyExecutionBySchedule, at)
	}
	person := l.Say(pagetext.KeyExecutionByNobody)
	if e.TriggeredBy != nil {
		person = *e.TriggeredBy
		if u, err := p.s.accounts.GetUser(r.Context(), *e.TriggeredBy); err == nil {
			person = u.Email
		}
	}
	if e.ClientID == nil || *e.ClientID == "" {
		return person
	}
	client := p.signIn.ClientName(r.Context(), l, *e.ClientID)
	if e.Trigger == records.TriggerAPI {
		return l.Say(pagetext.KeyExecutionByAPI, person, client)
	}
	return l.Say(pagetext.KeyExecutionByClient, person, client)
}

// waiting is what e waits for, while it has not ended: the question it
// asked, or the approval (its page on this listener); a wait of a kind
// the page does not know shows its JSON.
func (p *executionPages) waiting(l *pagetext.Printer, e *records.Execution) *waitView {
	if e.WaitingJSON == nil || *e.WaitingJSON == "" || *e.WaitingJSON == "null" || executionFinal[e.Status] {
		return nil
	}
	var w struct {
		Kind       string     `json:"kind"`
		Question   string     `json:"question"`
		Tool       string     `json:"tool"`
		Message    string     `json:"message"`
		ApprovalID string     `json:"approval_id"`
		ExpiresAt  *time.Time `json:"expires_at"`
	}
	_ = json.Unmarshal([]byte(*e.WaitingJSON), &w)
	v := &waitView{Kind: w.Kind, Question: w.Question, Tool: w.Tool, Message: w.Message}
	if w.Question == "" && w.Tool == "" {
		v.Other, _ = cut(prettyData(*e.WaitingJSON))
	}
	if w.ApprovalID != "" {
		v.ApprovalURL = approval.PathPrefix + url.PathEscape(w.ApprovalID)
	}
	if w.ExpiresAt != nil {
		v.Until = l.Time(*w.ExpiresAt, p.loc)
	} else if e.Deadline != nil {
		v.Until = l.Time(*e.Deadline, p.loc)
	}
	return v
}

// brl is an amount of cents in reais, written as the page's language
// writes numbers: "R$ 1.234,56" in Portuguese, "R$ 1,234.56" in English.
func brl(l *pagetext.Printer, cents int64) string {
	d := money.Cents(cents).Decimal()
	sign, d := "", d
	if strings.HasPrefix(d, "-") {
		sign, d = "-", d[1:]
	}
	units, frac, _ := strings.Cut(d, ".")
	group, point := ",", "."
	if strings.HasPrefix(l.Lang(), "pt") {
		group, point = ".", ","
	}
	var b strings.Builder
	for i, r := range units {
		if i > 0 && (len(units)-i)%3 == 0 {
			b.WriteString(group)
		}
		b.WriteRune(r)
	}
	return "R$ " + sign + b.String() + point + frac
}

// prettyData is a JSON document indented two spaces, its keys in their
// order, or s as it is when it is not JSON (a result summary is text).
// The \u003c, \u003e and \u0026 escapes Go's encoder writes for <, > and
// & are shown as the characters they stand for (the same JSON): the page
// escapes them as HTML, so a person reads "<script>" as text.
func prettyData(s string) string {
	var buf bytes.Buffer
	if json.Indent(&buf, []byte(s), "", "  ") != nil {
		return s
	}
	out := buf.String()
	for {
		next := htmlEscapeRE.ReplaceAllStringFunc(out, func(m string) string {
			i := strings.LastIndex(m, `\u00`)
			return m[:i] + htmlEscapes[strings.ToLower(m[i+4:])]
		})
		if next == out {
			return out
		}
		out = next
	}
}

// htmlEscapeRE is a \u003c, \u003e or \u0026 escape that is one (not
// preceded by an odd number of backslashes), with what precedes it.
var htmlEscapeRE = regexp.MustCompile(`(?i)(^|[^\\])(\\\\)*\\u00(3c|3e|26)`)

var htmlEscapes = map[string]string{"3c": "<", "3e": ">", "26": "&"}

func derefString(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
