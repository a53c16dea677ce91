package server

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/ory/fosite"

	"github.com/kobana/kobana-mcp/oauth/server/pages"
	"github.com/kobana/kobana-mcp/platform/pagetext"
)

// The authorization endpoint, as a person's browser meets it:
//
//  1. GET /authorize?… — fosite validates the request (client, redirect
//     URI, response type, scopes); we add what fosite does not know: PKCE
//     is checked up front (fosite checks it again when issuing the code),
//     the RFC 8707 resource, the scopes this product offers. A request
//     that cannot be answered at its redirect URI gets an error page;
//     other errors go back to the client, with iss (RFC 9207).
//  2. Not signed in: to the sign-in page, which comes back here.
//  3. Signed in: the consent page. Its form carries the request itself,
//     so any replica can finish it, and a CSRF token bound to the session
//     and to that very request.
//  4. POST /oauth/consent — the request is validated again from scratch,
//     then fosite issues the code (or access_denied), with iss added.

// pendingAuthorization is a validated authorization request.
type pendingAuthorization struct {
	ar       fosite.AuthorizeRequester
	client   *oauthClient
	resource string
	// raw is the request as the client sent it, carried by the consent
	// form.
	raw string
	// stateless: the client sent no state; fosite got noState instead,
	// and it is taken out of the answer.
	stateless bool
}

// noState stands in for an absent state: fosite insists on one, OAuth 2.1
// does not when PKCE is used, and some MCP clients send none.
const noState = "kobana-no-state"

// parseAuthorization validates an authorization request given as query
// parameters. When it fails it has already answered.
func (s *Server) parseAuthorization(w http.ResponseWriter, r *http.Request, raw string) (*pendingAuthorization, bool) {
	ctx := r.Context()
	original, err := url.ParseQuery(raw)
	if err != nil {
		s.errorPage(w, r, http.StatusBadRequest, pagetext.KeyAuthorizeBrokenTitle, pagetext.KeyAuthorizeBroken)
		return nil, false
	}
	// What fosite reads: our scopes, no "audience" (the resource is ours to
	// decide), the rest as sent.
	form := url.Values{}
	for k, v := range original {
		if k != "resource" && k != "audience" && k != "scope" {
			form[k] = slices.Clone(v)
		}
	}
	form.Set("scope", strings.Join(grantableScopes(strings.Fields(original.Get("scope")), s.scopes), " "))
	stateless := original.Get("state") == ""
	if stateless {
		form.Set("state", noState)
	}
	fr := r.Clone(ctx)
	fr.Method = http.MethodGet
	fr.URL.RawQuery = form.Encode()
	fr.Form, fr.PostForm, fr.MultipartForm = form, url.Values{}, nil
	fr.Body = http.NoBody
	fr.ContentLength = 0
	fr.Header.Del("Content-Type")

	ar, err := s.provider.NewAuthorizeRequest(ctx, fr)
	if stateless {
		w = &redirectWriter{ResponseWriter: w, dropState: true}
	}
	if err != nil {
		s.authorizeError(w, fr, ar, err)
		return nil, false
	}
	f := ar.GetRequestForm()
	if f.Get("code_challenge") == "" {
		s.authorizeError(w, fr, ar, fosite.ErrInvalidRequest.WithHint("PKCE is required: send code_challenge, with code_challenge_method=S256."))
		return nil, false
	}
	if f.Get("code_challenge_method") != "S256" {
		s.authorizeError(w, fr, ar, fosite.ErrInvalidRequest.WithHint("Only code_challenge_method=S256 is supported."))
		return nil, false
	}
	resource, err := s.resourceFor(original["resource"])
	if err != nil {
		s.authorizeError(w, fr, ar, err)
		return nil, false
	}
	ar.SetRequestedAudience(fosite.Arguments{resource})
	client, _ := ar.GetClient().(*oauthClient)
	if client == nil {
		s.authorizeError(w, fr, ar, fosite.ErrServerError)
		return nil, false
	}
	return &pendingAuthorization{ar: ar, client: client, resource: resource, raw: raw, stateless: stateless}, true
}

// authorizeError answers a failed authorization request: at the client's
// redirect URI with iss added when fosite validated one, else with a page
// for the person, who cannot be sent back safely.
func (s *Server) authorizeError(w http.ResponseWriter, r *http.Request, ar fosite.AuthorizeRequester, err error) {
	rfc := fosite.ErrorToRFC6749Error(err)
	if rfc.CodeField >= 500 {
		s.log.Error("oauth: authorization request", "err", err, "debug", rfc.GetDescription())
	}
	if ar == nil || !ar.IsRedirectURIValid() {
		switch {
		case errors.Is(err, errClientDocument):
			s.errorPage(w, r, rfc.CodeField, pagetext.KeyAuthorizeRefusedTitle, pagetext.KeyAuthorizeDocument)
		case rfc.ErrorField == fosite.ErrInvalidClient.ErrorField:
			s.errorPage(w, r, rfc.CodeField, pagetext.KeyAuthorizeRefusedTitle, pagetext.KeyAuthorizeUnknownClient)
		default:
			// fosite's description is English whatever the page's language;
			// the Portuguese message says so.
			s.errorPage(w, r, rfc.CodeField, pagetext.KeyAuthorizeRefusedTitle, pagetext.KeyAuthorizeRefused, rfc.GetDescription())
		}
		return
	}
	s.provider.WriteAuthorizeError(r.Context(), s.redirects(w, false), ar, err)
}

// redirects wraps w so the redirect fosite writes carries iss (RFC 9207)
// — also when it is an error — and no stand-in state.
func (s *Server) redirects(w http.ResponseWriter, dropState bool) http.ResponseWriter {
	if rw, ok := w.(*redirectWriter); ok {
		rw.iss = s.issuer
		rw.dropState = rw.dropState || dropState
		return rw
	}
	return &redirectWriter{ResponseWriter: w, iss: s.issuer, dropState: dropState}
}

// redirectWriter edits the Location of the redirect fosite writes: adds
// iss, and removes the stand-in state of a client that sent none.
type redirectWriter struct {
	http.ResponseWriter
	iss       string
	dropState bool
	wrote     bool
}

func (w *redirectWriter) WriteHeader(code int) {
	if !w.wrote && code >= 300 && code < 400 {
		if loc := w.Header().Get("Location"); loc != "" {
			if u, err := url.Parse(loc); err == nil {
				q := u.Query()
				if w.iss != "" {
					q.Set("iss", w.iss)
				}
				if w.dropState {
					q.Del("state")
				}
				u.RawQuery = q.Encode()
				w.Header().Set("Location", u.String())
			}
		}
	}
	w.wrote = true
	w.ResponseWriter.WriteHeader(code)
}

func (w *redirectWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// handleAuthorize is GET /authorize.
func (s *Server) handleAuthorize(w http.ResponseWriter, r *http.Request) {
	p, ok := s.parseAuthorization(w, r, r.URL.RawQuery)
	if !ok {
		return
	}
	bs, err := s.sessions.load(r)
	if err != nil {
		s.serverError(w, r, "loading the session", err)
		return
	}
	if bs == nil || bs.UserID == "" {
		http.Redirect(w, r, PathSignIn+"?"+url.Values{"next": {PathAuthorize + "?" + r.URL.RawQuery}}.Encode(), http.StatusSeeOther)
		return
	}
	s.showConsent(w, r, http.StatusOK, p, bs, "", "")
}

// requestBinding ties a consent form's CSRF token to the request it shows.
func requestBinding(raw string) string {
	h := sha256.Sum256([]byte(raw))
	return base64.RawURLEncoding.EncodeToString(h[:])
}

// showConsent answers the consent page of p; problem, when set, is the
// catalogue's message said above the form.
func (s *Server) showConsent(w http.ResponseWriter, r *http.Request, status int, p *pendingAuthorization, bs *BrowserSession, selected string, problem pagetext.Key) {
	l := pagetext.For(r)
	members, err := s.accounts.Memberships(r.Context(), bs.UserID)
	if err != nil {
		s.serverError(w, r, "listing memberships", err)
		return
	}
	if len(members) == 0 {
		s.errorPage(w, r, http.StatusForbidden, pagetext.KeyNoOrganizationTitle, pagetext.KeyNoOrganization)
		return
	}
	var orgs []pages.Organization
	for _, m := range members {
		orgs = append(orgs, pages.Organization{ID: m.OrganizationID, Name: m.OrganizationName})
	}
	if selected == "" {
		// A choice is offered, never forced: the first is preselected.
		selected = orgs[0].ID
	}
	var scopes []pages.Scope
	for _, sc := range p.ar.GetRequestedScopes() {
		scopes = append(scopes, pages.Scope{Name: sc, Description: s.ScopeDescription(l, sc)})
	}
	redirect := ""
	if u := p.ar.GetRedirectURI(); u != nil {
		redirect = u.Scheme + "://" + u.Host
	}
	var msg string
	if problem != "" {
		msg = l.Say(problem)
	}
	pages.Render(w, status, l, pages.Consent{
		Product: s.product, Action: PathConsent,
		CSRF: csrfToken(bs, formConsent, requestBinding(p.raw)), Request: p.raw,
		ClientName: clientName(l, p.client), ClientVerified: p.client.Verified, ClientHost: p.client.Host,
		Resource: p.resource, Scopes: scopes, Organizations: orgs, SelectedOrganization: selected,
		Email: bs.Email, RedirectHost: redirect, Error: msg,
	})
}

// handleConsent is POST /oauth/consent: the person's answer.
func (s *Server) handleConsent(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		s.errorPage(w, r, http.StatusBadRequest, pagetext.KeyErrorTitle, pagetext.KeyErrorFormConsent)
		return
	}
	raw := r.PostForm.Get("request")
	bs, err := s.sessions.load(r)
	if err != nil {
		s.serverError(w, r, "loading the session", err)
		return
	}
	if bs == nil || bs.UserID == "" {
		// Signed out meanwhile (or never): sign in, then see the
		// request again.
		http.Redirect(w, r, PathSignIn+"?"+url.Values{"next": {PathAuthorize + "?" + raw}}.Encode(), http.StatusSeeOther)
		return
	}
	if !checkCSRF(bs, formConsent, requestBinding(raw), r.PostForm.Get("csrf_token")) {
		s.errorPage(w, r, http.StatusForbidden, pagetext.KeyConsentExpiredTitle, pagetext.KeyConsentExpired)
		return
	}
	p, ok := s.parseAuthorization(w, r, raw)
	if !ok {
		return
	}
	switch r.PostForm.Get("decision") {
	case "deny":
		s.authorizeError(s.redirects(w, p.stateless), r, p.ar, fosite.ErrAccessDenied.WithHint("The person denied the request."))
		return
	case "allow":
	default:
		s.showConsent(w, r, http.StatusBadRequest, p, bs, "", pagetext.KeyConsentChoose)
		return
	}
	members, err := s.accounts.Memberships(r.Context(), bs.UserID)
	if err != nil {
		s.serverError(w, r, "listing memberships", err)
		return
	}
	org := r.PostForm.Get("org")
	var chosen *Membership
	for i := range members {
		if members[i].OrganizationID == org {
			chosen = &members[i]
		}
	}
	if chosen == nil {
		s.showConsent(w, r, http.StatusBadRequest, p, bs, "", pagetext.KeyConsentChooseOrg)
		return
	}
	sess := &grantSession{
		Subject: bs.UserID, UserID: bs.UserID, Email: bs.Email,
		OrganizationID: chosen.OrganizationID, AuthTime: bs.AuthenticatedAt,
	}
	for _, sc := range p.ar.GetRequestedScopes() {
		p.ar.GrantScope(sc)
	}
	p.ar.GrantAudience(p.resource)
	resp, err := s.provider.NewAuthorizeResponse(r.Context(), p.ar, sess)
	if err != nil {
		s.authorizeError(s.redirects(w, p.stateless), r, p.ar, err)
		return
	}
	resp.AddParameter("iss", s.issuer)
	s.log.Info("oauth: authorization granted", "client_id", p.client.ID, "user_id", bs.UserID, "org", chosen.OrganizationID, "resource", p.resource)
	s.provider.WriteAuthorizeResponse(r.Context(), s.redirects(w, p.stateless), p.ar, resp)
}

func (s *Server) serverError(w http.ResponseWriter, r *http.Request, what string, err error) {
	s.log.Error("oauth: "+what, "err", err)
	s.errorPage(w, r, http.StatusInternalServerError, pagetext.KeyErrorTitle, pagetext.KeyErrorServer)
}
