package approval

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/oauth/server"
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
//     and the tool's answer once it ran. An expired approval says nothing
//     ran.
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

// view is what a page shows.
type view struct {
	Kind             string // approve, status or message
	Product          string
	Title, Text      string
	BaseStyle, Style string
	Refresh          bool

	Action, CSRF                string
	Status, StatusLabel         string
	Client, ToolTitle, ToolName string
	// DeclaredClient is the name and version the client declared itself
	// in the call's envelope ("" when none), shown beside Client, the
	// OAuth client's registered name.
	DeclaredClient               string
	Email, Message, Arguments    string
	ExpiresAt, ExpiresIn, Result string
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
	p.renderApproval(w, r.Context(), v, a)
}

// decide is POST /approvals/{id}: Continuar or Cancelar.
func (p *Policy) decide(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		p.render(w, http.StatusBadRequest, view{Kind: "message", Title: "Algo deu errado", Text: "O formulário não pôde ser lido. Abra o link de novo."})
		return
	}
	v, a, ok := p.visit(w, r)
	if !ok {
		return
	}
	if !v.CheckFormToken(formName, a.ID, r.PostForm.Get("csrf_token")) {
		p.render(w, http.StatusForbidden, view{Kind: "message", Title: "Este formulário expirou",
			Text: "Por segurança ele não foi aceito, e nada foi executado. Abra o link de novo para decidir."})
		return
	}
	switch d := Decision(r.PostForm.Get("decision")); d {
	case Continue, Cancel:
		if _, err := p.Decide(r.Context(), a, v.UserID, d); err != nil {
			p.serverError(w, "recording a decision", err)
			return
		}
	default:
		p.render(w, http.StatusBadRequest, view{Kind: "message", Title: "Escolha uma opção", Text: "Escolha Continuar ou Cancelar. Nada foi executado."})
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
		p.serverError(w, "loading the session", err)
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
		p.render(w, http.StatusNotFound, view{Kind: "message", Title: "Aprovação não encontrada",
			Text: "Este link de aprovação não existe ou não é seu. Confira se você entrou com a conta certa."})
		return nil, nil, false
	}
	if err != nil {
		p.serverError(w, "reading an approval", err)
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

// statusPages are the title, label and text of each status's page.
var statusPages = map[Status]struct{ title, label, text string }{
	StatusApproved:  {"Executando…", "Executando", "Você aprovou a ação, e ela está sendo executada uma única vez. Esta página se atualiza sozinha."},
	StatusRunning:   {"Executando…", "Executando", "Você aprovou a ação, e ela está sendo executada uma única vez. Esta página se atualiza sozinha."},
	StatusSucceeded: {"Ação executada", "Concluída", "A ação foi executada uma vez, com sucesso."},
	StatusFailed:    {"A ação falhou", "Falhou", "A ação foi tentada uma vez e terminou com erro. Ela não será repetida."},
	StatusCancelled: {"Ação cancelada", "Cancelada", "Você escolheu Cancelar. Nada foi executado."},
	StatusExpired:   {"Aprovação expirada", "Expirada", "Nada foi executado: esta aprovação expirou antes de alguém escolher Continuar. Peça a ação de novo no seu aplicativo para receber um novo link."},
}

func (p *Policy) renderApproval(w http.ResponseWriter, ctx context.Context, v *server.Visitor, a *Approval) {
	now := p.store.clock()
	sum := p.Describe(ctx, a)
	vw := view{
		Status: string(a.Status), Client: sum.Client, ToolName: sum.ToolName, ToolTitle: sum.ToolTitle,
		DeclaredClient: sum.DeclaredClient, Email: sum.Email, Message: sum.Message, Arguments: sum.Arguments,
		ExpiresAt: sum.ExpiresAt.In(p.opts.Location).Format("02/01/2006 15:04:05 MST"),
	}
	if a.Status == StatusPending {
		vw.Kind, vw.Title = "approve", "Aprovar ação"
		vw.Action, vw.CSRF = PathPrefix+a.ID, v.FormToken(formName, a.ID)
		vw.ExpiresIn = "em " + minutes(a.ExpiresAt.Sub(now))
		p.render(w, http.StatusOK, vw)
		return
	}
	sp := statusPages[a.Status]
	vw.Kind, vw.Title, vw.StatusLabel, vw.Text = "status", sp.title, sp.label, sp.text
	vw.Refresh = !a.Status.Final()
	vw.Result = sum.Result
	p.render(w, http.StatusOK, vw)
}

// minutes says a duration in words, rounded up to the minute.
func minutes(d time.Duration) string {
	m := int((d + time.Minute - 1) / time.Minute)
	switch {
	case m <= 1:
		return "menos de 1 minuto"
	default:
		return fmt.Sprintf("%d minutos", m)
	}
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

func (p *Policy) serverError(w http.ResponseWriter, what string, err error) {
	p.log.Error("approval: "+what, "error", err)
	p.render(w, http.StatusInternalServerError, view{Kind: "message", Title: "Algo deu errado",
		Text: "O servidor não conseguiu concluir este passo. Tente de novo em instantes."})
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
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}
