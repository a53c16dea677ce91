package server_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/oauth/server"
)

// TestTokenEndpointIsRateLimited: the token endpoint has its own limit per
// address; past it, 429 with Retry-After before fosite sees the request.
func TestTokenEndpointIsRateLimited(t *testing.T) {
	t.Parallel()
	e := newEnvSQLite(t, func(c *server.Config) { c.TokenPerIP = server.Limit{Every: time.Hour, Burst: 2} })
	post := func() *http.Response {
		resp, err := http.PostForm(e.issuer+server.PathToken, url.Values{"grant_type": {"authorization_code"}, "code": {"nope"}, "client_id": {"x"}})
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	for i := range 2 {
		if resp := post(); resp.StatusCode == http.StatusTooManyRequests {
			t.Fatalf("request %d refused", i+1)
		}
	}
	resp, err := http.PostForm(e.issuer+server.PathToken, url.Values{"grant_type": {"authorization_code"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(b), `"error":"too_many_requests"`) {
		t.Fatalf("third request: %d %v %s", resp.StatusCode, resp.Header, b)
	}
}

// countingLimiter is a Config.NewLimiter that records what it was asked
// for and refuses everything.
type countingLimiter struct {
	mu    sync.Mutex
	names map[string]server.Limit
	calls map[string]int
}

type refuseAll struct {
	c    *countingLimiter
	name string
}

func (r refuseAll) Allow(_ context.Context, key string) bool {
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	r.c.calls[r.name]++
	return false
}

func (r refuseAll) Exhausted(context.Context, string) bool { return true }

// TestNewLimiterReplacesTheBuckets: every limit of the server comes from
// Config.NewLimiter when it is set, so a shared store can hold them.
func TestNewLimiterReplacesTheBuckets(t *testing.T) {
	t.Parallel()
	c := &countingLimiter{names: map[string]server.Limit{}, calls: map[string]int{}}
	e := newEnvSQLite(t, func(cfg *server.Config) {
		cfg.NewLimiter = func(name string, l server.Limit) server.Limiter {
			c.names[name] = l
			return refuseAll{c, name}
		}
	})
	for _, name := range []string{"sign-in-ip", "sign-in-email", "registration-ip", "token-ip", "metadata-fetch-ip"} {
		if c.names[name] == (server.Limit{}) {
			t.Errorf("no limiter %q with its default limit (got %v)", name, c.names)
		}
	}
	resp, err := http.PostForm(e.issuer+server.PathToken, url.Values{"grant_type": {"authorization_code"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || c.calls["token-ip"] != 1 {
		t.Fatalf("token endpoint with a refusing limiter: %d %v", resp.StatusCode, c.calls)
	}
	if status, _ := e.register(map[string]any{"redirect_uris": []string{callback}}); status != http.StatusTooManyRequests {
		t.Fatalf("registration with a refusing limiter: %d", status)
	}
}
