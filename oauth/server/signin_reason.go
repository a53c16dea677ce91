package server

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/kobana/kobana-mcp/platform/pagetext"
)

// The sign-in page says why the person is asked to sign in, derived here
// from where it will send them (next, already checked by safeNext) and
// never from anything else the request says (docs/security.md "Sign-in and
// tokens"):
//
//   - an authorization request: "Entre para conectar «client» à sua conta
//     «Product»", the client's name read from its registration or its
//     metadata document (the same lookup /authorize makes), never from a
//     parameter;
//   - a product page under Config.ReturnPaths: what the SignInReason that
//     page's owner registered says (the approval pages say "Entre para
//     aprovar «tool» pedido por «client»", reading the approval by its id),
//     so this package knows nothing of approvals;
//   - anything else: "Entre na sua conta «Product»".

// SignInReason says why a person is asked to sign in on the way to a
// product's page. It is registered for a prefix of Config.ReturnPaths
// (ExplainReturns).
type SignInReason interface {
	// SignInReason is the sentence, in l's language, for the page next
	// (a clean path under the registered prefix, with its query); ""
	// leaves the general one.
	SignInReason(ctx context.Context, l *pagetext.Printer, next *url.URL) string
}

// ExplainReturns registers why people sign in on the way to the pages under
// prefix (one of Config.ReturnPaths); a later registration for the same
// prefix replaces it.
func (s *Server) ExplainReturns(prefix string, reason SignInReason) {
	s.reasonsMu.Lock()
	defer s.reasonsMu.Unlock()
	if s.reasons == nil {
		s.reasons = map[string]SignInReason{}
	}
	s.reasons[prefix] = reason
}

// signInLead is the sign-in page's sentence for next (a safeNext result).
func (s *Server) signInLead(r *http.Request, l *pagetext.Printer, next string) string {
	general := l.Say(pagetext.KeySignInLeadAccount, s.product)
	u, err := url.Parse(next)
	if next == "" || err != nil {
		return general
	}
	if u.Path == PathAuthorize {
		c, err := s.getClient(r.Context(), u.Query().Get("client_id"))
		if err != nil || c == nil {
			return l.Say(pagetext.KeySignInLeadConnectAny, s.product)
		}
		return l.Say(pagetext.KeySignInLeadConnect, clientName(l, c), s.product)
	}
	s.reasonsMu.RLock()
	var reason SignInReason
	for prefix, rs := range s.reasons {
		if strings.HasPrefix(u.Path, prefix) {
			reason = rs
			break
		}
	}
	s.reasonsMu.RUnlock()
	if reason != nil {
		if text := reason.SignInReason(r.Context(), l, u); text != "" {
			return text
		}
	}
	return general
}
