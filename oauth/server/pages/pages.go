// Package pages renders the authorization server's pages — sign-in,
// consent and errors — from embedded html/template files and one style
// sheet, with no script and no external asset. Every word comes from the
// catalogue of platform/pagetext, in the language the request's
// Accept-Language picks (Brazilian Portuguese by default, docs/decisions.md
// "The pages' language"); <html lang> says which. Stable element ids and
// input names let automation drive them: the sign-in form's inputs
// "email" and "password" and its button #sign-in; the consent form's
// buttons #allow and #deny.
package pages

import (
	"bytes"
	"embed"
	"html/template"
	"net/http"
	"time"

	"github.com/kobana/kobana-mcp/platform/pagetext"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed style.css
var style []byte

// StylePath is where the style sheet is served.
const StylePath = "/oauth/style.css"

var templates = template.Must(template.ParseFS(templateFiles, "templates/*.html"))

// SignIn is the sign-in page.
type SignIn struct {
	Product string
	// Action is the form's target.
	Action string
	// CSRF is the form's token.
	CSRF string
	// Next is where to go once signed in.
	Next string
	// Lead says why the person signs in ("Entre para aprovar …"), in the
	// page's language: the server derives it from Next (oauth/server
	// signin.go), never from anything else the request says.
	Lead string
	// Email refills the field after a failed attempt.
	Email string
	// Error is shown above the form, in the page's language.
	Error string
	// SignedInAs replaces the form when the person is signed in and there
	// is nowhere to go next.
	SignedInAs string
}

// Consent is the consent page.
type Consent struct {
	Product string
	Action  string
	CSRF    string
	// Request is the authorization request, carried back to the server.
	Request string
	// ClientName, and whether ClientHost vouches for it. Scope
	// descriptions, like Error, are in the page's language.
	ClientName     string
	ClientVerified bool
	ClientHost     string
	// Resource is what the token will be for.
	Resource string
	Scopes   []Scope
	// Organizations the person may grant access to; one is shown as a
	// fact, several as a choice.
	Organizations        []Organization
	SelectedOrganization string
	Email                string
	// RedirectHost is where the person is sent back to.
	RedirectHost string
	Error        string
}

// Scope is a scope and what it allows, in plain words.
type Scope struct{ Name, Description string }

// Organization is one the person belongs to.
type Organization struct{ ID, Name string }

// ErrorPage is a page that only says what went wrong, its Title and
// Message in the page's language.
type ErrorPage struct {
	Product string
	Title   string
	Message string
}

type page struct {
	PageTitle, StylePath string
	// L writes the catalogue's messages in the page's language.
	L *pagetext.Printer
}

// Render writes a page in l's language with status and the headers every
// page gets: no caching, no framing, no script, no referrer.
func Render(w http.ResponseWriter, status int, l *pagetext.Printer, data any) {
	var name string
	var view any
	switch d := data.(type) {
	case SignIn:
		name = "signin"
		view = struct {
			page
			SignIn
		}{page{l.Say(pagetext.KeySignInTitle), StylePath, l}, d}
	case Consent:
		name = "consent"
		view = struct {
			page
			Consent
		}{page{l.Say(pagetext.KeyConsentTitle), StylePath, l}, d}
	case ErrorPage:
		name = "error"
		view = struct {
			page
			ErrorPage
		}{page{d.Title, StylePath, l}, d}
	default:
		http.Error(w, "unknown page", http.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	if err := templates.ExecuteTemplate(&buf, name, view); err != nil {
		http.Error(w, "page error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Language", l.Lang())
	// The page's words depend on Accept-Language.
	h.Add("Vary", "Accept-Language")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	// No form-action: browsers apply it to the redirect that follows the
	// consent form, which goes to the client's own redirect URI.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

var started = time.Now()

// Style serves the style sheet.
func Style() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		http.ServeContent(w, r, "style.css", started, bytes.NewReader(style))
	})
}
