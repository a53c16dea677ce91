package productkit_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/ratelimit"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/rest"
)

type none struct{}

// TestAPIAndMCPShareTheLimits serves a product as serve does (Deps with
// RateLimits, productkit.Mux) and checks: direct API calls carry the headers and
// are refused in the API's error shape; an MCP tool call counts once,
// though it runs the API route in-process; writes and reads count apart.
func TestAPIAndMCPShareTheLimits(t *testing.T) {
	t.Parallel()
	keys, err := oauth.NewKeySet(&oauth.MemoryKeyStore{}, oauth.KeySetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var handler http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	defer srv.Close()
	rates := ratelimit.Rates{Reads: ratelimit.MustParseRate("3-M"), Writes: ratelimit.MustParseRate("1-M"),
		OrgReads: ratelimit.MustParseRate("100-M"), OrgWrites: ratelimit.MustParseRate("100-M")}
	deps := productkit.Deps{PublicURL: srv.URL, Issuer: srv.URL, Keys: oauth.KeySetSource{Keys: keys},
		Roles:      func(context.Context, *identity.Identity) (identity.Role, error) { return identity.RoleOwner, nil },
		RateLimits: ratelimit.NewLimiter(ratelimit.NewMemoryStore(), "test", rates, nil)}
	auth := deps.ProductAuth("", "/api/v1", []string{"inbox.emails"}, "Test")
	api := rest.New(rest.Config{Title: "T", Version: "1", BasePath: "/api/v1", Authorize: auth.APIAuthorize()})
	ro := func(b bool) mcp.ToolAnnotations {
		return mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(b), DestructiveHint: mcp.Bool(false), IdempotentHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)}
	}
	req := mcp.Requirement{Scopes: []string{"inbox.emails"}, Permission: identity.PermRead}
	rest.Handle(api, rest.Operation{ID: "emails_list", Method: "GET", Path: "/emails", Title: "List", Summary: "Lists.", Annotations: ro(true), Requires: req},
		func(context.Context, *none) (*rest.Response, error) { return rest.OK(map[string]any{"ok": true}), nil })
	rest.Handle(api, rest.Operation{ID: "emails_mark", Method: "POST", Path: "/emails/mark", Title: "Mark", Summary: "Marks.", Annotations: ro(false),
		Requires: mcp.Requirement{Scopes: []string{"inbox.emails"}, Permission: identity.PermWrite}},
		func(context.Context, *none) (*rest.Response, error) { return rest.NoContent(), nil })
	opts := mcp.Options{Name: "t", Version: "1", Authorizer: auth.Authorizer(), RateLimiter: auth.RateLimiter()}
	h := mcp.MustNewHandler(opts, mcp.Catalog{Tools: api.Tools(restbridge.New(api, restbridge.Options{}))})
	handler = productkit.Mux(h, "/api/v1", api)

	issuer := &oauth.Issuer{URL: srv.URL, Keys: keys}
	token := func(audience string) string {
		tok, _, err := issuer.Issue(oauth.Grant{Subject: "u1", UserID: "u1", OrganizationID: "org-1", ClientID: "c", Audience: audience, Scopes: []string{"inbox.emails"}, TTL: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	apiTok, mcpTok := token(srv.URL+"/api/v1"), token(srv.URL+"/mcp")
	do := func(method, path, tok, body string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	// One read through MCP (counted at the endpoint only), then direct reads.
	resp, body := do("POST", "/mcp", mcpTok, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"emails_list","arguments":{}}}`)
	if resp.StatusCode != 200 || resp.Header.Get("X-RateLimit-Remaining") != "2" || !strings.Contains(body, `\"ok\":true`) {
		t.Fatalf("MCP read: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	for _, want := range []string{"1", "0"} {
		resp, _ := do("GET", "/api/v1/emails", apiTok, "")
		if resp.StatusCode != 200 || resp.Header.Get("X-RateLimit-Limit") != "3" || resp.Header.Get("X-RateLimit-Remaining") != want || resp.Header.Get("X-RateLimit-Reset") == "" {
			t.Fatalf("API read, want remaining %s: %d %v", want, resp.StatusCode, resp.Header)
		}
	}
	resp, body = do("GET", "/api/v1/emails", apiTok, "")
	var e struct{ Error struct{ Code string } }
	_ = json.Unmarshal([]byte(body), &e)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" || e.Error.Code != rest.CodeRateLimited || resp.Header.Get("X-RateLimit-Remaining") != "0" {
		t.Fatalf("API read over the limit: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	// Writes count apart.
	if resp, _ := do("POST", "/api/v1/emails/mark", apiTok, "{}"); resp.StatusCode != 204 || resp.Header.Get("X-RateLimit-Limit") != "1" {
		t.Fatalf("API write: %d %v", resp.StatusCode, resp.Header)
	}
	if resp, _ := do("POST", "/mcp", mcpTok, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"emails_mark","arguments":{}}}`); resp.StatusCode != 429 {
		t.Fatalf("MCP write after the API's used the allowance: %d %v", resp.StatusCode, resp.Header)
	}
	// A request without a token: 401, no headers.
	if resp, _ := do("GET", "/api/v1/emails", "", ""); resp.StatusCode != 401 || resp.Header.Get("X-RateLimit-Limit") != "" {
		t.Fatalf("no token: %d %v", resp.StatusCode, resp.Header)
	}
}
