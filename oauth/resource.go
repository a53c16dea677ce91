package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/identity"
)

// RoleLookup returns the person's current role in the token's organization.
// It runs on every request, so a changed or revoked membership takes effect
// at once rather than when the token expires; an error refuses the token.
// When the token names a grant (identity.Identity.GrantID) the lookup also
// checks, in the same read, that the grant was not revoked, so revocation
// reaches access tokens the resource servers otherwise verify on their own
// (oauth/server/sqlstore.RoleLookup).
type RoleLookup func(ctx context.Context, id *identity.Identity) (identity.Role, error)

// ErrNoMembership is what a RoleLookup returns when the person no longer
// belongs to the organization.
var ErrNoMembership = errors.New("no membership in the organization")

// ErrGrantRevoked is what a RoleLookup returns when the token's grant was
// revoked (at /revoke, or by the reuse of a code or refresh token): the
// token is refused as invalid_token, like an expired one, although its
// signature and lifetime are still good.
var ErrGrantRevoked = errors.New("the grant was revoked")

// ResourceServer guards one protected resource — an MCP endpoint or a REST
// API — as RFC 9728 and the MCP authorization spec describe. It implements
// mcp.Authorizer.
type ResourceServer struct {
	// Resource is the exact, canonical URL of the resource; tokens must be
	// issued for it (their audience).
	Resource string
	// MetadataURL is where its protected resource metadata is served
	// (WellKnownURL(Resource)).
	MetadataURL string
	// AuthorizationServers are the issuers clients may get tokens from.
	AuthorizationServers []string
	// Scopes are the scopes this resource understands.
	Scopes []string
	// Name is a human-readable name for the metadata.
	Name     string
	Verifier Verifier
	Roles    RoleLookup
}

// WellKnownURL returns the path-inserted metadata URL of a resource:
// https://host/mcp → https://host/.well-known/oauth-protected-resource/mcp.
func WellKnownURL(resource string) string {
	scheme, rest, _ := strings.Cut(resource, "://")
	host, path, _ := strings.Cut(rest, "/")
	u := scheme + "://" + host + "/.well-known/oauth-protected-resource"
	if path != "" {
		u += "/" + path
	}
	return u
}

// Metadata is the RFC 9728 document.
type Metadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers"`
	ScopesSupported        []string `json:"scopes_supported,omitempty"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ResourceName           string   `json:"resource_name,omitempty"`
}

// ServeMetadata serves the protected resource metadata document.
func (rs *ResourceServer) ServeMetadata(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	_ = json.NewEncoder(w).Encode(Metadata{
		Resource: rs.Resource, AuthorizationServers: rs.AuthorizationServers, ScopesSupported: rs.Scopes,
		BearerMethodsSupported: []string{"header"}, ResourceName: rs.Name,
	})
}

// Identify verifies the request's bearer token. It returns nil and the
// reason when there is no valid token.
func (rs *ResourceServer) Identify(r *http.Request) (*identity.Identity, error) {
	auth := r.Header.Values("Authorization")
	if len(auth) == 0 {
		return nil, errNoToken
	}
	scheme, token, ok := strings.Cut(auth[0], " ")
	if len(auth) > 1 || !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return nil, errors.Join(ErrInvalidToken, errors.New("use one Authorization: Bearer header"))
	}
	id, err := rs.Verifier.Verify(r.Context(), strings.TrimSpace(token))
	if err != nil {
		return nil, err
	}
	if rs.Roles != nil {
		role, err := rs.Roles(r.Context(), id)
		if errors.Is(err, ErrGrantRevoked) {
			return nil, errors.Join(ErrInvalidToken, errors.New("the token's grant was revoked"))
		}
		if err != nil {
			return nil, errors.Join(ErrInvalidToken, errors.New("the person no longer belongs to the organization"))
		}
		id.Role = role
	}
	return id, nil
}

var errNoToken = errors.New("no token")

// Authenticate implements mcp.Authorizer: no token is a bare challenge,
// a bad one adds error="invalid_token" (RFC 6750).
func (rs *ResourceServer) Authenticate(w http.ResponseWriter, r *http.Request) (context.Context, bool) {
	id, err := rs.Identify(r)
	if err != nil {
		rs.Unauthorized(w, err)
		return nil, false
	}
	return identity.With(r.Context(), id), true
}

// Challenge returns the WWW-Authenticate value and the OAuth error code
// and description for a failed identification: a bare challenge when no
// token was sent, error="invalid_token" when a bad one was (RFC 6750).
func (rs *ResourceServer) Challenge(err error) (header, code, description string) {
	if errors.Is(err, errNoToken) {
		return `Bearer resource_metadata="` + rs.MetadataURL + `", scope="` + strings.Join(rs.Scopes, " ") + `"`,
			"invalid_request", "an access token is required"
	}
	desc := strings.TrimPrefix(err.Error(), ErrInvalidToken.Error()+": ")
	desc = strings.ReplaceAll(strings.ReplaceAll(desc, "\n", "; "), `"`, "'")
	return `Bearer error="invalid_token", error_description="` + desc + `", resource_metadata="` + rs.MetadataURL + `", scope="` + strings.Join(rs.Scopes, " ") + `"`,
		"invalid_token", desc
}

// StepUpChallenge returns the WWW-Authenticate value asking for scopes.
func (rs *ResourceServer) StepUpChallenge(scopes []string) string {
	return `Bearer error="insufficient_scope", scope="` + strings.Join(scopes, " ") + `", resource_metadata="` + rs.MetadataURL + `", error_description="this operation needs more scopes"`
}

// Unauthorized writes the 401 challenge for err.
func (rs *ResourceServer) Unauthorized(w http.ResponseWriter, err error) {
	header, code, desc := rs.Challenge(err)
	w.Header().Set("WWW-Authenticate", header)
	writeOAuthError(w, http.StatusUnauthorized, oauthError{Error: code, Description: desc})
}

// Access implements mcp.Authorizer: the person's role decides whether the
// entry exists for them at all; the token's scopes whether it may run now.
func (rs *ResourceServer) Access(ctx context.Context, req mcp.Requirement) mcp.Access {
	id := identity.From(ctx)
	if id == nil || !id.Role.Allows(req.Permission) {
		return mcp.Hidden
	}
	if !id.HasScopes(req.Scopes) {
		return mcp.NeedsScope
	}
	return mcp.Allowed
}

// AccessClass implements mcp.AccessClasser: Access depends on the
// person's role and the token's scopes alone, so callers with the same
// role and scopes see the same catalog, and the MCP endpoint builds each
// class's tools/list once (docs/decisions.md, "Performance of the
// signed-in path").
func (rs *ResourceServer) AccessClass(ctx context.Context) (string, bool) {
	id := identity.From(ctx)
	if id == nil {
		return "", false
	}
	return string(id.Role) + "\x00" + strings.Join(id.Scopes, "\x00"), true
}

// InsufficientScope implements mcp.Authorizer: 403 with a step-up challenge
// naming every scope the operation needs, so the client asks once.
func (rs *ResourceServer) InsufficientScope(w http.ResponseWriter, r *http.Request, req mcp.Requirement) {
	w.Header().Set("WWW-Authenticate", rs.StepUpChallenge(req.Scopes))
	writeOAuthError(w, http.StatusForbidden, oauthError{Error: "insufficient_scope", Description: "this operation needs the scopes " + strings.Join(req.Scopes, " ")})
}

// Principal implements mcp.Authorizer.
func (rs *ResourceServer) Principal(ctx context.Context) string {
	if id := identity.From(ctx); id != nil {
		return id.Principal()
	}
	return ""
}

type oauthError struct {
	Error       string `json:"error"`
	Description string `json:"error_description,omitempty"`
}

func writeOAuthError(w http.ResponseWriter, status int, e oauthError) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(e)
}
