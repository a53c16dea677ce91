package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

const (
	testIssuer   = "http://127.0.0.1:8081"
	testResource = "http://127.0.0.1:8081/mcp"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newTestIssuer(t *testing.T, c *clock) (*Issuer, *KeySet, *JWTVerifier) {
	t.Helper()
	ks, err := NewKeySet(&MemoryKeyStore{}, KeySetOptions{Rotation: 24 * time.Hour, MaxTokenLifetime: time.Hour, Now: c.now})
	if err != nil {
		t.Fatal(err)
	}
	is := &Issuer{URL: testIssuer, Keys: ks, Now: c.now}
	v := &JWTVerifier{Issuer: testIssuer, Audience: testResource, Keys: KeySetSource{ks}, Now: c.now}
	return is, ks, v
}

func grant() Grant {
	return Grant{Subject: "user-1", OrganizationID: "org-1", UserID: "user-1", Email: "a@b.c", ClientID: "client-1",
		Audience: testResource, Scopes: []string{"inbox.emails", "inbox.inboxes"}, TTL: 10 * time.Minute}
}

func TestIssuedTokenVerifies(t *testing.T) {
	t.Parallel()
	c := &clock{time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	is, _, v := newTestIssuer(t, c)
	tok, exp, err := is.Issue(grant())
	if err != nil {
		t.Fatal(err)
	}
	if !exp.Equal(c.t.Add(10 * time.Minute)) {
		t.Fatalf("expiry %v", exp)
	}
	id, err := v.Verify(context.Background(), tok)
	if err != nil {
		t.Fatal(err)
	}
	if id.Subject != "user-1" || id.OrganizationID != "org-1" || !id.HasScopes([]string{"inbox.emails", "inbox.inboxes"}) || id.ClientID != "client-1" || id.Audience != testResource {
		t.Fatalf("identity %+v", id)
	}
	if parts := strings.Split(tok, "."); len(parts) != 3 {
		t.Fatal("not a compact JWS")
	} else if hdr, _ := base64.RawURLEncoding.DecodeString(parts[0]); !strings.Contains(string(hdr), `"typ":"at+jwt"`) || !strings.Contains(string(hdr), `"alg":"ES256"`) {
		t.Fatalf("header %s", hdr)
	}
}

func expectInvalid(t *testing.T, v *JWTVerifier, tok, why string) {
	t.Helper()
	_, err := v.Verify(context.Background(), tok)
	if !errors.Is(err, ErrInvalidToken) || !strings.Contains(err.Error(), why) {
		t.Fatalf("want invalid (%s), got %v", why, err)
	}
}

func TestTokenValidationEdgeCases(t *testing.T) {
	t.Parallel()
	c := &clock{time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	is, ks, v := newTestIssuer(t, c)

	g := grant()
	g.Audience = "http://127.0.0.1:8082/mcp"
	tok, _, _ := is.Issue(g)
	expectInvalid(t, v, tok, "another resource")

	other := &Issuer{URL: "https://evil.example", Keys: ks, Now: c.now}
	tok, _, _ = other.Issue(grant())
	expectInvalid(t, v, tok, "untrusted issuer")

	tok, _, _ = is.Issue(grant())
	c.t = c.t.Add(11 * time.Minute)
	expectInvalid(t, v, tok, "expired")
	c.t = c.t.Add(-11 * time.Minute)

	future := &Issuer{URL: testIssuer, Keys: ks, Now: func() time.Time { return c.t.Add(5 * time.Minute) }}
	tok, _, _ = future.Issue(grant())
	expectInvalid(t, v, tok, "not valid yet")

	tok, _, _ = is.Issue(grant())
	parts := strings.Split(tok, ".")
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	sig[5] ^= 0xff
	expectInvalid(t, v, parts[0]+"."+parts[1]+"."+base64.RawURLEncoding.EncodeToString(sig), "bad signature")

	// alg none: header and claims, no signature.
	none := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"at+jwt"}`)) + "." + parts[1] + "."
	expectInvalid(t, v, none, "unsupported signature algorithm")

	// HS256 with the public key as the secret: the classic confusion attack.
	hs, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: []byte("a shared secret anyone could hold!")}, nil)
	forged, _ := jwt.Signed(hs).Claims(AccessClaims{Claims: jwt.Claims{Issuer: testIssuer, Subject: "x", Audience: jwt.Audience{testResource}, Expiry: jwt.NewNumericDate(c.t.Add(time.Hour))}, Org: "org-1"}).Serialize()
	expectInvalid(t, v, forged, "unsupported signature algorithm")

	// A key we never published.
	priv, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	foreign, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: priv}, (&jose.SignerOptions{}).WithHeader("kid", "foreign"))
	forged, _ = jwt.Signed(foreign).Claims(AccessClaims{Claims: jwt.Claims{Issuer: testIssuer, Subject: "x", Audience: jwt.Audience{testResource}, Expiry: jwt.NewNumericDate(c.t.Add(time.Hour))}, Org: "org-1"}).Serialize()
	expectInvalid(t, v, forged, "unknown signing key")

	expectInvalid(t, v, "not.a.jwt", "malformed")
	expectInvalid(t, v, "", "malformed")
}

func TestKeyRotation(t *testing.T) {
	t.Parallel()
	c := &clock{time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	store := &MemoryKeyStore{}
	ks, err := NewKeySet(store, KeySetOptions{Rotation: 24 * time.Hour, MaxTokenLifetime: time.Hour, Now: c.now})
	if err != nil {
		t.Fatal(err)
	}
	is := &Issuer{URL: testIssuer, Keys: ks, Now: c.now}
	v := &JWTVerifier{Issuer: testIssuer, Audience: testResource, Keys: KeySetSource{ks}, Now: c.now}
	old, _, _ := is.Issue(grant())
	firstKid := ks.JWKS().Keys[0].KeyID

	// A day later a new key signs; the old one still verifies its tokens.
	c.t = c.t.Add(24*time.Hour - 5*time.Minute)
	oldStillValid, _, _ := is.Issue(Grant{Subject: "s", OrganizationID: "o", Audience: testResource, TTL: 50 * time.Minute})
	c.t = c.t.Add(6 * time.Minute)
	fresh, _, _ := is.Issue(grant())
	jwks := ks.JWKS()
	if len(jwks.Keys) != 2 || jwks.Keys[0].KeyID == firstKid {
		t.Fatalf("expected a new key first and the old one kept: %v", jwks.Keys)
	}
	if _, err := v.Verify(context.Background(), fresh); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(context.Background(), oldStillValid); err != nil {
		t.Fatalf("a token signed with the previous key must verify until it expires: %v", err)
	}
	expectInvalid(t, v, old, "expired")

	// Another replica loading the same store agrees on the keys.
	ks2, _ := NewKeySet(store, KeySetOptions{Rotation: 24 * time.Hour, MaxTokenLifetime: time.Hour, Now: c.now})
	v2 := &JWTVerifier{Issuer: testIssuer, Audience: testResource, Keys: KeySetSource{ks2}, Now: c.now}
	if _, err := v2.Verify(context.Background(), fresh); err != nil {
		t.Fatalf("replica: %v", err)
	}

	// Past the rotation period plus the longest lifetime the old key is gone.
	c.t = c.t.Add(2 * time.Hour)
	if err := ks.Rotate(); err != nil {
		t.Fatal(err)
	}
	if len(ks.JWKS().Keys) != 1 {
		t.Fatalf("retired key kept: %d keys", len(ks.JWKS().Keys))
	}
}

// TestGrantClaim: a token issued for a grant names it ("gid"), so the role
// lookup can refuse it once the grant is revoked; a developer token names
// none and carries no such claim.
func TestGrantClaim(t *testing.T) {
	t.Parallel()
	c := &clock{time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	is, _, v := newTestIssuer(t, c)
	g := grant()
	g.GrantID = "0b0c6a2e-grant"
	tok, _, err := is.Issue(g)
	if err != nil {
		t.Fatal(err)
	}
	id, err := v.Verify(context.Background(), tok)
	if err != nil || id.GrantID != "0b0c6a2e-grant" {
		t.Fatalf("grant id: %+v %v", id, err)
	}
	dev, _, _ := is.Issue(grant())
	if id, err := v.Verify(context.Background(), dev); err != nil || id.GrantID != "" {
		t.Fatalf("developer token: %+v %v", id, err)
	}
	payload, _ := base64.RawURLEncoding.DecodeString(strings.Split(dev, ".")[1])
	if strings.Contains(string(payload), `"gid"`) {
		t.Fatalf("a token without a grant carries a gid claim: %s", payload)
	}
}

// TestExpiryLeeway pins the documented leeway (docs/operating.md,
// "Sign-in, tokens and scopes"): a token is accepted up to 30 seconds after its exp, not after.
func TestExpiryLeeway(t *testing.T) {
	t.Parallel()
	c := &clock{time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	is, _, v := newTestIssuer(t, c)
	tok, exp, _ := is.Issue(grant())
	c.t = exp.Add(29 * time.Second)
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatalf("29 s after expiry: %v", err)
	}
	c.t = exp.Add(31 * time.Second)
	expectInvalid(t, v, tok, "expired")
}
