// Package pages renders the authorization server's pages — sign-in,
// consent and errors — from embedded html/template files and one style
// sheet, with no script and no external asset. Stable element ids and
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
	// Email refills the field after a failed attempt.
	Email string
	// Error is shown above the form.
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
	// ClientName, and whether ClientHost vouches for it.
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

// ErrorPage is a page that only says what went wrong.
type ErrorPage struct {
	Product string
	Title   string
	Message string
}

type page struct {
	PageTitle, StylePath string
}

// Render writes a page with status and the headers every page gets: no
// caching, no framing, no script, no referrer.
func Render(w http.ResponseWriter, status int, data any) {
	var name string
	var view any
	switch d := data.(type) {
	case SignIn:
		name = "signin"
		view = struct {
			page
			SignIn
		}{page{"Sign in", StylePath}, d}
	case Consent:
		name = "consent"
		view = struct {
			page
			Consent
		}{page{"Allow access", StylePath}, d}
	case ErrorPage:
		name = "error"
		view = struct {
			page
			ErrorPage
		}{page{d.Title, StylePath}, d}
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
