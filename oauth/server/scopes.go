package server

import (
	"slices"

	"github.com/kobana/kobana-mcp/platform/pagetext"
)

// OfflineAccess is the scope a client asks for to say it wants to stay
// connected. Refresh tokens are issued to every client allowed the
// refresh_token grant whether or not it asks (access tokens live 15
// minutes; a client that could not refresh would send its person back to
// the sign-in page four times an hour), so the scope only documents the
// intent; it is granted when asked and never put in an access token.
const OfflineAccess = "offline_access"

// ScopeDescription is the plain-words description of scope that the
// consent page shows, in l's language — the product's
// (Config.ScopeDescriptions), or the catalogue's for offline_access, the
// one scope the server itself defines — or the scope itself when none is
// written.
func (s *Server) ScopeDescription(l *pagetext.Printer, scope string) string {
	if d, ok := s.descriptions[scope]; ok {
		if text := l.Pick(d); text != "" {
			return text
		}
	}
	if scope == OfflineAccess {
		return l.Say(pagetext.KeyScopeOfflineAccess)
	}
	return scope
}

// grantableScopes returns what a request for requested may be granted on
// a product offering offered: the requested product scopes, or all of
// them when the request names none of them (nothing requested, or only
// scopes of no meaning here, such as "openid" or another product's);
// offline_access is kept when asked for. Order follows offered.
func grantableScopes(requested, offered []string) []string {
	var out []string
	for _, s := range offered {
		if slices.Contains(requested, s) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		out = append(out, offered...)
	}
	if slices.Contains(requested, OfflineAccess) {
		out = append(out, OfflineAccess)
	}
	return out
}
