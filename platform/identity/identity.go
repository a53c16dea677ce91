// Package identity is who is calling: the verified identity an access token
// carries, the roles people hold in an organization and what each role may
// do, and the scopes of each product. It is shared by the authorization
// server, the resource-server checks of the MCP endpoints and the REST
// APIs, so all three answer the same question the same way.
package identity

import (
	"context"
	"slices"
	"time"
)

// Identity is a verified caller. It travels in the request context, from
// the MCP endpoint's authentication to the in-process API call; the token
// it came from never does.
type Identity struct {
	// Issuer and Subject name the principal as the token did.
	Issuer  string
	Subject string
	// OrganizationID owns every piece of data the caller can reach.
	OrganizationID string
	// UserID is the person (empty for a machine client).
	UserID string
	// Email is the person's sign-in name, for display.
	Email string
	// Role is the person's role in the organization.
	Role Role
	// Scopes are the OAuth scopes the token holds.
	Scopes []string
	// ClientID is the OAuth client the token was issued to.
	ClientID string
	// WorkspaceID binds the token to one workspace (Inbox), when set.
	WorkspaceID string
	// Audience is the resource the token was issued for.
	Audience string
	// GrantID names the built-in authorization server's grant the token
	// was issued from (its "gid" claim), so a revoked grant can be refused
	// while its tokens are unexpired; empty for developer tokens and
	// external issuers' tokens, which no revocation reaches.
	GrantID string
	// Expiry is when the token stops being valid (its "exp"); zero when
	// unknown. A verification is cached no longer (oauth.CachedVerifier).
	Expiry time.Time
}

// HasScope reports whether the token holds scope.
func (id *Identity) HasScope(scope string) bool { return slices.Contains(id.Scopes, scope) }

// HasScopes reports whether the token holds every scope.
func (id *Identity) HasScopes(scopes []string) bool {
	for _, s := range scopes {
		if !id.HasScope(s) {
			return false
		}
	}
	return true
}

// Principal names the caller for binding state to it: issuer, subject and
// organization, so a state minted for one caller opens for no other.
func (id *Identity) Principal() string {
	return id.Issuer + "\x00" + id.Subject + "\x00" + id.OrganizationID
}

type contextKey struct{}

// With returns ctx carrying id.
func With(ctx context.Context, id *Identity) context.Context {
	return context.WithValue(ctx, contextKey{}, id)
}

// From returns the identity in ctx, or nil.
func From(ctx context.Context) *Identity {
	id, _ := ctx.Value(contextKey{}).(*Identity)
	return id
}
