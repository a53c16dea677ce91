package oauth

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/kobana/kobana-mcp/platform/identity"
)

// AccessClaims are the claims of our JWT access tokens (RFC 9068 profile,
// plus the tenant claims our resource servers need).
type AccessClaims struct {
	jwt.Claims
	Scope     string `json:"scope,omitempty"`
	ClientID  string `json:"client_id,omitempty"`
	Org       string `json:"org,omitempty"`
	UserID    string `json:"uid,omitempty"`
	Email     string `json:"email,omitempty"`
	Workspace string `json:"ws,omitempty"`
	// GrantID is the built-in authorization server's grant (fosite's
	// request id, shared by every token of an authorization through any
	// number of refreshes). Resource servers refuse the token once the
	// grant is revoked, before it expires (docs/operating.md,
	// "Sign-in, tokens and scopes").
	GrantID string `json:"gid,omitempty"`
}

// Grant is what a token is issued for.
type Grant struct {
	Subject        string
	OrganizationID string
	UserID         string
	Email          string
	ClientID       string
	WorkspaceID    string
	// Audience is the one resource (an MCP endpoint or an API) the token
	// is good for (RFC 8707).
	Audience string
	Scopes   []string
	TTL      time.Duration
	// GrantID is the authorization server's grant the token belongs to,
	// written as the "gid" claim so revoking the grant reaches the token.
	// Empty for developer tokens (kobana-mcp token): no grant can be
	// revoked for them, and they live until they expire.
	GrantID string
}

// Issuer mints access tokens signed by the built-in authorization server.
type Issuer struct {
	// URL is the issuer identifier ("iss").
	URL  string
	Keys *KeySet
	Now  func() time.Time
}

// Issue returns a signed access token for g.
func (is *Issuer) Issue(g Grant) (string, time.Time, error) {
	if g.Audience == "" || g.Subject == "" || g.OrganizationID == "" {
		return "", time.Time{}, errors.New("oauth: a grant needs an audience, a subject and an organization")
	}
	if err := is.Keys.Rotate(); err != nil {
		return "", time.Time{}, err
	}
	signer, err := is.Keys.Signer()
	if err != nil {
		return "", time.Time{}, err
	}
	now := time.Now()
	if is.Now != nil {
		now = is.Now()
	}
	ttl := g.TTL
	if ttl <= 0 {
		ttl = 15 * time.Minute
	}
	exp := now.Add(ttl)
	jti := make([]byte, 16)
	if _, err := rand.Read(jti); err != nil {
		return "", time.Time{}, err
	}
	claims := AccessClaims{
		Claims: jwt.Claims{
			Issuer: is.URL, Subject: g.Subject, Audience: jwt.Audience{g.Audience},
			Expiry: jwt.NewNumericDate(exp), NotBefore: jwt.NewNumericDate(now), IssuedAt: jwt.NewNumericDate(now),
			ID: fmt.Sprintf("%x", jti),
		},
		Scope: strings.Join(g.Scopes, " "), ClientID: g.ClientID, Org: g.OrganizationID,
		UserID: g.UserID, Email: g.Email, Workspace: g.WorkspaceID, GrantID: g.GrantID,
	}
	tok, err := jwt.Signed(signer).Claims(claims).Serialize()
	return tok, exp, err
}

// Verifier checks an access token and returns the identity it carries.
type Verifier interface {
	Verify(ctx context.Context, token string) (*identity.Identity, error)
}

// ErrInvalidToken is wrapped by every verification failure; its message is
// safe to show in error_description.
var ErrInvalidToken = errors.New("invalid token")

// acceptedAlgorithms are the asymmetric algorithms a token may be signed
// with. "none" and the HMAC family are never accepted: a resource server
// holding a shared secret could forge tokens for every other one.
var acceptedAlgorithms = []jose.SignatureAlgorithm{jose.ES256, jose.ES384, jose.RS256, jose.PS256, jose.EdDSA}

// KeySource finds a verification key by id.
type KeySource interface {
	Key(ctx context.Context, kid string) (*jose.JSONWebKey, error)
}

// JWTVerifier verifies JWT access tokens from one issuer for one audience.
type JWTVerifier struct {
	// Issuer must equal the token's "iss".
	Issuer string
	// Audience must be among the token's "aud" (RFC 8707: the token was
	// issued for this very resource).
	Audience string
	Keys     KeySource
	// Leeway tolerates clock skew between replicas and clients on exp, nbf
	// and iat (default 30 s): a token is still accepted up to Leeway after
	// its exp (docs/operating.md, "Sign-in, tokens and scopes").
	Leeway time.Duration
	Now    func() time.Time
	// Hints, when set, make the refusals of a token for another product,
	// another resource or past its expiry say whose it is and how to mint
	// the right one (token_hints.go); nil keeps the bare reasons.
	Hints *TokenHints
}

// Verify checks signature, algorithm, issuer, audience and lifetime, then
// maps the claims onto an Identity (role is filled in by the caller).
func (v *JWTVerifier) Verify(ctx context.Context, token string) (*identity.Identity, error) {
	tok, err := jwt.ParseSigned(token, acceptedAlgorithms)
	if err != nil {
		return nil, fmt.Errorf("%w: malformed or unsupported signature algorithm", ErrInvalidToken)
	}
	if len(tok.Headers) != 1 {
		return nil, fmt.Errorf("%w: exactly one signature expected", ErrInvalidToken)
	}
	h := tok.Headers[0]
	if typ, ok := h.ExtraHeaders[jose.HeaderType].(string); ok && !strings.EqualFold(typ, "at+jwt") && !strings.EqualFold(typ, "application/at+jwt") && !strings.EqualFold(typ, "JWT") {
		return nil, fmt.Errorf("%w: not an access token (typ %q)", ErrInvalidToken, typ)
	}
	key, err := v.Keys.Key(ctx, h.KeyID)
	if err != nil || key == nil {
		return nil, fmt.Errorf("%w: unknown signing key", ErrInvalidToken)
	}
	if key.Algorithm != "" && key.Algorithm != h.Algorithm {
		return nil, fmt.Errorf("%w: algorithm does not match the key", ErrInvalidToken)
	}
	var c AccessClaims
	if err := tok.Claims(key.Key, &c); err != nil {
		return nil, fmt.Errorf("%w: bad signature", ErrInvalidToken)
	}
	now := time.Now()
	if v.Now != nil {
		now = v.Now()
	}
	leeway := v.Leeway
	if leeway <= 0 {
		leeway = 30 * time.Second
	}
	if c.Expiry == nil {
		return nil, fmt.Errorf("%w: no expiry", ErrInvalidToken)
	}
	if err := c.Claims.ValidateWithLeeway(jwt.Expected{Issuer: v.Issuer, AnyAudience: jwt.Audience{v.Audience}, Time: now}, leeway); err != nil {
		switch {
		case errors.Is(err, jwt.ErrExpired):
			if v.Hints != nil {
				return nil, fmt.Errorf("%w: %s", ErrInvalidToken, v.Hints.expired(c.Expiry.Time()))
			}
			return nil, fmt.Errorf("%w: expired", ErrInvalidToken)
		case errors.Is(err, jwt.ErrInvalidIssuer):
			if v.Hints != nil {
				return nil, fmt.Errorf("%w: %s", ErrInvalidToken, v.Hints.wrongIssuer(c.Issuer))
			}
			return nil, fmt.Errorf("%w: untrusted issuer", ErrInvalidToken)
		case errors.Is(err, jwt.ErrInvalidAudience):
			if v.Hints != nil {
				return nil, fmt.Errorf("%w: %s", ErrInvalidToken, v.Hints.wrongAudience(cleanAudience(c.Audience)))
			}
			return nil, fmt.Errorf("%w: issued for another resource", ErrInvalidToken)
		case errors.Is(err, jwt.ErrNotValidYet), errors.Is(err, jwt.ErrIssuedInTheFuture):
			return nil, fmt.Errorf("%w: not valid yet", ErrInvalidToken)
		}
		return nil, fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	if c.Subject == "" || c.Org == "" {
		return nil, fmt.Errorf("%w: no subject or organization", ErrInvalidToken)
	}
	return &identity.Identity{
		Issuer: c.Issuer, Subject: c.Subject, OrganizationID: c.Org, UserID: c.UserID, Email: c.Email,
		Scopes: strings.Fields(c.Scope), ClientID: c.ClientID, WorkspaceID: c.Workspace, Audience: v.Audience,
		GrantID: c.GrantID, Expiry: c.Expiry.Time(),
	}, nil
}

// KeySetSource verifies with the built-in key set.
type KeySetSource struct{ Keys *KeySet }

// Key returns the public key with that id.
func (s KeySetSource) Key(_ context.Context, kid string) (*jose.JSONWebKey, error) {
	set := s.Keys.JWKS()
	keys := set.Key(kid)
	if len(keys) == 0 {
		return nil, nil
	}
	return &keys[0], nil
}
