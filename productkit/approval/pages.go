package approval

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/oauth/server"
	"github.com/kobana/kobana-mcp/platform/pagetext"
	"github.com/kobana/kobana-mcp/platform/store"
)

// The approval page, GET /approvals/{id} on the product's listener:
//
//   - not signed in: to the authorization server's sign-in page, which
//     comes back here;
//   - signed in as anyone but the person who made the call (or who no
//     longer belongs to its organization): 404, the same page as for an id
//     that does not exist;
//   - pending: what will run — the client, the tool, the message naming the
//     target, the arguments exactly — and a form with Continuar
//     (#continuar) and Cancelar (#cancelar), protected by
//     http.CrossOriginProtection and a CSRF token bound to the session and
//     to this approval;
//   - anything else: its status (reloading itself while the call runs),
//     and the tool's answer once it ran — and, when the answer only
//     started something (Options.Progress), where that stands, reloading
//     until it ends. An expired approval says nothing ran.
//
// Every page is in the language the browser's Accept-Language picks,
// Brazilian Portuguese by default (platform/pagetext).
//
// POST /approvals/{id} records the decision and sends the browser back to
// the page (303).

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed style.css
var style []byte

var templates = template.Must(template.ParseFS(templateFiles, "templates/*.html"))

// formName is the name of the decision form in CSRF tokens.
const formName = "approval"

// view is what a page shows. Every word of it is the catalogue's
// (platform/pagetext), in the language of the request (L), but the data:
// the product's name, the client's, the person's e-mail, the tool, its
// arguments and answer, and the tool's title and confirmation message,
// which the product writes in its catalog's language (ToolTitleLang,
// MessageLang mark them when it is not the page's).
type view struct {
	Kind             string // approve, status or message
	L                *pagetext.Printer
	Product          string
	Title, Text      string
	BaseStyle, Style string
	Refresh          bool

	Action, CSRF                string
	Status, StatusLabel         string
	Client, ToolTitle, ToolName string
	ToolTitleLang, MessageLang  string
	// DeclaredClient is the name and version the client declared itself
	// in the call's envelope ("" when none), shown beside Client, the
	// OAuth client's registered name.
	DeclaredClient string
	// RequesterPage is the owner's page about what asks (Owner.Page),
	// "" when none.
	RequesterPage                string
	Email, Message, Arguments    string
	ExpiresAt, ExpiresIn, Result string
	// Progress is what the call started, when the product says
	// (Options.Progress).
	Progress *progressView
}

// Routes mounts the approval pages on the product's mux; a policy without
// SignIn (a worker's) has none.
func (p *Policy) Routes(mux *http.ServeMux) {
	if p.opts.SignIn == nil {
		return
	}
	mux.HandleFunc("GET "+PathPrefix+"style.css", serveStyle)
	mux.HandleFunc("GET "+PathPrefix+"{id}", p.show)
	mux.Handle("POST "+PathPrefix+"{id}", p.csrf.Handler(http.HandlerFunc(p.decide)))
}

var started = time.Now()

func serveStyle(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	http.ServeContent(w, r, "style.css", started, bytes.NewReader(style))
}

// show is GET /approvals/{id}.
func (p *Policy) show(w http.ResponseWriter, r *http.Request) {
	v, a, ok := p.visit(w, r)
	if !ok {
		return
	}
	p.renderApproval(w, r, v, a)
}

// decide is POST /approvals/{id}: Continuar or Cancelar.
func (p *Policy) decide(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		p.message(w, r, http.StatusBadRequest, pagetext.KeyErrorTitle, pagetext.KeyApprovalFormUnreadable)
		return
	}
	v, a, ok := p.visit(w, r)
	if !ok {
		return
	}
	if !v.CheckFormToken(formName, a.ID, r.PostForm.Get("csrf_token")) {
		p.message(w, r, http.StatusForbidden, pagetext.KeyApprovalFormExpiredTitle, pagetext.KeyApprovalFormExpired)
		return
	}
	switch d := Decision(r.PostForm.Get("decision")); d {
	case Continue, Cancel:
		if _, err := p.Decide(r.Context(), a, v.UserID, d); err != nil {
			p.serverError(w, r, "recording a decision", err)
			return
		}
	default:
		p.message(w, r, http.StatusBadRequest, pagetext.KeyApprovalChooseTitle, pagetext.KeyApprovalChoose)
		return
	}
	// Whatever happened (decided now, or before, or expired), the page
	// says where the approval stands.
	http.Redirect(w, r, PathPrefix+a.ID, http.StatusSeeOther)
}

// visit finds the signed-in person and their approval. When it returns
// false it has answered: the sign-in page, a 404 or an error.
func (p *Policy) visit(w http.ResponseWriter, r *http.Request) (*server.Visitor, *Approval, bool) {
	ctx := r.Context()
	v, err := p.opts.SignIn.Visitor(r)
	if err != nil {
		p.serverError(w, r, "loading the session", err)
		return nil, nil, false
	}
	if v == nil {
		// Whether or not the id exists: signing in comes first.
		http.Redirect(w, r, p.opts.SignIn.SignInURL(r.URL.EscapedPath()), http.StatusSeeOther)
		return nil, nil, false
	}
	a, err := p.ForPerson(ctx, r.PathValue("id"), v.UserID)
	if errors.Is(err, store.ErrNotFound) {
		// Another person's approval looks exactly like none at all.
		p.message(w, r, http.StatusNotFound, pagetext.KeyApprovalNotFoundTitle, pagetext.KeyApprovalNotFound)
		return nil, nil, false
	}
	if err != nil {
		p.serverError(w, r, "reading an approval", err)
		return nil, nil, false
	}
	return v, a, true
}

// owns reports whether an approval was made on this product's listener:
// the approvals table is shared by every product of the deployment, and
// each product's page shows (and approves) only its own — an approval of
// its catalog's tools or of its registered owners, whose token (when it
// had one) was issued for this listener. Any other looks like none at all.
func (p *Policy) owns(a *Approval) bool {
	if a.Owner != "" {
		if _, ok := p.opts.Owners[a.Owner]; !ok {
			return false
		}
	} else if _, ok := p.tools[a.Tool]; !ok {
		return false
	}
	return a.Audience == "" || sameOrigin(a.Audience, p.opts.PublicURL)
}

// sameOrigin reports whether two URLs have one scheme and host (port
// included).
func sameOrigin(a, b string) bool {
	ua, err := url.Parse(a)
	if err != nil {
		return false
	}
	ub, err := url.Parse(b)
	if err != nil {
		return false
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Host, ub.Host)
}

// statusPage is the catalogue's title, label and text of a status's page.
type statusPage struct{ title, label, text pagetext.Key }

// statusPages are the pages of the call's own states. A succeeded call
// whose answer started something still in progress gets startedPages
// instead (the truthful status rule).
var statusPages = map[Status]statusPage{
	StatusApproved:  {pagetext.KeyCallApprovedTitle, pagetext.KeyCallApprovedLabel, pagetext.KeyCallApproved},
	StatusRunning:   {pagetext.KeyCallRunningTitle, pagetext.KeyCallRunningLabel, pagetext.KeyCallRunning},
	StatusSucceeded: {pagetext.KeyCallSucceededTitle, pagetext.KeyCallSucceededLabel, pagetext.KeyCallSucceeded},
	StatusFailed:    {pagetext.KeyCallFailedTitle, pagetext.KeyCallFailedLabel, pagetext.KeyCallFailed},
	StatusCancelled: {pagetext.KeyCallCancelledTitle, pagetext.KeyCallCancelledLabel, pagetext.KeyCallCancelled},
	StatusExpired:   {pagetext.KeyCallExpiredTitle, pagetext.KeyCallExpiredLabel, pagetext.KeyCallExpired},
}

// startedPage is the page of a succeeded call that started work, by where
// the work stands: still going, done, or ended without success.
func startedPage(w WorkState) statusPage {
	switch {
	case w == WorkSucceeded:
		return statusPage{pagetext.KeyCallStartedDoneTitle, pagetext.KeyCallSucceededLabel, pagetext.KeyCallStartedDone}
	case w.Final():
		return statusPage{pagetext.KeyCallStartedFailedTitle, pagetext.KeyCallSucceededLabel, pagetext.KeyCallStartedFailed}
	}
	return statusPage{pagetext.KeyCallStartedTitle, pagetext.KeyCallSucceededLabel, pagetext.KeyCallStarted}
}

// requester names who asks for an approval, in l's language: the OAuth
// client's name when the approval records one — also for an approval a
// product asks for itself on behalf of work a client started (a Kadu
// execution queued through an MCP or API call) —, else the owner's words.
func (p *Policy) requester(ctx context.Context, l *pagetext.Printer, a *Approval) string {
	if o, ok := p.opts.Owners[a.Owner]; ok && a.Owner != "" && o.Requester != nil && (a.ClientID == "" || p.opts.SignIn == nil) {
		return l.Pick(o.Requester(a))
	}
	return p.opts.SignIn.ClientName(ctx, l, a.ClientID)
}

// requesterPage is the owner's page about what asks for a (Owner.Page),
// when it is an http(s) URL.
func (p *Policy) requesterPage(a *Approval) string {
	if o, ok := p.opts.Owners[a.Owner]; ok && a.Owner != "" && o.Page != nil {
		if u := o.Page(a); webURL(u) {
			return u
		}
	}
	return ""
}

// toolTitle is the title the page shows for a's tool and the language it
// is written in: the product's words in l's language
// (Options.ToolTitles), else the catalog's title (or the owner's, for
// another product's tool) in the catalog's language, else the tool's name.
func (p *Policy) toolTitle(l *pagetext.Printer, a *Approval) (title, lang string) {
	if ph, ok := p.opts.ToolTitles[a.Tool]; ok {
		return l.Pick(ph), l.Lang()
	}
	if o, ok := p.opts.Owners[a.Owner]; ok && a.Owner != "" {
		if o.ToolTitle != nil {
			if t := o.ToolTitle(a.Tool); t != "" {
				return t, p.opts.CatalogLanguage
			}
		}
	} else if t := p.tools[a.Tool]; t != nil {
		switch {
		case t.Title != "":
			return t.Title, p.opts.CatalogLanguage
		case t.Annotations != nil && t.Annotations.Title != "":
			return t.Annotations.Title, p.opts.CatalogLanguage
		}
	}
	return a.Tool, l.Lang()
}

// otherLang is lang when it is not the page's (the lang attribute an
// element written in it needs), else "".
func otherLang(l *pagetext.Printer, lang string) string {
	if lang == "" || strings.EqualFold(lang, l.Lang()) {
		return ""
	}
	return lang
}

func (p *Policy) renderApproval(w http.ResponseWriter, r *http.Request, v *server.Visitor, a *Approval) {
	ctx := r.Context()
	l := pagetext.For(r)
	now := p.store.clock()
	title, titleLang := p.toolTitle(l, a)
	vw := view{
		L: l, Status: string(a.Status), Client: p.requester(ctx, l, a), ToolName: a.Tool,
		ToolTitle: title, ToolTitleLang: otherLang(l, titleLang), MessageLang: otherLang(l, p.opts.CatalogLanguage),
		DeclaredClient: declaredClient(a), RequesterPage: p.requesterPage(a),
		Email: a.Email, Message: a.Message, Arguments: prettyJSON(a.Arguments),
		ExpiresAt: l.Time(a.ExpiresAt, p.opts.Location),
	}
	if a.Status == StatusPending {
		vw.Kind, vw.Title = "approve", l.Say(pagetext.KeyApprovalPageTitle)
		vw.Action, vw.CSRF = PathPrefix+a.ID, v.FormToken(formName, a.ID)
		vw.ExpiresIn = l.Minutes(a.ExpiresAt.Sub(now))
		p.render(w, http.StatusOK, vw)
		return
	}
	sp := statusPages[a.Status]
	if a.Status == StatusSucceeded && p.opts.Progress != nil {
		pr, err := p.opts.Progress(ctx, a)
		if err != nil {
			// The call's own outcome is still true; what it started is
			// unknown for now, and the page tries again.
			p.log.ErrorContext(ctx, "approval: reading what a call started", "approval", a.ID, "error", err)
			vw.Refresh = true
		}
		if pr != nil {
			vw.Progress = newProgressView(l, pr)
			sp = startedPage(pr.State)
			vw.Refresh = !pr.State.Final()
		}
	}
	vw.Kind, vw.Title, vw.StatusLabel, vw.Text = "status", l.Say(sp.title), l.Say(sp.label), l.Say(sp.text)
	vw.Refresh = vw.Refresh || !a.Status.Final()
	if a.Status == StatusSucceeded || a.Status == StatusFailed {
		vw.Result = prettyJSON(a.ResultText())
	}
	p.render(w, http.StatusOK, vw)
}

// prettyJSON indents a JSON document two spaces; anything else is
// returned as it is.
func prettyJSON(s string) string {
	var buf bytes.Buffer
	if json.Indent(&buf, []byte(s), "", "  ") != nil {
		return s
	}
	return buf.String()
}

func (p *Policy) serverError(w http.ResponseWriter, r *http.Request, what string, err error) {
	p.log.Error("approval: "+what, "error", err)
	p.message(w, r, http.StatusInternalServerError, pagetext.KeyErrorTitle, pagetext.KeyErrorServer)
}

// message answers a page that only says something: the catalogue's title
// and text, in the request's language.
func (p *Policy) message(w http.ResponseWriter, r *http.Request, status int, title, text pagetext.Key) {
	l := pagetext.For(r)
	p.render(w, status, view{Kind: "message", L: l, Title: l.Say(title), Text: l.Say(text)})
}

// render writes a page with the headers every page gets: no caching, no
// framing, no script, no referrer, forms only to this origin.
func (p *Policy) render(w http.ResponseWriter, status int, vw view) {
	vw.Product, vw.BaseStyle, vw.Style = p.opts.ProductName, server.PathStyle, PathPrefix+"style.css"
	var buf bytes.Buffer
	if err := templates.ExecuteTemplate(&buf, vw.Kind, vw); err != nil {
		p.log.Error("approval: rendering a page", "error", err)
		http.Error(w, "page error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Language", vw.L.Lang())
	// The page's words depend on Accept-Language.
	h.Add("Vary", "Accept-Language")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}
