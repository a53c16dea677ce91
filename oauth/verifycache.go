package oauth

import (
	"context"
	"crypto/sha256"
	"slices"
	"sync"
	"time"

	"github.com/kobana/kobana-mcp/platform/identity"
)

// CachedVerifier remembers what a Verifier proved about a token, so a
// token is verified once and not on every request: the signature check
// was a third of a signed-in request's CPU (docs/decisions.md,
// "Performance of the signed-in path").
//
// It caches only what the token itself proves — its signature, issuer,
// audience and claims, which cannot change — keyed by the SHA-256 of the
// token (the token itself is never kept), until the token's expiry and at
// most MaxAge, so a signing key withdrawn from the key set stops being
// honoured within MaxAge. What can change — the person's role, their
// membership, the grant's revocation — is not cached here: the resource
// server's RoleLookup decides it on every request (oauth.ResourceServer
// .Identify). Failed verifications are not cached.
type CachedVerifier struct {
	// Next verifies a token the cache does not hold.
	Next Verifier
	// Max bounds the entries (default 10 000); when full, expired entries
	// go first, then arbitrary ones.
	Max int
	// MaxAge bounds how long an entry is trusted (default 5 minutes).
	MaxAge time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time

	mu      sync.Mutex
	entries map[[sha256.Size]byte]verified
}

type verified struct {
	id    identity.Identity
	until time.Time
}

// NewCachedVerifier caches next's results with the default bounds.
func NewCachedVerifier(next Verifier) *CachedVerifier { return &CachedVerifier{Next: next} }

// Verify implements Verifier. Every call returns an Identity of its own.
func (c *CachedVerifier) Verify(ctx context.Context, token string) (*identity.Identity, error) {
	// The token is copied to a buffer on the stack to be hashed: []byte(token)
	// was a heap copy of the whole token on every request.
	var buf [2048]byte
	key := sha256.Sum256(append(buf[:0], token...))
	now := c.now()
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok && now.Before(e.until) {
		id := e.id
		id.Scopes = slices.Clone(e.id.Scopes)
		return &id, nil
	}
	id, err := c.Next.Verify(ctx, token)
	if err != nil || id.Expiry.IsZero() {
		return id, err
	}
	until := id.Expiry
	if limit := now.Add(c.maxAge()); limit.Before(until) {
		until = limit
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[[sha256.Size]byte]verified{}
	}
	if len(c.entries) >= c.max() {
		for k, v := range c.entries {
			if !now.Before(v.until) {
				delete(c.entries, k)
			}
		}
		for k := range c.entries {
			if len(c.entries) < c.max() {
				break
			}
			delete(c.entries, k)
		}
	}
	kept := *id
	kept.Role = "" // decided on every request, never cached
	kept.Scopes = slices.Clone(id.Scopes)
	c.entries[key] = verified{id: kept, until: until}
	return id, nil
}

// Len is how many tokens the cache holds.
func (c *CachedVerifier) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

func (c *CachedVerifier) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *CachedVerifier) max() int {
	if c.Max > 0 {
		return c.Max
	}
	return 10000
}

func (c *CachedVerifier) maxAge() time.Duration {
	if c.MaxAge > 0 {
		return c.MaxAge
	}
	return 5 * time.Minute
}
