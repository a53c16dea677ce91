package oauth

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// An external issuer: its JWKS is fetched over HTTP, refetched when it
// rotates, and unknown key ids do not cause a fetch each.
func TestRemoteJWKSFollowsRotation(t *testing.T) {
	t.Parallel()
	c := &clock{time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	is, ks, _ := newTestIssuer(t, c)
	var fetches atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		_ = json.NewEncoder(w).Encode(ks.JWKS())
	}))
	defer srv.Close()
	remote := &RemoteJWKS{URL: srv.URL, Now: c.now}
	v := &JWTVerifier{Issuer: testIssuer, Audience: testResource, Keys: remote, Now: c.now}

	tok, _, _ := is.Issue(grant())
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(context.Background(), tok); err != nil || fetches.Load() != 1 {
		t.Fatalf("second verify: %v, %d fetches", err, fetches.Load())
	}
	// The issuer rotates; the next token has an unknown kid: one refetch,
	// once the minimum refresh interval has passed.
	c.t = c.t.Add(31 * 24 * time.Hour)
	tok2, _, _ := is.Issue(grant())
	if _, err := v.Verify(context.Background(), tok2); err != nil || fetches.Load() != 2 {
		t.Fatalf("after rotation: %v, %d fetches", err, fetches.Load())
	}
	forged := tok2[:10] + "x" + tok2[11:]
	for i := 0; i < 5; i++ {
		_, _ = v.Verify(context.Background(), forged)
	}
	if fetches.Load() > 3 {
		t.Fatalf("unknown key ids caused %d fetches", fetches.Load())
	}
}
