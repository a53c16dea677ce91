package productkit

import (
	"net/http"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/rest"
)

// Auth is a product's two protected resources: its MCP endpoint and its
// REST API. A token is issued for exactly one of them and refused by the
// other, and by every other product.
type Auth struct {
	MCP *oauth.ResourceServer
	API *oauth.ResourceServer
	// limits rate-limits both (nil: unlimited).
	limits RateLimits
}

// AuthConfig describes how a product's tokens are verified.
type AuthConfig struct {
	// PublicURL is the product listener's base URL; MCP and API resources
	// are derived from it.
	PublicURL string
	// APIBase is the API's path ("/api/v1").
	APIBase string
	// Issuers are the trusted authorization servers; the built-in one's
	// issuer is the listener's own URL.
	Issuer string
	// Keys verify tokens (the built-in key set, or an external JWKS).
	Keys oauth.KeySource
	// Scopes of the product.
	Scopes []string
	// Roles looks up the person's current role.
	Roles oauth.RoleLookup
	// Name is the product's display name.
	Name string
	// Limits, when set, rate-limits both resources (ratelimits.go).
	Limits RateLimits
	// Key is the product's --product value ("inbox"); with Places, a
	// refused token says whose it is and how to mint the right one
	// (oauth.TokenHints).
	Key string
	// Places names the deployment's issuers and resources (Deps.Places).
	Places oauth.Places
}

// NewAuth builds a product's resource servers.
func NewAuth(c AuthConfig) *Auth {
	mk := func(resource, name, kind string) *oauth.ResourceServer {
		var hints *oauth.TokenHints
		if c.Key != "" {
			hints = &oauth.TokenHints{Here: oauth.Place{Product: c.Name, Key: c.Key, Resource: kind}, Places: c.Places}
		}
		return &oauth.ResourceServer{
			Resource: resource, MetadataURL: oauth.WellKnownURL(resource), AuthorizationServers: []string{c.Issuer},
			Scopes: c.Scopes, Name: name,
			// A token is verified once, then recognized by its hash until
			// it expires (oauth.CachedVerifier); its role and grant are
			// decided on every request by c.Roles (serve's is a
			// sqlstore.RoleCache, invalidated on every change).
			Verifier: oauth.NewCachedVerifier(&oauth.JWTVerifier{Issuer: c.Issuer, Audience: resource, Keys: c.Keys, Hints: hints}),
			Roles:    c.Roles,
		}
	}
	return &Auth{
		MCP:    mk(c.PublicURL+MCPPath, c.Name+" MCP", "mcp"),
		API:    mk(c.PublicURL+c.APIBase, c.Name+" API", "api"),
		limits: c.Limits,
	}
}

// AuthorizeAPI is the REST API's rest.Config.Authorize: an in-process call
// from the MCP endpoint already carries the identity the endpoint
// verified; any other request must bring a token issued for the API. Either
// way the operation's own scopes and permission are checked again here.
func (a *Auth) AuthorizeAPI(r *http.Request, op *rest.Operation) (*http.Request, *rest.Error) {
	id := identity.From(r.Context())
	if id == nil || !restbridge.InProcess(r.Context()) {
		verified, err := a.API.Identify(r)
		if err != nil {
			header, code, desc := a.API.Challenge(err)
			return nil, &rest.Error{Status: http.StatusUnauthorized, Code: rest.CodeUnauthorized, Message: code + ": " + desc,
				Header: http.Header{"Www-Authenticate": {header}}}
		}
		id = verified
		r = r.WithContext(identity.With(r.Context(), id))
		// Direct API calls are rate-limited here; in-process ones were
		// counted by the MCP endpoint (ratelimits.go).
		if e := a.chargeAPI(r, id, op); e != nil {
			return nil, e
		}
	}
	if !id.Role.Allows(op.Requires.Permission) {
		return nil, rest.Forbidden("your role does not allow this operation")
	}
	if !id.HasScopes(op.Requires.Scopes) {
		return nil, &rest.Error{Status: http.StatusForbidden, Code: rest.CodeForbidden, Message: "the token lacks a scope this operation needs",
			Header: http.Header{"Www-Authenticate": {a.API.StepUpChallenge(op.Requires.Scopes)}}}
	}
	return r, nil
}

// Mount serves the protected resource metadata of both resources: each at
// its path-inserted well-known URL, and the MCP endpoint's at the root too.
func (a *Auth) Mount(mux *http.ServeMux) {
	for _, rs := range []*oauth.ResourceServer{a.MCP, a.API} {
		mux.HandleFunc("GET "+pathOf(rs.MetadataURL), rs.ServeMetadata)
	}
	mux.HandleFunc("GET /.well-known/oauth-protected-resource", a.MCP.ServeMetadata)
}

func pathOf(u string) string {
	for i := len("https://"); i < len(u); i++ {
		if u[i] == '/' {
			return u[i:]
		}
	}
	return "/"
}

// Authorizer is the MCP endpoint's authorizer; nil (open) without auth.
func (a *Auth) Authorizer() mcp.Authorizer {
	if a == nil {
		return nil
	}
	return a.MCP
}

// APIAuthorize is the API's rest.Config.Authorize; nil (open) without auth.
func (a *Auth) APIAuthorize() func(*http.Request, *rest.Operation) (*http.Request, *rest.Error) {
	if a == nil {
		return nil
	}
	return a.AuthorizeAPI
}

// MountIfAny serves the protected resource metadata when auth is on.
func (a *Auth) MountIfAny(mux *http.ServeMux) {
	if a != nil {
		a.Mount(mux)
	}
}
