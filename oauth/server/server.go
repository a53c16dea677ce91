package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ory/fosite"

	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/oauth/server/pages"
	"github.com/kobana/kobana-mcp/platform/pagetext"
)

// Paths of the server's endpoints, relative to the issuer (which has no
// path of its own). The protocol endpoints sit where a 2025-03-26 client
// that finds no metadata looks for them.
const (
	PathMetadata       = "/.well-known/oauth-authorization-server"
	PathOpenIDMetadata = "/.well-known/openid-configuration"
	PathJWKS           = "/.well-known/jwks.json"
	PathAuthorize      = "/authorize"
	PathToken          = "/token"
	PathRevoke         = "/revoke"
	PathRegister       = "/register"
	PathSignIn         = "/oauth/sign-in"
	PathConsent        = "/oauth/consent"
	PathStyle          = pages.StylePath
)

// Config describes one authorization server: the one mounted on a
// product's listener.
type Config struct {
	// Issuer is the listener's public base URL ("https://inbox.example",
	// "http://127.0.0.1:8081"): scheme, host and port, no path.
	Issuer string
	// ProductName is what the consent page calls the product.
	ProductName string
	// Resources are the product's protected resources, as canonical URLs:
	// its MCP endpoint first (the default when a request names none),
	// then its API base. A token is issued for exactly one of them.
	Resources []string
	// Scopes are the product's scopes (productkit.Spec.Scopes, derived from
	// its operations); a product whose operations need only a valid token
	// may have none.
	Scopes []string
	// ScopeDescriptions say, in plain words, what a person allows when
	// they grant each of Scopes (productkit.Spec.ScopeDescriptions): the
	// consent page shows them in its language, and a scope without one
	// shows its name. The server knows no product's scopes of its own.
	ScopeDescriptions map[string]pagetext.Phrase
	// Keys sign access tokens.
	Keys *oauth.KeySet
	// Store keeps clients, grants and browser sessions.
	Store Storage
	// Accounts signs people in and lists their organizations.
	Accounts Accounts
	Logger   *slog.Logger

	// AllowInsecureCIMD accepts http:// client metadata document URLs and
	// lets the metadata fetcher connect to loopback addresses.
	//
	// DEVELOPMENT AND TESTS ONLY. NEVER SET IT IN PRODUCTION. With it on,
	// anyone who can reach the authorization page can make this server
	// send requests to services listening on its own loopback interface
	// (an SSRF hole), and a metadata document fetched over plain HTTP can
	// be forged by anyone on the path. Private, link-local and other
	// special addresses stay refused even then.
	AllowInsecureCIMD bool

	// AccessTokenTTL is the lifetime of access tokens (default 15 min). It
	// must not exceed the key set's MaxTokenLifetime.
	AccessTokenTTL time.Duration
	// RefreshTokenTTL is how long a refresh token may wait to be used
	// (default 30 days); every refresh issues a new one.
	RefreshTokenTTL time.Duration
	// CodeTTL is the lifetime of an authorization code (default 5 min).
	CodeTTL time.Duration
	// SessionTTL is how long a person stays signed in to the pages
	// (default 12 h).
	SessionTTL time.Duration

	// SignInPerIP and SignInPerEmail limit sign-in attempts: every attempt
	// counts against the address (default 10 at once, then one every 6 s);
	// failed ones against the email too (default 5, then one a minute).
	SignInPerIP    Limit
	SignInPerEmail Limit
	// RegistrationPerIP limits Dynamic Client Registration (default 20 at
	// once, then one a minute).
	RegistrationPerIP Limit
	// MetadataFetchPerIP limits how many client metadata documents not in
	// the cache one address can make this server fetch (default 30 at
	// once, then one every 10 s).
	MetadataFetchPerIP Limit
	// TokenPerIP limits requests to the token endpoint (default 60 at
	// once, then one a second).
	TokenPerIP Limit
	// NewLimiter makes the limiter of each limit above, named
	// "sign-in-ip", "sign-in-email", "registration-ip", "token-ip" and
	// "metadata-fetch-ip"; nil keeps token buckets in this process's
	// memory. Set it to share the counts among replicas.
	NewLimiter func(name string, l Limit) Limiter
	// ClientIP tells the address a request came from, for the limits
	// (default: the connection's peer; set it behind a reverse proxy).
	ClientIP func(*http.Request) string

	// ReturnPaths are path prefixes of the product's own pages (for
	// example "/approvals/") the sign-in page may send a person back to,
	// besides /authorize; see SignInURL and Visitor (visitor.go).
	ReturnPaths []string
}

// Server is the built-in OAuth 2.1 authorization server of one product
// listener.
type Server struct {
	issuer       string
	product      string
	resources    []string
	scopes       []string
	descriptions map[string]pagetext.Phrase
	clientScopes []string
	keys         *oauth.KeySet
	store        Storage
	accounts     Accounts
	log          *slog.Logger

	provider  fosite.OAuth2Provider
	documents *metadataDocuments
	sessions  *sessions
	csrf      *http.CrossOriginProtection

	signInIP, signInEmail, register, token Limiter
	clientIP                               func(*http.Request) string
	returnPaths                            []string

	// reasons say why people sign in on the way to a product's pages, by
	// path prefix (ExplainReturns, signin_reason.go).
	reasonsMu sync.RWMutex
	reasons   map[string]SignInReason

	lastPurge atomic.Int64
	metadata  []byte
}

// New builds the authorization server described by c.
func New(c Config) (*Server, error) {
	iss, err := url.Parse(c.Issuer)
	if err != nil || (iss.Scheme != "https" && iss.Scheme != "http") || iss.Host == "" || (iss.Path != "" && iss.Path != "/") || iss.RawQuery != "" || iss.Fragment != "" {
		return nil, fmt.Errorf("oauth server: issuer %q must be an http(s) base URL without a path", c.Issuer)
	}
	issuer := strings.TrimSuffix(c.Issuer, "/")
	switch {
	case len(c.Resources) == 0:
		return nil, errors.New("oauth server: no resources")
	case c.Keys == nil || c.Store == nil || c.Accounts == nil:
		return nil, errors.New("oauth server: Keys, Store and Accounts are required")
	}
	var resources []string
	for _, r := range c.Resources {
		canon, ok := canonicalResource(r)
		if !ok {
			return nil, fmt.Errorf("oauth server: resource %q is not an absolute http(s) URL", r)
		}
		resources = append(resources, canon)
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	c.AccessTokenTTL = orDefault(c.AccessTokenTTL, 15*time.Minute)
	c.RefreshTokenTTL = orDefault(c.RefreshTokenTTL, 30*24*time.Hour)
	c.CodeTTL = orDefault(c.CodeTTL, 5*time.Minute)
	c.SessionTTL = orDefault(c.SessionTTL, 12*time.Hour)
	if c.SignInPerIP == (Limit{}) {
		c.SignInPerIP = Limit{Every: 6 * time.Second, Burst: 10}
	}
	if c.SignInPerEmail == (Limit{}) {
		c.SignInPerEmail = Limit{Every: time.Minute, Burst: 5}
	}
	if c.RegistrationPerIP == (Limit{}) {
		c.RegistrationPerIP = Limit{Every: time.Minute, Burst: 20}
	}
	if c.MetadataFetchPerIP == (Limit{}) {
		c.MetadataFetchPerIP = Limit{Every: 10 * time.Second, Burst: 30}
	}
	if c.TokenPerIP == (Limit{}) {
		c.TokenPerIP = Limit{Every: time.Second, Burst: 60}
	}
	if c.ClientIP == nil {
		c.ClientIP = remoteIP
	}
	if c.NewLimiter == nil {
		c.NewLimiter = func(_ string, l Limit) Limiter { return newKeyedLimiter(l) }
	}
	s := &Server{
		issuer: issuer, product: c.ProductName, resources: resources,
		scopes: slices.Clone(c.Scopes), descriptions: maps.Clone(c.ScopeDescriptions), clientScopes: append(slices.Clone(c.Scopes), OfflineAccess),
		keys: c.Keys, store: c.Store, accounts: c.Accounts, log: c.Logger,
		sessions:    newSessions(c.Store, issuer, iss.Scheme == "https", c.SessionTTL),
		csrf:        http.NewCrossOriginProtection(),
		signInIP:    c.NewLimiter("sign-in-ip", c.SignInPerIP),
		signInEmail: c.NewLimiter("sign-in-email", c.SignInPerEmail),
		register:    c.NewLimiter("registration-ip", c.RegistrationPerIP),
		token:       c.NewLimiter("token-ip", c.TokenPerIP),
		clientIP:    c.ClientIP,
		returnPaths: slices.Clone(c.ReturnPaths),
	}
	if s.product == "" {
		s.product = issuer
	}
	s.csrf.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.errorPage(w, r, http.StatusForbidden, pagetext.KeyCrossSiteTitle, pagetext.KeyConsentExpired)
	}))
	s.documents = newMetadataDocuments(c.AllowInsecureCIMD, c.Logger, s.completeClient)
	fetches := c.NewLimiter("metadata-fetch-ip", c.MetadataFetchPerIP)
	s.documents.mayFetch = func(ctx context.Context) bool {
		// fosite puts the request it is handling in the context.
		r, ok := ctx.Value(fosite.RequestContextKey).(*http.Request)
		return !ok || fetches.Allow(ctx, s.clientIP(r))
	}
	cfg := &fosite.Config{
		AccessTokenLifespan:            c.AccessTokenTTL,
		RefreshTokenLifespan:           c.RefreshTokenTTL,
		AuthorizeCodeLifespan:          c.CodeTTL,
		EnforcePKCE:                    true,
		EnablePKCEPlainChallengeMethod: false,
		ScopeStrategy:                  fosite.ExactScopeStrategy,
		AudienceMatchingStrategy:       fosite.ExactAudienceMatchingStrategy,
		// Every client allowed the refresh grant gets a refresh token; see
		// OfflineAccess.
		RefreshTokenScopes:  []string{},
		ClientSecretsHasher: sha256Hasher{},
		TokenURL:            issuer + PathToken,
		RedirectSecureChecker: func(_ context.Context, u *url.URL) bool {
			return checkRedirectURI(u.String()) == nil
		},
	}
	store := &fositeStore{
		st:      c.Store,
		clients: s.getClient,
		shell: func(id string, grantTypes []string) *oauthClient {
			return s.completeClient(&oauthClient{ID: id, Source: sourceStored, GrantTypes: grantTypes, ResponseTypes: []string{"code"}})
		},
		revokedFor: c.AccessTokenTTL + revokedGrantMargin,
	}
	s.provider = newProvider(cfg, store, &tokens{issuer: &oauth.Issuer{URL: issuer, Keys: c.Keys}})
	s.metadata, err = json.Marshal(s.Metadata())
	if err != nil {
		return nil, err
	}
	return s, nil
}

// revokedGrantMargin is how much longer than AccessTokenTTL the mark of a
// revoked grant is kept: beyond the resource servers' 30-second leeway on
// a token's expiry (oauth.JWTVerifier) and any difference between the
// clocks of the replicas, so no access token of the grant outlives it.
const revokedGrantMargin = 5 * time.Minute

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Issuer is the server's issuer identifier.
func (s *Server) Issuer() string { return s.issuer }

// Routes mounts every endpoint on mux:
//
//	GET  /.well-known/oauth-authorization-server  RFC 8414 metadata
//	GET  /.well-known/openid-configuration        the same document
//	GET  /.well-known/jwks.json                   the public signing keys
//	GET  /authorize                               authorization endpoint
//	POST /token                                   token endpoint
//	POST /revoke                                  revocation (RFC 7009)
//	POST /register                                registration (RFC 7591)
//	GET  /oauth/sign-in, POST /oauth/sign-in      sign-in page
//	POST /oauth/consent                           the consent form's target
//	GET  /oauth/style.css                         the pages' style sheet
//
// The endpoints a browser-based client calls from another origin
// (metadata, keys, token, revocation, registration) answer CORS
// preflights and allow any origin; none of them reads cookies.
func (s *Server) Routes(mux *http.ServeMux) {
	mux.HandleFunc("GET "+PathMetadata, s.serveMetadata)
	mux.HandleFunc("GET "+PathOpenIDMetadata, s.serveMetadata)
	mux.HandleFunc("GET "+PathJWKS, s.serveJWKS)
	mux.HandleFunc("GET "+PathAuthorize, s.handleAuthorize)
	mux.HandleFunc("POST "+PathToken, s.handleToken)
	mux.HandleFunc("POST "+PathRevoke, s.handleRevoke)
	mux.HandleFunc("POST "+PathRegister, s.handleRegister)
	for _, p := range []string{PathMetadata, PathOpenIDMetadata, PathJWKS, PathToken, PathRevoke, PathRegister} {
		mux.HandleFunc("OPTIONS "+p, preflight)
	}
	mux.HandleFunc("GET "+PathSignIn, s.showSignIn)
	mux.Handle("POST "+PathSignIn, s.csrf.Handler(http.HandlerFunc(s.handleSignIn)))
	mux.Handle("POST "+PathConsent, s.csrf.Handler(http.HandlerFunc(s.handleConsent)))
	mux.Handle("GET "+PathStyle, pages.Style())
}

// Handler is a mux with only this server's routes, for tests and for
// serving it alone.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	s.Routes(mux)
	return mux
}

// Metadata is the RFC 8414 authorization server metadata.
type Metadata struct {
	Issuer                                     string   `json:"issuer"`
	AuthorizationEndpoint                      string   `json:"authorization_endpoint"`
	TokenEndpoint                              string   `json:"token_endpoint"`
	RegistrationEndpoint                       string   `json:"registration_endpoint"`
	RevocationEndpoint                         string   `json:"revocation_endpoint"`
	JWKSURI                                    string   `json:"jwks_uri"`
	ScopesSupported                            []string `json:"scopes_supported"`
	ResponseTypesSupported                     []string `json:"response_types_supported"`
	ResponseModesSupported                     []string `json:"response_modes_supported"`
	GrantTypesSupported                        []string `json:"grant_types_supported"`
	CodeChallengeMethodsSupported              []string `json:"code_challenge_methods_supported"`
	TokenEndpointAuthMethodsSupported          []string `json:"token_endpoint_auth_methods_supported"`
	RevocationEndpointAuthMethodsSupported     []string `json:"revocation_endpoint_auth_methods_supported"`
	ClientIDMetadataDocumentSupported          bool     `json:"client_id_metadata_document_supported"`
	AuthorizationResponseISSParameterSupported bool     `json:"authorization_response_iss_parameter_supported"`
}

// Metadata returns the server's metadata document.
func (s *Server) Metadata() Metadata {
	return Metadata{
		Issuer:                                     s.issuer,
		AuthorizationEndpoint:                      s.issuer + PathAuthorize,
		TokenEndpoint:                              s.issuer + PathToken,
		RegistrationEndpoint:                       s.issuer + PathRegister,
		RevocationEndpoint:                         s.issuer + PathRevoke,
		JWKSURI:                                    s.issuer + PathJWKS,
		ScopesSupported:                            s.clientScopes,
		ResponseTypesSupported:                     []string{"code"},
		ResponseModesSupported:                     []string{"query"},
		GrantTypesSupported:                        supportedGrantTypes,
		CodeChallengeMethodsSupported:              []string{"S256"},
		TokenEndpointAuthMethodsSupported:          supportedAuthMethods,
		RevocationEndpointAuthMethodsSupported:     supportedAuthMethods,
		ClientIDMetadataDocumentSupported:          true,
		AuthorizationResponseISSParameterSupported: true,
	}
}

func allowAnyOrigin(w http.ResponseWriter) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
}

func preflight(w http.ResponseWriter, r *http.Request) {
	allowAnyOrigin(w)
	w.Header().Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
	w.Header().Set("Access-Control-Allow-Headers", "Authorization, Content-Type, MCP-Protocol-Version")
	w.Header().Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) serveMetadata(w http.ResponseWriter, r *http.Request) {
	allowAnyOrigin(w)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(s.metadata)
}

func (s *Server) serveJWKS(w http.ResponseWriter, r *http.Request) {
	if err := s.keys.Rotate(); err != nil {
		s.log.Error("oauth: rotating keys", "err", err)
	}
	allowAnyOrigin(w)
	w.Header().Set("Content-Type", "application/jwk-set+json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_ = json.NewEncoder(w).Encode(s.keys.JWKS())
}

// canonicalResource returns the canonical form of a resource indicator
// (RFC 8707 / MCP): absolute http(s), lower-case scheme and host, no
// fragment, no trailing slash.
func canonicalResource(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http" && u.Scheme != "HTTPS" && u.Scheme != "HTTP") || u.Host == "" || u.Fragment != "" || strings.Contains(raw, "#") || u.User != nil {
		return "", false
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = ""
	return u.String(), true
}

// resourceFor picks the one resource a request is for: the one it names,
// or the MCP endpoint when it names none.
func (s *Server) resourceFor(values []string) (string, error) {
	switch len(values) {
	case 0:
		return s.resources[0], nil
	case 1:
	default:
		return "", errInvalidTarget.WithHint("Name exactly one resource per request: a token is issued for one resource.")
	}
	canon, ok := canonicalResource(values[0])
	if !ok {
		return "", errInvalidTarget.WithHintf("The resource %q is not an absolute URL without a fragment.", values[0])
	}
	if !slices.Contains(s.resources, canon) {
		return "", errInvalidTarget.WithHintf("This server issues tokens for %s only.", strings.Join(s.resources, " and "))
	}
	return canon, nil
}

// errInvalidTarget is RFC 8707's error for a resource we do not serve.
var errInvalidTarget = &fosite.RFC6749Error{
	ErrorField:       "invalid_target",
	DescriptionField: "The requested resource is invalid, unknown, or malformed.",
	CodeField:        http.StatusBadRequest,
}

// PurgeExpired deletes expired grant records and sessions. The server
// calls it by itself every few minutes from the token endpoint; a job may
// call it too.
func (s *Server) PurgeExpired(ctx context.Context) error {
	return s.store.PurgeExpired(ctx, time.Now().UTC())
}

func (s *Server) maybePurge(ctx context.Context) {
	now := time.Now().Unix()
	last := s.lastPurge.Load()
	if now-last < 600 || !s.lastPurge.CompareAndSwap(last, now) {
		return
	}
	if err := s.PurgeExpired(ctx); err != nil {
		s.log.Warn("oauth: purging expired grants", "err", err)
	}
}

// errorPage answers a page that only says what went wrong: the
// catalogue's title and message (with args), in the request's language.
func (s *Server) errorPage(w http.ResponseWriter, r *http.Request, status int, title, message pagetext.Key, args ...any) {
	l := pagetext.For(r)
	pages.Render(w, status, l, pages.ErrorPage{Product: s.product, Title: l.Say(title), Message: l.Say(message, args...)})
}
