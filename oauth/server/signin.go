package server

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/kobana/kobana-mcp/oauth/server/pages"
	"github.com/kobana/kobana-mcp/platform/pagetext"
)

// The sign-in page's messages are the catalogue's (platform/pagetext). A
// failed sign-in says the same thing whatever failed
// (pagetext.KeySignInBadCredentials), so the page does not tell which
// emails have accounts.

// safeNext returns next if it is an authorization request on this server
// or a page under one of returnPaths (Config.ReturnPaths), the only places
// sign-in sends a person to; anything else (another host, a scheme, a path
// elsewhere) is dropped, so the page is no open redirect.
func safeNext(next string, returnPaths ...string) string {
	if next == "" || len(next) > 12<<10 || strings.ContainsAny(next, "\\\r\n") {
		return ""
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || strings.HasPrefix(next, "//") {
		return ""
	}
	if u.Path == PathAuthorize || returnPath(u, returnPaths) {
		return next
	}
	return ""
}

// showSignIn is GET /oauth/sign-in.
func (s *Server) showSignIn(w http.ResponseWriter, r *http.Request) {
	next := safeNext(r.URL.Query().Get("next"), s.returnPaths...)
	bs, err := s.sessions.ensure(w, r)
	if err != nil {
		s.serverError(w, r, "starting a session", err)
		return
	}
	if bs.UserID != "" {
		if next != "" {
			http.Redirect(w, r, next, http.StatusSeeOther)
			return
		}
		pages.Render(w, http.StatusOK, pagetext.For(r), pages.SignIn{Product: s.product, SignedInAs: bs.Email})
		return
	}
	s.renderSignIn(w, r, http.StatusOK, bs, next, "", "")
}

// renderSignIn answers the sign-in form, saying why the person signs in
// (signInLead) and, when problem is set, the catalogue's message for it.
func (s *Server) renderSignIn(w http.ResponseWriter, r *http.Request, status int, bs *BrowserSession, next, email string, problem pagetext.Key) {
	l := pagetext.For(r)
	var msg string
	if problem != "" {
		msg = l.Say(problem)
	}
	pages.Render(w, status, l, pages.SignIn{
		Product: s.product, Action: PathSignIn, CSRF: csrfToken(bs, formSignIn, ""),
		Next: next, Lead: s.signInLead(r, l, next), Email: email, Error: msg,
	})
}

// handleSignIn is POST /oauth/sign-in.
func (s *Server) handleSignIn(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 32<<10)
	if err := r.ParseForm(); err != nil {
		s.errorPage(w, r, http.StatusBadRequest, pagetext.KeyErrorTitle, pagetext.KeyErrorFormSignIn)
		return
	}
	next := safeNext(r.PostForm.Get("next"), s.returnPaths...)
	email := strings.ToLower(strings.TrimSpace(r.PostForm.Get("email")))
	if len(email) > 320 {
		email = email[:320]
	}
	bs, err := s.sessions.load(r)
	if err != nil {
		s.serverError(w, r, "loading the session", err)
		return
	}
	if !checkCSRF(bs, formSignIn, "", r.PostForm.Get("csrf_token")) {
		if bs == nil {
			if bs, err = s.sessions.ensure(w, r); err != nil {
				s.serverError(w, r, "starting a session", err)
				return
			}
		}
		s.renderSignIn(w, r, http.StatusForbidden, bs, next, email, pagetext.KeySignInExpired)
		return
	}
	if !s.signInIP.Allow(r.Context(), s.clientIP(r)) || (email != "" && s.signInEmail.Exhausted(r.Context(), email)) {
		s.log.Warn("oauth: sign-in rate limited", "ip", s.clientIP(r))
		w.Header().Set("Retry-After", "60")
		s.renderSignIn(w, r, http.StatusTooManyRequests, bs, next, email, pagetext.KeySignInTooMany)
		return
	}
	password := r.PostForm.Get("password")
	if email == "" || password == "" {
		s.renderSignIn(w, r, http.StatusUnauthorized, bs, next, email, pagetext.KeySignInBadCredentials)
		return
	}
	p, err := s.accounts.VerifyPassword(r.Context(), email, password)
	if errors.Is(err, ErrBadCredentials) {
		s.signInEmail.Allow(r.Context(), email)
		s.renderSignIn(w, r, http.StatusUnauthorized, bs, next, email, pagetext.KeySignInBadCredentials)
		return
	}
	if err != nil {
		s.serverError(w, r, "verifying a password", err)
		return
	}
	if _, err := s.sessions.signIn(r.Context(), w, bs, p); err != nil {
		s.serverError(w, r, "signing in", err)
		return
	}
	if next == "" {
		pages.Render(w, http.StatusOK, pagetext.For(r), pages.SignIn{Product: s.product, SignedInAs: p.Email})
		return
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}
