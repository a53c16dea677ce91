package ratelimit_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/ratelimit"
	"github.com/kobana/kobana-mcp/platform/ratelimit/ratelimittest"
)

func TestParseRates(t *testing.T) {
	t.Parallel()
	def := ratelimit.DefaultRates.String()
	if def != "reads=600-M,writes=120-M,org-reads=3000-M,org-writes=600-M" {
		t.Fatalf("default spec %q", def)
	}
	back, err := ratelimit.ParseRates(def, ratelimit.Rates{})
	if err != nil || back.String() != def {
		t.Fatalf("round trip: %v %q", err, back.String())
	}
	r, err := ratelimit.ParseRates(" writes=5-S , org-reads=10-h", ratelimit.DefaultRates)
	if err != nil {
		t.Fatal(err)
	}
	if r.Writes.Limit != 5 || r.Writes.Period != time.Second || r.OrgReads.Limit != 10 || r.OrgReads.Period != time.Hour || r.Reads != ratelimit.DefaultRates.Reads {
		t.Fatalf("overrides: %+v", r)
	}
	for _, bad := range []string{"reads", "reads=10", "reads=10-W", "reads=0-M", "reads=-1-M", "deletes=1-M", "reads=x-M"} {
		if _, err := ratelimit.ParseRates(bad, ratelimit.DefaultRates); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}

// stores runs f against the memory store and a Redis store: the two must
// behave alike.
func stores(t *testing.T, f func(t *testing.T, s *ratelimit.Store)) {
	t.Run("memory", func(t *testing.T) { f(t, ratelimit.NewMemoryStore()) })
	t.Run("redis", func(t *testing.T) {
		url, prefix := ratelimittest.Redis(t)
		s, err := ratelimit.Open(context.Background(), url, prefix)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		if !s.Shared() {
			t.Fatal("a Redis store is not shared")
		}
		f(t, s)
	})
}

func person(org, subject, client string) *identity.Identity {
	return &identity.Identity{Issuer: "https://issuer.test", Subject: subject, OrganizationID: org, ClientID: client}
}

// TestTokenAndOrganizationLimits: both limits must pass, the headers
// describe the tighter, reads and writes and products count apart.
func TestTokenAndOrganizationLimits(t *testing.T) {
	t.Parallel()
	stores(t, func(t *testing.T, s *ratelimit.Store) {
		ctx := context.Background()
		rates := ratelimit.Rates{
			Reads: ratelimit.MustParseRate("3-M"), Writes: ratelimit.MustParseRate("1-M"),
			OrgReads: ratelimit.MustParseRate("5-M"), OrgWrites: ratelimit.MustParseRate("10-M"),
		}
		inbox := ratelimit.NewLimiter(s, "inbox", rates, nil)
		ana, bia := person("org-1", "ana", "cli"), person("org-1", "bia", "cli")
		start := time.Now().Unix()

		// Ana's token: 3 reads, the token the tighter limit (3 < 5).
		for want := 2; want >= 0; want-- {
			d := inbox.Charge(ctx, ana, false)
			if !d.Allowed || d.Limit != 3 || d.Remaining != want {
				t.Fatalf("ana read, want remaining %d: %+v", want, d)
			}
			if d.ResetUnix < start+59 || d.ResetUnix > start+62 {
				t.Fatalf("reset %d, now %d", d.ResetUnix, start)
			}
		}
		d := inbox.Charge(ctx, ana, false)
		if d.Allowed || d.Limit != 3 || d.Remaining != 0 || d.RetryAfterSeconds < 1 || d.RetryAfterSeconds > 62 {
			t.Fatalf("ana's 4th read: %+v", d)
		}
		// Refused by her token, that read did not use the organization's
		// allowance: 3 of 5 are used. Bia's token has 3, the organization
		// 2 left: the organization is the tighter.
		d = inbox.Charge(ctx, bia, false)
		if !d.Allowed || d.Limit != 5 || d.Remaining != 1 {
			t.Fatalf("bia's 1st read: %+v", d)
		}
		d = inbox.Charge(ctx, bia, false)
		if !d.Allowed || d.Limit != 5 || d.Remaining != 0 {
			t.Fatalf("bia's 2nd read: %+v", d)
		}
		d = inbox.Charge(ctx, bia, false)
		if d.Allowed || d.Limit != 5 {
			t.Fatalf("bia's 3rd read is over the organization's limit: %+v", d)
		}
		// Another client of Ana's is another token.
		if d := inbox.Charge(ctx, person("org-1", "ana", "desktop"), false); d.Allowed {
			t.Fatalf("the organization's limit holds for every token: %+v", d)
		}
		// Writes count apart from reads.
		if d := inbox.Charge(ctx, ana, true); !d.Allowed || d.Limit != 1 || d.Remaining != 0 {
			t.Fatalf("ana's 1st write: %+v", d)
		}
		if d := inbox.Charge(ctx, ana, true); d.Allowed {
			t.Fatalf("ana's 2nd write: %+v", d)
		}
		// Another organization, and another product, start afresh.
		if d := inbox.Charge(ctx, person("org-2", "ana", "cli"), false); !d.Allowed || d.Remaining != 2 {
			t.Fatalf("another organization: %+v", d)
		}
		if d := ratelimit.NewLimiter(s, "dunning", rates, nil).Charge(ctx, ana, false); !d.Allowed || d.Remaining != 2 {
			t.Fatalf("another product: %+v", d)
		}
		// No identity: nothing to count.
		if d := inbox.Charge(ctx, nil, true); !d.Allowed || d.Limit != 0 {
			t.Fatalf("no identity: %+v", d)
		}
	})
}

// TestChargeOrganization: work with no token (mail over SMTP) counts on
// the organization's own allowance, the one its tokens' calls spend.
func TestChargeOrganization(t *testing.T) {
	t.Parallel()
	stores(t, func(t *testing.T, s *ratelimit.Store) {
		ctx := context.Background()
		rates := ratelimit.Rates{
			Reads: ratelimit.MustParseRate("100-M"), Writes: ratelimit.MustParseRate("100-M"),
			OrgReads: ratelimit.MustParseRate("2-M"), OrgWrites: ratelimit.MustParseRate("3-M"),
		}
		inbox := ratelimit.NewLimiter(s, "inbox", rates, nil)
		if d := inbox.Charge(ctx, person("org-1", "ana", "cli"), true); !d.Allowed {
			t.Fatalf("ana's write: %+v", d)
		}
		for want := 1; want >= 0; want-- {
			if d := inbox.ChargeOrganization(ctx, "org-1", true); !d.Allowed || d.Limit != 3 || d.Remaining != want {
				t.Fatalf("an organization write, want remaining %d: %+v", want, d)
			}
		}
		if d := inbox.ChargeOrganization(ctx, "org-1", true); d.Allowed || d.RetryAfterSeconds < 1 {
			t.Fatalf("the organization's 4th write: %+v", d)
		}
		if d := inbox.Charge(ctx, person("org-1", "bia", "cli"), true); d.Allowed {
			t.Fatalf("a token's write once the organization spent its allowance: %+v", d)
		}
		if d := inbox.ChargeOrganization(ctx, "org-1", false); !d.Allowed || d.Limit != 2 {
			t.Fatalf("reads count apart: %+v", d)
		}
		if d := inbox.ChargeOrganization(ctx, "org-2", true); !d.Allowed || d.Remaining != 2 {
			t.Fatalf("another organization: %+v", d)
		}
		if d := ratelimit.NewLimiter(s, "dunning", rates, nil).ChargeOrganization(ctx, "org-1", true); !d.Allowed {
			t.Fatalf("another product: %+v", d)
		}
		if d := inbox.ChargeOrganization(ctx, "", true); !d.Allowed || d.Limit != 0 {
			t.Fatalf("no organization: %+v", d)
		}
	})
}

// TestWindowResets uses a one-second window.
func TestWindowResets(t *testing.T) {
	t.Parallel()
	stores(t, func(t *testing.T, s *ratelimit.Store) {
		ctx := context.Background()
		one := ratelimit.MustParseRate("1-S")
		l := ratelimit.NewLimiter(s, "kadu", ratelimit.Rates{Reads: one, Writes: one, OrgReads: one, OrgWrites: one}, nil)
		ana := person("o", "ana", "c")
		if d := l.Charge(ctx, ana, false); !d.Allowed {
			t.Fatal(d)
		}
		d := l.Charge(ctx, ana, false)
		if d.Allowed {
			t.Fatal(d)
		}
		time.Sleep(time.Until(time.Unix(d.ResetUnix, 0)))
		if d := l.Charge(ctx, ana, false); !d.Allowed {
			t.Fatalf("after X-RateLimit-Reset: %+v", d)
		}
	})
}

// TestStoreFailureLetsRequestsThrough: a Redis outage must not become an
// outage of the product.
func TestStoreFailureLetsRequestsThrough(t *testing.T) {
	t.Parallel()
	url, prefix := ratelimittest.Redis(t)
	s, err := ratelimit.Open(context.Background(), url, prefix)
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	d := ratelimit.NewLimiter(s, "inbox", ratelimit.DefaultRates, nil).Charge(context.Background(), person("o", "a", "c"), true)
	if !d.Allowed || d.Limit != 0 {
		t.Fatalf("with the store down: %+v", d)
	}
	if _, err := ratelimit.Open(context.Background(), "redis://127.0.0.1:1/0", "x"); err == nil {
		t.Fatal("opening an unreachable Redis succeeded")
	}
}

// fakeAuth is a test Authorizer: the bearer token is the subject;
// "Bearer viewer-*" cannot see tools that need the "admin" permission.
type fakeAuth struct{}

func (fakeAuth) Authenticate(w http.ResponseWriter, r *http.Request) (context.Context, bool) {
	sub, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		w.WriteHeader(http.StatusUnauthorized)
		return nil, false
	}
	return identity.With(r.Context(), person("org-1", sub, "client")), true
}

func (fakeAuth) Access(ctx context.Context, req mcp.Requirement) mcp.Access {
	if req.Permission == "admin" && strings.HasPrefix(identity.From(ctx).Subject, "viewer") {
		return mcp.Hidden
	}
	return mcp.Allowed
}

func (fakeAuth) InsufficientScope(w http.ResponseWriter, _ *http.Request, _ mcp.Requirement) {
	w.WriteHeader(http.StatusForbidden)
}

func (fakeAuth) Principal(ctx context.Context) string { return identity.From(ctx).Principal() }

// TestMCPEndpointCountsReadsAndWrites runs the limiter as an MCP endpoint's
// hook over real HTTP: tools/call of a tool that is not read-only is a
// write; lists, read-only tools, unknown tools, tools hidden from the
// caller and malformed bodies are reads.
func TestMCPEndpointCountsReadsAndWrites(t *testing.T) {
	t.Parallel()
	ran := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.TextResult("ran"), nil
	}
	an := func(ro bool) *mcp.ToolAnnotations {
		return &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(ro), DestructiveHint: mcp.Bool(false), IdempotentHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)}
	}
	rates := ratelimit.Rates{Reads: ratelimit.MustParseRate("100-M"), Writes: ratelimit.MustParseRate("2-M"),
		OrgReads: ratelimit.MustParseRate("1000-M"), OrgWrites: ratelimit.MustParseRate("1000-M")}
	h := mcp.MustNewHandler(mcp.Options{Name: "t", Version: "1", Authorizer: fakeAuth{},
		RateLimiter: ratelimit.NewLimiter(ratelimit.NewMemoryStore(), "inbox", rates, nil)},
		mcp.Catalog{Tools: []mcp.Tool{
			{Name: "look", Annotations: an(true), Handler: ran},
			{Name: "touch", Annotations: an(false), Handler: ran},
			{Name: "admin_touch", Annotations: an(false), Requires: mcp.Requirement{Permission: "admin"}, Handler: ran},
		}})
	srv := httptest.NewServer(h)
	defer srv.Close()

	post := func(who, body string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", srv.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+who)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	call := func(tool string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
	}
	headers := func(resp *http.Response) (limit, remaining int) {
		limit, _ = strconv.Atoi(resp.Header.Get("X-RateLimit-Limit"))
		remaining, _ = strconv.Atoi(resp.Header.Get("X-RateLimit-Remaining"))
		if reset, _ := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); reset < time.Now().Unix() {
			t.Fatalf("X-RateLimit-Reset %q", resp.Header.Get("X-RateLimit-Reset"))
		}
		return
	}

	reads := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`,
		call("look"), call("no_such_tool"), `{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{not json`,
	}
	for i, body := range reads {
		resp, _ := post("ana", body)
		if l, r := headers(resp); l != 100 || r != 99-i {
			t.Fatalf("read %d (%s): limit %d remaining %d", i, body, l, r)
		}
	}
	// A viewer's call of a tool hidden from it counts like an unknown tool:
	// the headers must not tell it exists.
	resp, _ := post("viewer-1", call("admin_touch"))
	if l, _ := headers(resp); l != 100 {
		t.Fatalf("hidden tool counted as a write (limit %d)", l)
	}
	for want := 1; want >= 0; want-- {
		resp, body := post("ana", call("touch"))
		if l, r := headers(resp); resp.StatusCode != 200 || l != 2 || r != want || !strings.Contains(body, `"ran"`) {
			t.Fatalf("write, want remaining %d: %d %d %d %s", want, resp.StatusCode, l, r, body)
		}
	}
	resp, body := post("ana", call("admin_touch"))
	var rpc struct {
		ID    any                `json:"id"`
		Error struct{ Code int } `json:"error"`
	}
	_ = json.Unmarshal([]byte(body), &rpc)
	if resp.StatusCode != 429 || rpc.Error.Code != mcp.CodeRateLimited || rpc.ID != nil || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("3rd write: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	if l, r := headers(resp); l != 2 || r != 0 {
		t.Fatalf("3rd write headers: %d %d", l, r)
	}
	// Reads go on.
	if resp, _ := post("ana", call("look")); resp.StatusCode != 200 {
		t.Fatalf("a read after the writes ran out: %d", resp.StatusCode)
	}
	// No token: 401, no headers, nothing counted.
	req, _ := http.NewRequest("POST", srv.URL+"/mcp", strings.NewReader(call("look")))
	r401, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r401.Body.Close()
	if r401.StatusCode != 401 || r401.Header.Get("X-RateLimit-Limit") != "" {
		t.Fatalf("unauthenticated: %d %v", r401.StatusCode, r401.Header)
	}
}

// TestUnauthenticatedLimit: an address that keeps getting 401 is refused
// with 429 for the rest of the window, in the endpoint's shape; other
// addresses are not.
func TestUnauthenticatedLimit(t *testing.T) {
	t.Parallel()
	u := ratelimit.NewUnauthenticated(ratelimit.MustParseRate("3-M"))
	srv := httptest.NewServer(u.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		_, _ = io.WriteString(w, "ok")
	})))
	defer srv.Close()
	// from sends a request from a loopback address of our choosing.
	from := func(ip, path string, auth bool) (*http.Response, string) {
		t.Helper()
		client := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}).DialContext}}
		defer client.CloseIdleConnections()
		req, _ := http.NewRequest("POST", srv.URL+path, strings.NewReader("{}"))
		if auth {
			req.Header.Set("Authorization", "Bearer x")
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	for i := 0; i < 3; i++ {
		// Authenticated requests only peek.
		if resp, _ := from("127.0.0.1", "/mcp", true); resp.StatusCode != 200 {
			t.Fatalf("authenticated: %d", resp.StatusCode)
		}
		if resp, _ := from("127.0.0.1", "/mcp", false); resp.StatusCode != 401 {
			t.Fatalf("401 number %d: %d", i+1, resp.StatusCode)
		}
	}
	resp, body := from("127.0.0.1", "/mcp", true)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, `"id":null`) || !strings.Contains(body, `"code":-31029`) {
		t.Fatalf("after 3 401s on /mcp: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	resp, body = from("127.0.0.1", "/api/v1/things", false)
	if resp.StatusCode != 429 || !strings.Contains(body, `{"error":{"code":"rate_limited"`) {
		t.Fatalf("after 3 401s elsewhere: %d %s", resp.StatusCode, body)
	}
	if resp, _ := from("127.0.0.2", "/mcp", false); resp.StatusCode != 401 {
		t.Fatalf("another address: %d", resp.StatusCode)
	}
}

// Until a 401 is counted, a request does not peek at the counters (its
// address is not even formatted); once one is, every request peeks for
// the window, and an address over its allowance is refused.
func TestUnauthenticatedPeeksOnlyAfterA401(t *testing.T) {
	// Not parallel: testing.AllocsPerRun counts every goroutine's
	// allocations and sets GOMAXPROCS to 1 while it measures.
	u := ratelimit.NewUnauthenticated(ratelimit.MustParseRate("2-M"))
	h := u.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	signed := httptest.NewRequest("POST", "/mcp", nil)
	signed.Header.Set("Authorization", "Bearer x")
	unsigned := httptest.NewRequest("POST", "/mcp", nil)
	serve := func(r *http.Request) int {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	before := testing.AllocsPerRun(100, func() { serve(signed) })
	if serve(unsigned) != 401 {
		t.Fatal("want 401")
	}
	after := testing.AllocsPerRun(100, func() { serve(signed) })
	if before >= after {
		t.Fatalf("allocations of a signed request: %v before any 401, %v after one (the peek)", before, after)
	}
	if serve(unsigned) != 401 || serve(signed) != 429 {
		t.Fatal("an address over its allowance must be refused")
	}
}
