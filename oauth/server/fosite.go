package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v3"
	"github.com/ory/fosite"
	"github.com/ory/fosite/handler/oauth2"
	"github.com/ory/fosite/handler/pkce"
	fositestorage "github.com/ory/fosite/storage"

	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/platform/pagetext"
)

// This file adapts fosite to this server: the session that travels with a
// grant, the client, the token strategies (access tokens are our JWTs,
// codes and refresh tokens opaque random strings looked up by hash), the
// client secret hasher, and the storage adapter over Storage. Every
// protocol check — PKCE, redirect URI matching, code and refresh token
// single use, client authentication, grant types, scopes and audiences
// against the client — is fosite's.

// grantSession is what a grant carries from consent to every token issued from
// it: who signed in and for which organization.
type grantSession struct {
	// Subject is the token's "sub": the person's user id.
	Subject        string    `json:"sub"`
	UserID         string    `json:"uid,omitempty"`
	Email          string    `json:"email,omitempty"`
	OrganizationID string    `json:"org"`
	WorkspaceID    string    `json:"ws,omitempty"`
	AuthTime       time.Time `json:"auth_time,omitzero"`
	// ExpiresAt holds the expiry of each token kind fosite issued.
	ExpiresAt map[fosite.TokenType]time.Time `json:"exp,omitempty"`
}

var _ fosite.Session = (*grantSession)(nil)

// SetExpiresAt implements fosite.Session.
func (s *grantSession) SetExpiresAt(key fosite.TokenType, exp time.Time) {
	if s.ExpiresAt == nil {
		s.ExpiresAt = map[fosite.TokenType]time.Time{}
	}
	s.ExpiresAt[key] = exp
}

// GetExpiresAt implements fosite.Session.
func (s *grantSession) GetExpiresAt(key fosite.TokenType) time.Time {
	if s == nil {
		return time.Time{}
	}
	return s.ExpiresAt[key]
}

// GetUsername implements fosite.Session.
func (s *grantSession) GetUsername() string {
	if s == nil {
		return ""
	}
	return s.Email
}

// GetSubject implements fosite.Session.
func (s *grantSession) GetSubject() string {
	if s == nil {
		return ""
	}
	return s.Subject
}

// Clone implements fosite.Session.
func (s *grantSession) Clone() fosite.Session {
	if s == nil {
		return nil
	}
	c := *s
	c.ExpiresAt = maps.Clone(s.ExpiresAt)
	return &c
}

// clientSource tells how a client is known.
type clientSource string

// Client sources.
const (
	// SourceRegistered: Dynamic Client Registration (RFC 7591).
	sourceRegistered clientSource = "registered"
	// SourceMetadataDocument: the client id is the URL of its metadata
	// document.
	sourceMetadataDocument clientSource = "metadata-document"
	// sourceStored: a client named by a stored grant, with nothing but its
	// id — enough for fosite's checks that a token is presented by the
	// client it was issued to.
	sourceStored clientSource = "stored"
)

// oauthClient is an OAuth client as fosite sees it. Every client may ask for
// this product's scopes and resources only.
type oauthClient struct {
	ID     string
	Name   string
	Source clientSource
	// Verified is true when the name comes from a metadata document served
	// over HTTPS by the client id's own host: Host vouches for it. A
	// registered client names itself, unverified.
	Verified bool
	Host     string

	SecretHash    []byte
	RedirectURIs  []string
	GrantTypes    []string
	ResponseTypes []string
	AuthMethod    string

	scopes   []string
	audience []string
}

var (
	_ fosite.Client              = (*oauthClient)(nil)
	_ fosite.OpenIDConnectClient = (*oauthClient)(nil)
)

func (c *oauthClient) GetID() string                   { return c.ID }
func (c *oauthClient) GetHashedSecret() []byte         { return c.SecretHash }
func (c *oauthClient) GetRedirectURIs() []string       { return c.RedirectURIs }
func (c *oauthClient) GetGrantTypes() fosite.Arguments { return c.GrantTypes }
func (c *oauthClient) GetResponseTypes() fosite.Arguments {
	return c.ResponseTypes
}
func (c *oauthClient) GetScopes() fosite.Arguments   { return c.scopes }
func (c *oauthClient) IsPublic() bool                { return c.AuthMethod == "none" }
func (c *oauthClient) GetAudience() fosite.Arguments { return c.audience }

// The OpenIDConnectClient methods make fosite hold the client to its
// registered token_endpoint_auth_method; the rest are unused.
func (c *oauthClient) GetRequestURIs() []string                     { return nil }
func (c *oauthClient) GetJSONWebKeys() *jose.JSONWebKeySet          { return nil }
func (c *oauthClient) GetJSONWebKeysURI() string                    { return "" }
func (c *oauthClient) GetRequestObjectSigningAlgorithm() string     { return "" }
func (c *oauthClient) GetTokenEndpointAuthMethod() string           { return c.AuthMethod }
func (c *oauthClient) GetTokenEndpointAuthSigningAlgorithm() string { return "" }

// DisplayName is the name to show a person: its own, else its host, else
// "" (the page then says, in its language, that it has none: clientName).
func (c *oauthClient) DisplayName() string {
	if c.Name != "" {
		return c.Name
	}
	return c.Host
}

// clientName is the name a page in l's language shows for c.
func clientName(l *pagetext.Printer, c *oauthClient) string {
	if n := c.DisplayName(); n != "" {
		return n
	}
	return l.Say(pagetext.KeyClientUnnamed)
}

// fositeConfig is fosite's configuration with what a struct field cannot
// say.
type fositeConfig struct{ *fosite.Config }

// GetMinParameterEntropy accepts a state of any length: OAuth 2.1 makes
// state optional when PKCE (mandatory here) protects the redirect, and
// fosite would refuse states under 8 characters. fosite reads 0 as "its
// default", so 1 is the least; an absent state is handled by the
// authorization endpoint (see noState).
func (fositeConfig) GetMinParameterEntropy(context.Context) int { return 1 }

// sha256Hasher hashes client secrets. Secrets are 256 random bits minted
// here, so a slow password hash would add cost without adding safety.
type sha256Hasher struct{}

func (sha256Hasher) Hash(_ context.Context, data []byte) ([]byte, error) {
	h := sha256.Sum256(data)
	return h[:], nil
}

func (sha256Hasher) Compare(_ context.Context, hash, data []byte) error {
	h := sha256.Sum256(data)
	if len(hash) != len(h) || subtle.ConstantTimeCompare(hash, h[:]) != 1 {
		return errors.New("client secret mismatch")
	}
	return nil
}

// signatureOf is the storage key of a token: its SHA-256, base64url.
func signatureOf(token string) string {
	h := sha256.Sum256([]byte(token))
	return base64.RawURLEncoding.EncodeToString(h[:])
}

// Prefixes of opaque tokens, so a leaked one is recognizable (and
// scanners can find them).
const (
	codePrefix    = "kac_"
	refreshPrefix = "krt_"
)

func randomToken(prefix string) (token, signature string, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", "", err
	}
	token = prefix + base64.RawURLEncoding.EncodeToString(b)
	return token, signatureOf(token), nil
}

// tokens is fosite's token strategy: JWT access tokens minted by the
// oauth.Issuer (so oauth.JWTVerifier verifies them), opaque codes and
// refresh tokens.
type tokens struct {
	issuer *oauth.Issuer
}

var _ oauth2.CoreStrategy = (*tokens)(nil)

func (t *tokens) AccessTokenSignature(_ context.Context, token string) string {
	return signatureOf(token)
}

func (t *tokens) GenerateAccessToken(_ context.Context, r fosite.Requester) (string, string, error) {
	sess, ok := r.GetSession().(*grantSession)
	if !ok || sess == nil {
		return "", "", errors.New("oauth server: no session on the grant")
	}
	aud := r.GetGrantedAudience()
	if len(aud) != 1 {
		return "", "", fmt.Errorf("oauth server: a token is for exactly one resource, the grant has %d", len(aud))
	}
	var scopes []string
	for _, s := range r.GetGrantedScopes() {
		if s != OfflineAccess {
			scopes = append(scopes, s)
		}
	}
	ttl := time.Duration(0)
	if exp := sess.GetExpiresAt(fosite.AccessToken); !exp.IsZero() {
		ttl = time.Until(exp)
		if ttl <= 0 {
			ttl = time.Second
		}
	}
	// r's id is the grant's: fosite gives the token request the id of the
	// authorization request (at the code exchange) or of the stored grant
	// (at a refresh), so every access token of one authorization, through
	// any number of refreshes, carries the same id, the one revocation
	// marks (RevokeAccessToken, RevokeRefreshToken).
	if r.GetID() == "" {
		return "", "", errors.New("oauth server: a grant without an id")
	}
	tok, _, err := t.issuer.Issue(oauth.Grant{
		Subject: sess.Subject, OrganizationID: sess.OrganizationID, UserID: sess.UserID, Email: sess.Email,
		ClientID: r.GetClient().GetID(), WorkspaceID: sess.WorkspaceID,
		Audience: aud[0], Scopes: scopes, TTL: ttl, GrantID: r.GetID(),
	})
	if err != nil {
		return "", "", err
	}
	return tok, signatureOf(tok), nil
}

func (t *tokens) ValidateAccessToken(_ context.Context, r fosite.Requester, _ string) error {
	return notExpired(r, fosite.AccessToken)
}

func (t *tokens) RefreshTokenSignature(_ context.Context, token string) string {
	return signatureOf(token)
}

func (t *tokens) GenerateRefreshToken(context.Context, fosite.Requester) (string, string, error) {
	return randomToken(refreshPrefix)
}

func (t *tokens) ValidateRefreshToken(_ context.Context, r fosite.Requester, token string) error {
	if !strings.HasPrefix(token, refreshPrefix) {
		return fosite.ErrInvalidTokenFormat
	}
	return notExpired(r, fosite.RefreshToken)
}

func (t *tokens) AuthorizeCodeSignature(_ context.Context, token string) string {
	return signatureOf(token)
}

func (t *tokens) GenerateAuthorizeCode(context.Context, fosite.Requester) (string, string, error) {
	return randomToken(codePrefix)
}

func (t *tokens) ValidateAuthorizeCode(_ context.Context, r fosite.Requester, token string) error {
	if !strings.HasPrefix(token, codePrefix) {
		return fosite.ErrInvalidTokenFormat
	}
	return notExpired(r, fosite.AuthorizeCode)
}

func notExpired(r fosite.Requester, kind fosite.TokenType) error {
	exp := r.GetSession().GetExpiresAt(kind)
	if exp.IsZero() {
		return fosite.ErrTokenExpired.WithHintf("The %s has no expiry.", kind)
	}
	if exp.Before(time.Now()) {
		return fosite.ErrTokenExpired.WithHintf("The %s expired.", kind)
	}
	return nil
}

// storedRequest is a grant request as a Storage keeps it.
type storedRequest struct {
	ID          string    `json:"id"`
	RequestedAt time.Time `json:"requested_at"`
	ClientID    string    `json:"client_id"`
	// ClientGrantTypes are the client's grant types when the grant was
	// made: fosite asks the stored request's client whether it may get a
	// refresh token.
	ClientGrantTypes  []string      `json:"client_grant_types,omitempty"`
	RequestedScopes   []string      `json:"requested_scopes,omitempty"`
	GrantedScopes     []string      `json:"granted_scopes,omitempty"`
	RequestedAudience []string      `json:"requested_audience,omitempty"`
	GrantedAudience   []string      `json:"granted_audience,omitempty"`
	Form              url.Values    `json:"form,omitempty"`
	Session           *grantSession `json:"session"`
}

// fositeStore implements the storage interfaces fosite's handlers need
// over a Storage.
type fositeStore struct {
	st      Storage
	clients func(ctx context.Context, id string) (*oauthClient, error)
	// shell is the client of a stored grant: its id and grant types, and
	// what every client of this server may ask for.
	shell func(id string, grantTypes []string) *oauthClient
	// revokedFor is how long the mark of a revoked grant is kept: longer
	// than any access token issued before the revocation can still be
	// accepted (see Server.New).
	revokedFor time.Duration
}

var (
	_ fosite.Storage                = (*fositeStore)(nil)
	_ oauth2.CoreStorage            = (*fositeStore)(nil)
	_ oauth2.TokenRevocationStorage = (*fositeStore)(nil)
	_ pkce.PKCERequestStorage       = (*fositeStore)(nil)
	_ fositestorage.Transactional   = (*fositeStore)(nil)
)

func (f *fositeStore) GetClient(ctx context.Context, id string) (fosite.Client, error) {
	c, err := f.clients(ctx, id)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Client assertions (private_key_jwt) are not offered: no client is ever
// registered with that method, so fosite refuses them before these run.
func (f *fositeStore) ClientAssertionJWTValid(context.Context, string) error { return nil }
func (f *fositeStore) SetClientAssertionJWT(context.Context, string, time.Time) error {
	return errors.New("oauth server: client assertions are not supported")
}

func (f *fositeStore) create(ctx context.Context, kind Kind, signature string, r fosite.Requester, expiry fosite.TokenType) error {
	sess, _ := r.GetSession().(*grantSession)
	if sess == nil {
		return errors.New("oauth server: a grant without a session")
	}
	data, err := json.Marshal(storedRequest{
		ID: r.GetID(), RequestedAt: r.GetRequestedAt(), ClientID: r.GetClient().GetID(), ClientGrantTypes: r.GetClient().GetGrantTypes(),
		RequestedScopes: r.GetRequestedScopes(), GrantedScopes: r.GetGrantedScopes(),
		RequestedAudience: r.GetRequestedAudience(), GrantedAudience: r.GetGrantedAudience(),
		Form: r.GetRequestForm(), Session: sess,
	})
	if err != nil {
		return err
	}
	exp := sess.GetExpiresAt(expiry)
	if exp.IsZero() {
		exp = time.Now().Add(24 * time.Hour)
	}
	return f.st.CreateRecord(ctx, &Record{
		Kind: kind, Signature: signature, RequestID: r.GetID(), ClientID: r.GetClient().GetID(),
		Subject: sess.Subject, Active: true, ExpiresAt: exp.UTC(), CreatedAt: time.Now().UTC(), Data: data,
	})
}

// get loads a record and its request; inactive records come back too,
// with active false. Like fosite's own SQL stores, it hydrates into — the
// session of the request being handled — with the stored session, so
// checks fosite runs on that request (the code's expiry) see it.
func (f *fositeStore) get(ctx context.Context, kind Kind, signature string, into fosite.Session) (fosite.Requester, bool, error) {
	rec, err := f.st.GetRecord(ctx, kind, signature)
	if errors.Is(err, ErrNotFound) {
		return nil, false, fosite.ErrNotFound
	}
	if err != nil {
		return nil, false, err
	}
	var sr storedRequest
	if err := json.Unmarshal(rec.Data, &sr); err != nil {
		return nil, false, fmt.Errorf("oauth server: stored grant %s: %w", kind, err)
	}
	if sr.Session == nil {
		sr.Session = &grantSession{}
	}
	if target, ok := into.(*grantSession); ok && target != nil {
		// Decoding into the live session merges, as fosite expects: the
		// expiries it set on this request (the new tokens') stay.
		b, err := json.Marshal(sr.Session)
		if err == nil {
			err = json.Unmarshal(b, target)
		}
		if err != nil {
			return nil, false, err
		}
		sr.Session = target
	}
	req := &fosite.Request{
		ID: sr.ID, RequestedAt: sr.RequestedAt, Client: f.shell(sr.ClientID, sr.ClientGrantTypes),
		RequestedScope: sr.RequestedScopes, GrantedScope: sr.GrantedScopes,
		RequestedAudience: sr.RequestedAudience, GrantedAudience: sr.GrantedAudience,
		Form: sr.Form, Session: sr.Session,
	}
	if req.Form == nil {
		req.Form = url.Values{}
	}
	return req, rec.Active, nil
}

func (f *fositeStore) CreateAuthorizeCodeSession(ctx context.Context, signature string, r fosite.Requester) error {
	return f.create(ctx, KindCode, signature, r, fosite.AuthorizeCode)
}

func (f *fositeStore) GetAuthorizeCodeSession(ctx context.Context, signature string, into fosite.Session) (fosite.Requester, error) {
	req, active, err := f.get(ctx, KindCode, signature, into)
	if err != nil {
		return nil, err
	}
	if !active {
		return req, fosite.ErrInvalidatedAuthorizeCode
	}
	return req, nil
}

func (f *fositeStore) InvalidateAuthorizeCodeSession(ctx context.Context, signature string) error {
	err := f.st.DeactivateRecord(ctx, KindCode, signature)
	if errors.Is(err, ErrNotFound) {
		// Another exchange of the same code won the race.
		return fosite.ErrInvalidatedAuthorizeCode
	}
	return err
}

func (f *fositeStore) CreatePKCERequestSession(ctx context.Context, signature string, r fosite.Requester) error {
	return f.create(ctx, KindPKCE, signature, r, fosite.AuthorizeCode)
}

func (f *fositeStore) GetPKCERequestSession(ctx context.Context, signature string, into fosite.Session) (fosite.Requester, error) {
	req, _, err := f.get(ctx, KindPKCE, signature, into)
	return req, err
}

func (f *fositeStore) DeletePKCERequestSession(ctx context.Context, signature string) error {
	return f.st.DeleteRecord(ctx, KindPKCE, signature)
}

func (f *fositeStore) CreateAccessTokenSession(ctx context.Context, signature string, r fosite.Requester) error {
	return f.create(ctx, KindAccess, signature, r, fosite.AccessToken)
}

// GetAccessTokenSession finds an access token's grant. Only revocation
// asks (no introspection is offered), and an access token a refresh has
// retired (inactive) still verifies at every resource server until it
// expires, so it is returned as active: revoking it revokes its grant, and
// with it the token, rather than being a no-op that leaves it working.
func (f *fositeStore) GetAccessTokenSession(ctx context.Context, signature string, into fosite.Session) (fosite.Requester, error) {
	req, _, err := f.get(ctx, KindAccess, signature, into)
	if err != nil {
		return nil, err
	}
	return req, nil
}

func (f *fositeStore) DeleteAccessTokenSession(ctx context.Context, signature string) error {
	return f.st.DeleteRecord(ctx, KindAccess, signature)
}

func (f *fositeStore) CreateRefreshTokenSession(ctx context.Context, signature, _ string, r fosite.Requester) error {
	return f.create(ctx, KindRefresh, signature, r, fosite.RefreshToken)
}

func (f *fositeStore) GetRefreshTokenSession(ctx context.Context, signature string, into fosite.Session) (fosite.Requester, error) {
	req, active, err := f.get(ctx, KindRefresh, signature, into)
	if err != nil {
		return nil, err
	}
	if !active {
		// fosite treats this as reuse and revokes the grant.
		return req, fosite.ErrInactiveToken
	}
	return req, nil
}

func (f *fositeStore) DeleteRefreshTokenSession(ctx context.Context, signature string) error {
	return f.st.DeleteRecord(ctx, KindRefresh, signature)
}

// RotateRefreshToken retires the refresh token being exchanged. It stays,
// inactive, so presenting it again is detected as reuse. Losing a race
// against a concurrent exchange of the same token fails this one.
func (f *fositeStore) RotateRefreshToken(ctx context.Context, requestID, signature string) error {
	if err := f.st.DeactivateRecord(ctx, KindRefresh, signature); err != nil {
		if errors.Is(err, ErrNotFound) {
			return fosite.ErrInactiveToken
		}
		return err
	}
	return f.st.DeactivateGrant(ctx, KindAccess, requestID)
}

// RevokeRefreshToken and RevokeAccessToken are what fosite calls, both of
// them, whenever it revokes a grant: /revoke of either token, a second
// exchange of a code, a retired refresh token presented again. Besides
// retiring the grant's records, each marks the grant revoked (RevokeGrant),
// which is what refuses its access tokens at the resource servers
// (sqlstore.RoleLookup); either call alone is enough, and marking twice is
// no error. A rotation (RotateRefreshToken) is not a revocation: the grant
// lives on, and its earlier access tokens with it until they expire.
func (f *fositeStore) RevokeRefreshToken(ctx context.Context, requestID string) error {
	if err := f.revokeGrant(ctx, requestID); err != nil {
		return err
	}
	return f.st.DeactivateGrant(ctx, KindRefresh, requestID)
}

func (f *fositeStore) RevokeAccessToken(ctx context.Context, requestID string) error {
	if err := f.revokeGrant(ctx, requestID); err != nil {
		return err
	}
	return f.st.DeactivateGrant(ctx, KindAccess, requestID)
}

func (f *fositeStore) revokeGrant(ctx context.Context, requestID string) error {
	if requestID == "" {
		return errors.New("oauth server: revoking a grant without an id")
	}
	now := time.Now().UTC()
	return f.st.RevokeGrant(ctx, requestID, now, now.Add(f.revokedFor))
}

func (f *fositeStore) BeginTX(ctx context.Context) (context.Context, error) { return f.st.BeginTx(ctx) }
func (f *fositeStore) Commit(ctx context.Context) error                     { return f.st.Commit(ctx) }
func (f *fositeStore) Rollback(ctx context.Context) error                   { return f.st.Rollback(ctx) }

// newProvider composes fosite: authorization code with PKCE S256 only,
// refresh tokens with rotation, revocation.
func newProvider(cfg *fosite.Config, store *fositeStore, strategy *tokens) fosite.OAuth2Provider {
	c := fositeConfig{cfg}
	authCode := &oauth2.AuthorizeExplicitGrantHandler{
		AccessTokenStrategy: strategy, RefreshTokenStrategy: strategy, AuthorizeCodeStrategy: strategy,
		CoreStorage: store, TokenRevocationStorage: store, Config: c,
	}
	refresh := &oauth2.RefreshTokenGrantHandler{
		AccessTokenStrategy: strategy, RefreshTokenStrategy: strategy, TokenRevocationStorage: store, Config: c,
	}
	pkceHandler := &pkce.Handler{AuthorizeCodeStrategy: strategy, Storage: store, Config: c}
	revocation := &oauth2.TokenRevocationHandler{
		TokenRevocationStorage: store, AccessTokenStrategy: strategy, RefreshTokenStrategy: strategy,
	}
	// Order matters: the PKCE handler needs the code the code handler
	// issued.
	cfg.AuthorizeEndpointHandlers.Append(authCode)
	cfg.AuthorizeEndpointHandlers.Append(pkceHandler)
	cfg.TokenEndpointHandlers.Append(authCode)
	cfg.TokenEndpointHandlers.Append(refresh)
	cfg.TokenEndpointHandlers.Append(pkceHandler)
	cfg.RevocationHandlers.Append(revocation)
	return fosite.NewOAuth2Provider(store, c)
}
