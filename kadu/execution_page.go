package kadu

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/oauth/server"
	"github.com/kobana/kobana-mcp/platform/pagetext"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit"
)

// The execution page, GET /executions/{id} on Kadu's listener: an
// execution as a person reads it (docs/kadu.md "The execution page"), not
// the API. It signs people in through the listener's built-in
// authorization server, like the approval page:
//
//   - not signed in: to the sign-in page, which says it is for an
//     execution and comes back here;
//   - signed in but not a member of the execution's organization, or an
//     id that does not exist: the same 404;
//   - otherwise the task, who or what started it (the person and the
//     OAuth client's registered name, or the schedule), each step in
//     order with its tool, arguments, result and cost, the approvals it
//     asked for and who decided them, what it waits for, its cost against
//     its ceiling, its output files, and, while it has not ended, its
//     progress: the page reloads itself.
//
// Everything the execution holds is data, shown escaped (html/template),
// never markup: a tool result that says <script> is text on the page.
// Long arguments and results are cut (pageCut) with a link to the whole
// step as JSON (GET /executions/{id}/steps/{seq}); the execution's own
// JSON is GET /executions/{id}/json, and an output file's download is GET
// /executions/{id}/files/{file_id}, which sends the browser to a fresh
// five-minute URL of the files routes (files_urls.go). Those routes check
// the session exactly as the page does.

//go:embed templates/execution.html
var executionTemplateFiles embed.FS

//go:embed execution_page.css
var executionStyle []byte

var executionTemplates = template.Must(template.ParseFS(executionTemplateFiles, "templates/execution.html"))

// executionRoutes mounts the execution pages when the listener has the
// built-in sign-in and a database; without them (an external issuer, a
// catalog build) there are none and the paths answer as unknown.
func (s *service) executionRoutes(deps productkit.Deps) func(mux *http.ServeMux) {
	return func(mux *http.ServeMux) {
		if deps.AuthServer == nil || s.db == nil {
			return
		}
		p := &executionPages{s: s, signIn: deps.AuthServer, loc: productkit.Brasilia()}
		deps.AuthServer.ExplainReturns(ExecutionPagePrefix, p)
		mux.HandleFunc("GET "+ExecutionPagePrefix+"style.css", serveExecutionStyle)
		mux.HandleFunc("GET "+ExecutionPagePrefix+"{id}", p.show)
		mux.HandleFunc("GET "+ExecutionPagePrefix+"{id}/json", p.executionJSON)
		mux.HandleFunc("GET "+ExecutionPagePrefix+"{id}/steps/{seq}", p.stepJSON)
		mux.HandleFunc("GET "+ExecutionPagePrefix+"{id}/files/{file}", p.download)
	}
}

var executionStyleTime = time.Now()

func serveExecutionStyle(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	http.ServeContent(w, r, "style.css", executionStyleTime, bytes.NewReader(executionStyle))
}

// SignInReason implements server.SignInReason: the sign-in page on the way
// to an execution says so, naming only the id the link already holds —
// nothing is read before the person is signed in and known to be a member
// (docs/security.md "The execution page").
func (p *executionPages) SignInReason(_ context.Context, l *pagetext.Printer, next *url.URL) string {
	rest, ok := strings.CutPrefix(next.Path, ExecutionPagePrefix)
	if !ok || rest == "" {
		return ""
	}
	id, _, _ := strings.Cut(rest, "/")
	if len(id) > 64 {
		return ""
	}
	return l.Say(pagetext.KeySignInLeadExecution, id)
}

// visit finds the signed-in person and the execution of the path, if
// they are a member of its organization. When it returns false it has
// answered: the sign-in page, a 404 or an error.
func (p *executionPages) visit(w http.ResponseWriter, r *http.Request) (*server.Visitor, *records.Execution, bool) {
	ctx := r.Context()
	v, err := p.signIn.Visitor(r)
	if err != nil {
		p.serverError(w, r, "loading the session", err)
		return nil, nil, false
	}
	if v == nil {
		// Whether or not the id exists: signing in comes first.
		http.Redirect(w, r, p.signIn.SignInURL(r.URL.EscapedPath()), http.StatusSeeOther)
		return nil, nil, false
	}
	id := r.PathValue("id")
	var e *records.Execution
	if id != "" && len(id) <= 64 {
		e, err = records.ExecutionByID(ctx, p.s.db, id)
	} else {
		err = store.ErrNotFound
	}
	if err == nil {
		// Only a member of the execution's organization sees it; anyone
		// else gets what an unknown id gets.
		_, err = p.s.accounts.GetMembership(ctx, e.OrganizationID, v.UserID)
	}
	if errors.Is(err, store.ErrNotFound) {
		p.message(w, r, http.StatusNotFound, pagetext.KeyExecutionNotFoundTitle, pagetext.KeyExecutionNotFound)
		return nil, nil, false
	}
	if err != nil {
		p.serverError(w, r, "reading an execution", err)
		return nil, nil, false
	}
	return v, e, true
}

// show is GET /executions/{id}.
func (p *executionPages) show(w http.ResponseWriter, r *http.Request) {
	_, e, ok := p.visit(w, r)
	if !ok {
		return
	}
	vw, err := p.build(r, e)
	if err != nil {
		p.serverError(w, r, "reading an execution's page", err)
		return
	}
	p.render(w, http.StatusOK, vw)
}

// executionJSON is GET /executions/{id}/json: the execution as the API's
// kadu_executions_get shows it.
func (p *executionPages) executionJSON(w http.ResponseWriter, r *http.Request) {
	_, e, ok := p.visit(w, r)
	if !ok {
		return
	}
	writePageJSON(w, map[string]any{"data": toExecutionJSON(e)})
}

// stepJSON is GET /executions/{id}/steps/{seq}: one step, whole, as the
// API's kadu_executions_steps shows it.
func (p *executionPages) stepJSON(w http.ResponseWriter, r *http.Request) {
	_, e, ok := p.visit(w, r)
	if !ok {
		return
	}
	seq, err := strconv.Atoi(r.PathValue("seq"))
	var rows []*records.Step
	if err == nil && seq > 0 {
		rows, err = records.ListSteps(r.Context(), p.s.db, e.ID, seq-1, 1)
	}
	if err != nil || len(rows) == 0 || rows[0].Seq != seq {
		if err != nil && !errors.Is(err, strconv.ErrSyntax) && !errors.Is(err, strconv.ErrRange) {
			p.serverError(w, r, "reading a step", err)
			return
		}
		p.message(w, r, http.StatusNotFound, pagetext.KeyExecutionNotFoundTitle, pagetext.KeyExecutionStepNotFound)
		return
	}
	writePageJSON(w, map[string]any{"data": toStepJSON(rows[0])})
}

// download is GET /executions/{id}/files/{file}: a ready output file of
// the execution, through a fresh signed URL of the files routes (the
// page's links never go stale).
func (p *executionPages) download(w http.ResponseWriter, r *http.Request) {
	_, e, ok := p.visit(w, r)
	if !ok {
		return
	}
	f, err := records.GetFile(r.Context(), p.s.db, e.OrganizationID, r.PathValue("file"))
	if err == nil && (f.ExecutionID == nil || *f.ExecutionID != e.ID || f.Status != records.FileReady) {
		err = store.ErrNotFound
	}
	if errors.Is(err, store.ErrNotFound) {
		p.message(w, r, http.StatusNotFound, pagetext.KeyExecutionNotFoundTitle, pagetext.KeyExecutionFileNotFound)
		return
	}
	if err != nil {
		p.serverError(w, r, "reading an output file", err)
		return
	}
	u, _, err := p.s.downloadURL(r.Context(), f)
	if err != nil {
		p.serverError(w, r, "signing a download", err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, u, http.StatusSeeOther)
}

// writePageJSON answers JSON to a signed-in browser: never sniffed as
// HTML, never cached, never framed.
func writePageJSON(w http.ResponseWriter, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, "encoding error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
	h.Set("Referrer-Policy", "no-referrer")
	_, _ = w.Write(append(b, '\n'))
}

func (p *executionPages) serverError(w http.ResponseWriter, r *http.Request, what string, err error) {
	p.s.log.ErrorContext(r.Context(), "kadu: execution page: "+what, "error", err)
	p.message(w, r, http.StatusInternalServerError, pagetext.KeyErrorTitle, pagetext.KeyErrorServer)
}

// message answers a page that only says something, in the request's
// language.
func (p *executionPages) message(w http.ResponseWriter, r *http.Request, status int, title, text pagetext.Key) {
	l := pagetext.For(r)
	p.render(w, status, &execView{Kind: "message", L: l, Title: l.Say(title), Text: l.Say(text)})
}

// render writes a page with the approval page's headers: no caching, no
// framing, no script, no referrer, styles only from this origin.
func (p *executionPages) render(w http.ResponseWriter, status int, vw *execView) {
	vw.Product, vw.BaseStyle, vw.Style = ServerTitle, server.PathStyle, ExecutionPagePrefix+"style.css"
	var buf bytes.Buffer
	if err := executionTemplates.ExecuteTemplate(&buf, vw.Kind, vw); err != nil {
		p.s.log.Error("kadu: rendering the execution page", "error", err)
		http.Error(w, "page error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Language", vw.L.Lang())
	h.Add("Vary", "Accept-Language")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}
