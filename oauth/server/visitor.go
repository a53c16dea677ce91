package server

import (
	"context"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/platform/pagetext"
)

// A product's own pages (an approval page, say) sign people in through this
// server, so a person signs in once per product listener, with the same
// session and cookie as the consent page:
//
//   - Visitor reads the person signed in to the request's session;
//   - SignInURL sends someone who is not signed in to the sign-in page,
//     which comes back to the product page afterwards (only to paths under
//     Config.ReturnPaths, so the page is no open redirect);
//   - Visitor.FormToken and CheckFormToken are the CSRF tokens of the
//     product page's forms, keyed by the session's secret and bound to what
//     the form is about; they never verify as the sign-in or consent forms'
//     tokens, nor theirs as a product page's;
//   - ClientName names an OAuth client for a person.

// Visitor is the person signed in to this server's pages in a browser.
type Visitor struct {
	// UserID and Email are the person's.
	UserID string
	Email  string
	// AuthenticatedAt is when they signed in.
	AuthenticatedAt time.Time

	session *BrowserSession
}

// Visitor returns the person signed in to r's session on this server, or
// nil when nobody is (no cookie, an anonymous or expired session, another
// issuer's session).
func (s *Server) Visitor(r *http.Request) (*Visitor, error) {
	bs, err := s.sessions.load(r)
	if err != nil || bs == nil || bs.UserID == "" {
		return nil, err
	}
	return &Visitor{UserID: bs.UserID, Email: bs.Email, AuthenticatedAt: bs.AuthenticatedAt, session: bs}, nil
}

// FormToken is the CSRF token of a product page's form named form, about
// binding (the id of what it acts on), for this session.
func (v *Visitor) FormToken(form, binding string) string {
	return csrfToken(v.session, pageForm(form), binding)
}

// CheckFormToken reports whether token is FormToken(form, binding) of this
// session.
func (v *Visitor) CheckFormToken(form, binding, token string) bool {
	return checkCSRF(v.session, pageForm(form), binding, token)
}

// pageForm keeps product pages' form names apart from this server's own.
func pageForm(form string) string { return "page\x00" + form }

// SignInURL is the sign-in page (a path on this listener) that sends the
// person back to returnTo once signed in. returnTo must be a path under
// Config.ReturnPaths (with its query, if any); anything else is dropped by
// the sign-in page, which then stays put.
func (s *Server) SignInURL(returnTo string) string {
	return PathSignIn + "?" + url.Values{"next": {returnTo}}.Encode()
}

// ClientName is the name to show a person, on a page in l's language, for
// an OAuth client id: its registered or published name, else its host,
// else the id itself (a client this server does not know, such as a
// developer token's).
func (s *Server) ClientName(ctx context.Context, l *pagetext.Printer, clientID string) string {
	c, err := s.getClient(ctx, clientID)
	if err != nil || c == nil {
		return clientID
	}
	return clientName(l, c)
}

// returnPath reports whether u is a clean path under one of prefixes.
func returnPath(u *url.URL, prefixes []string) bool {
	if u.Path == "" || path.Clean(u.Path) != u.Path {
		return false
	}
	for _, p := range prefixes {
		if p != "" && strings.HasSuffix(p, "/") && strings.HasPrefix(u.Path, p) && len(u.Path) > len(p) {
			return true
		}
	}
	return false
}
