package portal

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"errors"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/dunning/escalation"
	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/notify"
	"github.com/kobana/kobana-mcp/oauth/server/pages"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/pagetext"
	"github.com/kobana/kobana-mcp/platform/store"
)

// The debtor page's routes on the product's listener:
//
//	GET  /v1/portal/{token}                the page
//	GET  /v1/portal/{token}/statement.pdf  the statement of today
//	POST /v1/portal/{token}/agreement      accept an agreement offered
//	POST /v1/portal/{token}/opt-out        stop a channel, or the page
//	GET  /v1/portal-assets/{base,portal}.css
//
// Every link that does not open the page — forged, changed, expired, of
// an older generation, revoked, of a debtor archived or gone — answers
// the same page with the same status (404), so a link tells nothing, not
// even whether its debtor exists. The pages share the sign-in's style
// sheet (oauth/server/pages) and the catalogue's words
// (platform/pagetext), Portuguese unless the browser asks English.

//go:embed templates/page.html
var templateFiles embed.FS

//go:embed portal.css
var portalCSS []byte

var templates = template.Must(template.New("page.html").Funcs(template.FuncMap{
	"script": func() template.JS { return template.JS(copyScript) },
}).ParseFS(templateFiles, "templates/page.html"))

// assetsPath is where the page's style sheets are served.
const assetsPath = ledger.APIBase + "/portal-assets/"

// copyScript is the page's only script: it shows the copy buttons and
// copies a Pix code. The page works without it (the code is in a
// read-only field to select by hand); the CSP allows it by its hash.
const copyScript = `document.querySelectorAll("button.copy").forEach(function(b){b.hidden=false;b.addEventListener("click",function(){var f=document.getElementById(b.dataset.target),s=document.getElementById(b.dataset.target+"-status");function done(){s.textContent=b.dataset.done;}f.select();if(navigator.clipboard&&navigator.clipboard.writeText){navigator.clipboard.writeText(f.value).then(done,function(){document.execCommand("copy");done();});}else{document.execCommand("copy");done();}});});`

// scriptHash is copyScript's CSP source.
var scriptHash = func() string {
	h := sha256.Sum256([]byte(copyScript))
	return "'sha256-" + base64.StdEncoding.EncodeToString(h[:]) + "'"
}()

// csp is the page's policy: nothing but its own style sheets, its QR
// images, its one script by hash, forms to itself; no frames.
var csp = "default-src 'none'; style-src 'self'; img-src 'self'; script-src " + scriptHash +
	"; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// Mount serves the page's routes on mux.
func (s *Service) Mount(mux *http.ServeMux) {
	cop := http.NewCrossOriginProtection()
	base := ledger.APIBase + "/portal/{token}"
	mux.Handle("GET "+assetsPath+"base.css", pages.Style())
	mux.HandleFunc("GET "+assetsPath+"portal.css", servePortalCSS)
	mux.HandleFunc("GET "+base, s.show)
	mux.HandleFunc("GET "+base+"/statement.pdf", s.statement)
	mux.Handle("POST "+base+"/agreement", cop.Handler(http.HandlerFunc(s.accept)))
	mux.Handle("POST "+base+"/opt-out", cop.Handler(http.HandlerFunc(s.optOut)))
}

var started = time.Now()

func servePortalCSS(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	http.ServeContent(w, r, "portal.css", started, bytes.NewReader(portalCSS))
}

// open is the start of every route: the rate limits, then the link.
// When it returns false it has answered.
func (s *Service) open(w http.ResponseWriter, r *http.Request) (string, ledger.Debtor, bool) {
	token := r.PathValue("token")
	if !s.allow(r, token) {
		w.Header().Set("Retry-After", "60")
		s.message(w, r, http.StatusTooManyRequests, "portal.too_many_title", "portal.too_many")
		return "", ledger.Debtor{}, false
	}
	_, d, err := s.Portal.Open(r.Context(), s.DB, token, s.Clock())
	if errors.Is(err, ledger.ErrPortalLink) {
		s.unavailable(w, r)
		return "", ledger.Debtor{}, false
	}
	if err != nil {
		s.serverError(w, r, "opening a portal link", err)
		return "", ledger.Debtor{}, false
	}
	return token, d, true
}

// unavailable is the one answer of every link that does not open the
// page.
func (s *Service) unavailable(w http.ResponseWriter, r *http.Request) {
	s.message(w, r, http.StatusNotFound, "portal.unavailable_title", "portal.unavailable")
}

// show is GET: the page.
func (s *Service) show(w http.ResponseWriter, r *http.Request) {
	token, d, ok := s.open(w, r)
	if !ok {
		return
	}
	s.page(w, r, token, d, http.StatusOK, func(v *view) {
		v.Accepted = r.URL.Query().Get("aceito") == "1"
		v.Changed = r.URL.Query().Get("mudou") == "1"
	})
}

// page renders the debtor's page with status; adjust marks it.
func (s *Service) page(w http.ResponseWriter, r *http.Request, token string, d ledger.Debtor, status int, adjust func(*view)) {
	v := s.newView(r, "page", status)
	v.Link = ledger.APIBase + "/portal/" + token
	now := s.Clock()
	if err := s.build(r.Context(), v, d, now); err != nil {
		s.serverError(w, r, "building the portal page", err)
		return
	}
	st, err := ledger.LoadSettings(r.Context(), s.DB, d.OrganizationID)
	if err != nil {
		s.serverError(w, r, "reading settings", err)
		return
	}
	day := st.Today(now).String()
	v.OfferToken = s.newFormToken(token, formAgreement, day)
	v.OptToken = s.newFormToken(token, formOptOut, day)
	if adjust != nil {
		adjust(v)
	}
	s.render(w, v)
}

// statement is GET …/statement.pdf: the debtor statement of today.
func (s *Service) statement(w http.ResponseWriter, r *http.Request) {
	_, d, ok := s.open(w, r)
	if !ok {
		return
	}
	now := s.Clock()
	st, err := ledger.LoadSettings(r.Context(), s.DB, d.OrganizationID)
	if err != nil {
		s.serverError(w, r, "reading settings", err)
		return
	}
	today := st.Today(now)
	pdf, err := s.StatementNow(r.Context(), d.OrganizationID, d.ID, today, now)
	if err != nil {
		s.serverError(w, r, "drawing a statement", err)
		return
	}
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Content-Disposition", `attachment; filename="extrato-`+today.String()+`.pdf"`)
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	_, _ = w.Write(pdf)
}

// accept is POST …/agreement: the debtor accepts the offer of n
// installments totalling what the page showed. The same form sent twice
// (a double click, two tabs, a retry) makes one agreement: its form id
// is recorded with the agreement in the same transaction, and a later
// submission finds it.
func (s *Service) accept(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 8<<10)
	if err := r.ParseForm(); err != nil {
		s.message(w, r, http.StatusBadRequest, "portal.title", "portal.error")
		return
	}
	token, d, ok := s.open(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	st, err := ledger.LoadSettings(ctx, s.DB, d.OrganizationID)
	if err != nil {
		s.serverError(w, r, "reading settings", err)
		return
	}
	fid, valid := s.checkFormToken(r.PostForm.Get("form_token"), token, formAgreement, st.Today(s.Clock()).String())
	n, total, parsed := parseOffer(r.PostForm.Get("offer"))
	if !valid || !parsed {
		// A form of another day or link, or no choice: the page again,
		// with the offers of now.
		http.Redirect(w, r, ledger.APIBase+"/portal/"+token+"?mudou=1", http.StatusSeeOther)
		return
	}
	err = s.DB.WithTx(ctx, func(tx *store.Tx) error {
		first, err := claimForm(ctx, tx, fid, d, s.Clock())
		if err != nil || !first {
			return err
		}
		a, err := s.AcceptOnPortal(ctx, tx, d.OrganizationID, d.ID, n, total)
		if err != nil {
			return err
		}
		return recordSubmission(ctx, tx, fid, a.ID)
	})
	switch {
	case errors.Is(err, escalation.ErrOfferChanged):
		http.Redirect(w, r, ledger.APIBase+"/portal/"+token+"?mudou=1", http.StatusSeeOther)
	case err != nil:
		s.serverError(w, r, "accepting a portal agreement", err)
	default:
		http.Redirect(w, r, ledger.APIBase+"/portal/"+token+"?aceito=1", http.StatusSeeOther)
	}
}

// parseOffer reads the offer a form chose: "installments:total cents".
func parseOffer(v string) (int, money.Cents, bool) {
	a, b, ok := strings.Cut(v, ":")
	n, err1 := strconv.Atoi(a)
	total, err2 := strconv.ParseInt(b, 10, 64)
	if !ok || err1 != nil || err2 != nil || n < 1 || total <= 0 {
		return 0, 0, false
	}
	return n, money.Cents(total), true
}

// optOut is POST …/opt-out: channel stops a channel (the unsubscribe
// link's write, notify.RecordOptOut, by the debtor), "portal" closes the
// page: the debtor's links are revoked.
func (s *Service) optOut(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 8<<10)
	if err := r.ParseForm(); err != nil {
		s.message(w, r, http.StatusBadRequest, "portal.title", "portal.error")
		return
	}
	token, d, ok := s.open(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	now := s.Clock()
	st, err := ledger.LoadSettings(ctx, s.DB, d.OrganizationID)
	if err != nil {
		s.serverError(w, r, "reading settings", err)
		return
	}
	if _, valid := s.checkFormToken(r.PostForm.Get("form_token"), token, formOptOut, st.Today(now).String()); !valid {
		http.Redirect(w, r, ledger.APIBase+"/portal/"+token, http.StatusSeeOther)
		return
	}
	what := r.PostForm.Get("channel")
	switch {
	case what == "portal":
		if err := ledger.RevokePortalLink(ctx, s.DB, d.OrganizationID, d.ID, "debtor", now); err != nil {
			s.serverError(w, r, "revoking a portal link", err)
			return
		}
		s.message(w, r, http.StatusOK, "portal.closed_title", "portal.closed")
		return
	case isChannel(what):
		if err := notify.RecordOptOut(ctx, s.DB, d.OrganizationID, d.ID, what, PortalOptOutReason, "debtor", now); err != nil {
			s.serverError(w, r, "recording an opt-out", err)
			return
		}
	}
	http.Redirect(w, r, ledger.APIBase+"/portal/"+token, http.StatusSeeOther)
}

// PortalOptOutReason is the reason an opt-out on the page records.
const PortalOptOutReason = "debtor page"

func isChannel(c string) bool {
	for _, ch := range ledger.Channels {
		if c == ch {
			return true
		}
	}
	return false
}

// newView is a view of kind in r's language.
func (s *Service) newView(r *http.Request, kind string, status int) *view {
	return &view{Kind: kind, L: pagetext.For(r), Status: status, Assets: assetsPath}
}

// message answers a page of one title and text.
func (s *Service) message(w http.ResponseWriter, r *http.Request, status int, title, text pagetext.Key) {
	v := s.newView(r, "message", status)
	v.TitleKey, v.TextKey = title, text
	s.render(w, v)
}

// serverError logs err and answers a page saying to try again.
func (s *Service) serverError(w http.ResponseWriter, r *http.Request, what string, err error) {
	s.Log.ErrorContext(r.Context(), "dunning: portal: "+what, "error", err)
	s.message(w, r, http.StatusInternalServerError, "portal.title", "portal.error")
}

// render writes v, whole or not at all.
func (s *Service) render(w http.ResponseWriter, v *view) {
	var buf bytes.Buffer
	if err := templates.ExecuteTemplate(&buf, v.Kind, v); err != nil {
		s.Log.Error("dunning: portal: rendering", "error", err)
		buf.Reset()
		v.Status = http.StatusInternalServerError
		_ = templates.ExecuteTemplate(&buf, "message", &view{Kind: "message", L: v.L, Assets: assetsPath, TitleKey: "portal.title", TextKey: "portal.error"})
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Robots-Tag", "noindex")
	h.Set("Content-Security-Policy", csp)
	w.WriteHeader(v.Status)
	_, _ = w.Write(buf.Bytes())
}
