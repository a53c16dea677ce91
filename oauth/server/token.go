package server

import (
	"errors"
	"net/http"
	"strings"

	"github.com/ory/fosite"
)

// handleToken is POST /token: the authorization code and refresh token
// grants, all validation fosite's, plus RFC 8707: a resource named here
// must be the one the grant was made for.
func (s *Server) handleToken(w http.ResponseWriter, r *http.Request) {
	allowAnyOrigin(w)
	ctx := r.Context()
	if !s.token.Allow(ctx, s.clientIP(r)) {
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusTooManyRequests, registrationError{Error: "too_many_requests", Description: "Too many token requests from this address; try again later."})
		return
	}
	s.maybePurge(ctx)
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	sess := &grantSession{}
	if err := r.ParseForm(); err != nil {
		s.provider.WriteAccessError(ctx, w, fosite.NewAccessRequest(sess), fosite.ErrInvalidRequest.WithHint("The body could not be read as a form."))
		return
	}
	// The resource is ours to check; fosite's "audience" must not come
	// from the client.
	resources := r.PostForm["resource"]
	for _, vs := range []map[string][]string{r.Form, r.PostForm} {
		delete(vs, "resource")
		delete(vs, "audience")
	}
	ar, err := s.provider.NewAccessRequest(ctx, r, sess)
	if err != nil {
		s.accessError(w, r, ar, err)
		return
	}
	if len(resources) > 0 {
		want, err := s.resourceFor(resources)
		if err == nil && !(len(ar.GetRequestedAudience()) == 1 && ar.GetRequestedAudience()[0] == want) {
			err = errInvalidTarget.WithHint("The resource is not the one this grant was made for; a grant is for one resource.")
		}
		if err != nil {
			s.accessError(w, r, ar, err)
			return
		}
	}
	resp, err := s.provider.NewAccessResponse(ctx, ar)
	if err != nil {
		s.accessError(w, r, ar, err)
		return
	}
	s.provider.WriteAccessResponse(ctx, w, ar, resp)
}

func (s *Server) accessError(w http.ResponseWriter, r *http.Request, ar fosite.AccessRequester, err error) {
	switch {
	case errors.Is(err, fosite.ErrInvalidatedAuthorizeCode):
		// Two exchanges of one code raced and this one lost (fosite
		// reports the storage's refusal as a server error).
		err = fosite.ErrInvalidGrant.WithWrap(err).WithHint("The authorization code was redeemed by a concurrent request.")
	case errors.Is(err, fosite.ErrInactiveToken) && fosite.ErrorToRFC6749Error(err).ErrorField != fosite.ErrInvalidGrant.ErrorField:
		// Two refreshes with one token raced and this one lost. fosite
		// says invalid_request, "retry" — but a retry with the same token
		// is reuse and revokes the grant. invalid_grant says the token is
		// spent.
		err = fosite.ErrInvalidGrant.WithWrap(err).WithHint("The refresh token was redeemed by a concurrent request.")
	}
	rfc := fosite.ErrorToRFC6749Error(err)
	attrs := []any{"error", rfc.ErrorField, "hint", rfc.HintField, "debug", rfc.DebugField, "grant_type", r.PostForm.Get("grant_type")}
	switch {
	case rfc.CodeField >= 500:
		s.log.Error("oauth: token request", append(attrs, "err", err)...)
	case strings.Contains(rfc.DebugField, "re-use was detected"), strings.Contains(rfc.HintField, "already been used"):
		// A refresh token or code presented twice: the grant was
		// revoked. Either the client is buggy or a token leaked.
		s.log.Warn("oauth: token reuse, grant revoked", attrs...)
	default:
		s.log.Info("oauth: token request refused", attrs...)
	}
	if ar == nil {
		ar = fosite.NewAccessRequest(&grantSession{})
	}
	s.provider.WriteAccessError(r.Context(), w, ar, err)
}

// handleRevoke is POST /revoke (RFC 7009): revoking a refresh token — or
// an access token — revokes the whole grant: every refresh token of it
// stops working at once, and so does every access token of it, although
// resource servers verify those without asking us: the grant is marked
// revoked in the database (Storage.RevokeGrant), and the role lookup every
// resource server runs on every request refuses tokens naming it.
func (s *Server) handleRevoke(w http.ResponseWriter, r *http.Request) {
	allowAnyOrigin(w)
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	err := s.provider.NewRevocationRequest(r.Context(), r)
	if err != nil {
		rfc := fosite.ErrorToRFC6749Error(err)
		s.log.Info("oauth: revocation refused", "error", rfc.ErrorField, "debug", rfc.DebugField)
	}
	s.provider.WriteRevocationResponse(r.Context(), w, err)
}
