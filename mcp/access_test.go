package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// roleAuthorizer is a test Authorizer: the caller's scopes come from the
// X-Scopes header and its role from X-Role; no Authorization header is 401.
type roleAuthorizer struct{ stepUps []Requirement }

type callerKey struct{}

type caller struct {
	scopes map[string]bool
	role   string
}

func (a *roleAuthorizer) Authenticate(w http.ResponseWriter, r *http.Request) (context.Context, bool) {
	if r.Header.Get("Authorization") == "" {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="https://example.test/.well-known/oauth-protected-resource/mcp"`)
		w.WriteHeader(http.StatusUnauthorized)
		return nil, false
	}
	c := caller{scopes: map[string]bool{}, role: r.Header.Get("X-Role")}
	for _, s := range strings.Fields(r.Header.Get("X-Scopes")) {
		c.scopes[s] = true
	}
	return context.WithValue(r.Context(), callerKey{}, c), true
}

func (a *roleAuthorizer) Access(ctx context.Context, req Requirement) Access {
	c := ctx.Value(callerKey{}).(caller)
	if req.Permission == "admin" && c.role != "admin" {
		return Hidden
	}
	for _, s := range req.Scopes {
		if !c.scopes[s] {
			return NeedsScope
		}
	}
	return Allowed
}

func (a *roleAuthorizer) InsufficientScope(w http.ResponseWriter, r *http.Request, req Requirement) {
	a.stepUps = append(a.stepUps, req)
	w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="`+strings.Join(req.Scopes, " ")+`"`)
	w.WriteHeader(http.StatusForbidden)
}

func (a *roleAuthorizer) Principal(ctx context.Context) string { return "test" }

type fixedLimiter struct{ d RateDecision }

func (l fixedLimiter) Limit(*http.Request) RateDecision { return l.d }

func accessCatalog() Catalog {
	ok := func(ctx context.Context, r *CallToolRequest) (*CallToolResult, error) { return TextResult("ran"), nil }
	ro := &ToolAnnotations{ReadOnlyHint: Bool(true)}
	read := func(ctx context.Context, r *ReadResourceRequest) (*ReadResourceResult, error) {
		return &ReadResourceResult{Contents: []ResourceContents{TextResource(r.URI, "text/plain", "x")}}, nil
	}
	get := func(ctx context.Context, r *GetPromptRequest) (*GetPromptResult, error) {
		return &GetPromptResult{Messages: []PromptMessage{{Role: "user", Content: TextContent("x")}}}, nil
	}
	return Catalog{
		Tools: []Tool{
			{Name: "public_read", Description: "d", Annotations: ro, Handler: ok},
			{Name: "emails_read", Description: "d", Annotations: ro, Requires: Requirement{Scopes: []string{"emails", "inboxes"}}, Handler: ok},
			{Name: "admin_only", Description: "d", Annotations: ro, Requires: Requirement{Permission: "admin"}, Handler: ok},
		},
		Resources: []Resource{
			{URI: "test://public", Name: "public", Read: read},
			{URI: "test://admin", Name: "admin", Requires: Requirement{Permission: "admin"}, Read: read},
			{URI: "test://scoped", Name: "scoped", Requires: Requirement{Scopes: []string{"emails"}}, Read: read},
		},
		Prompts: []Prompt{
			{Name: "public_prompt", Description: "d", Get: get},
			{Name: "admin_prompt", Description: "d", Requires: Requirement{Permission: "admin"}, Get: get},
		},
	}
}

func post(h http.Handler, hdr map[string]string, method, name, uriOrName string, params map[string]any) *httptest.ResponseRecorder {
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]any{MetaProtocolVersion: Version20260728, MetaClientCapabilities: map[string]any{}}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	r := httptest.NewRequest("POST", "/mcp", strings.NewReader(string(body)))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(HeaderProtocolVersion, Version20260728)
	r.Header.Set(HeaderMethod, method)
	if uriOrName != "" {
		r.Header.Set(HeaderName, uriOrName)
	}
	for k, v := range hdr {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func names(t *testing.T, w *httptest.ResponseRecorder, list, key string) string {
	t.Helper()
	var out struct {
		Result map[string]any `json:"result"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	var n []string
	items, _ := out.Result[list].([]any)
	for _, item := range items {
		n = append(n, item.(map[string]any)[key].(string))
	}
	return strings.Join(n, ",")
}

func TestOnePredicateListsAndGuards(t *testing.T) {
	t.Parallel()
	auth := &roleAuthorizer{}
	h := MustNewHandler(Options{Name: "t", Version: "1", Authorizer: auth}, accessCatalog())
	member := map[string]string{"Authorization": "Bearer x", "X-Scopes": "emails"}
	admin := map[string]string{"Authorization": "Bearer x", "X-Scopes": "emails inboxes", "X-Role": "admin"}

	if got := names(t, post(h, member, "tools/list", "", "", nil), "tools", "name"); got != "public_read" {
		t.Fatalf("member sees tools %q", got)
	}
	if got := names(t, post(h, admin, "tools/list", "", "", nil), "tools", "name"); got != "public_read,emails_read,admin_only" {
		t.Fatalf("admin sees tools %q", got)
	}
	if got := names(t, post(h, member, "resources/list", "", "", nil), "resources", "uri"); got != "test://public,test://scoped" {
		t.Fatalf("member sees resources %q", got)
	}
	if got := names(t, post(h, member, "prompts/list", "", "", nil), "prompts", "name"); got != "public_prompt" {
		t.Fatalf("member sees prompts %q", got)
	}

	// Hidden by role: indistinguishable from a tool that does not exist.
	hidden := post(h, member, "tools/call", "", "admin_only", map[string]any{"name": "admin_only"})
	missing := post(h, member, "tools/call", "", "no_such_tool", map[string]any{"name": "no_such_tool"})
	if hidden.Code != 200 || !strings.Contains(hidden.Body.String(), `"code":-32602,"message":"Unknown tool: admin_only"`) {
		t.Fatalf("hidden tool: %d %s", hidden.Code, hidden.Body)
	}
	if strings.Replace(hidden.Body.String(), "admin_only", "X", 1) != strings.Replace(missing.Body.String(), "no_such_tool", "X", 1) {
		t.Fatalf("a hidden tool must answer like a missing one:\n%s\n%s", hidden.Body, missing.Body)
	}
	if w := post(h, member, "resources/read", "", "test://admin", map[string]any{"uri": "test://admin"}); !strings.Contains(w.Body.String(), `"code":-32602,"message":"Resource not found"`) {
		t.Fatalf("hidden resource: %s", w.Body)
	}
	if w := post(h, member, "prompts/get", "", "admin_prompt", map[string]any{"name": "admin_prompt"}); !strings.Contains(w.Body.String(), `Unknown prompt: admin_prompt`) {
		t.Fatalf("hidden prompt: %s", w.Body)
	}

	// Missing scope: the step-up challenge names every scope the tool needs.
	w := post(h, member, "tools/call", "", "emails_read", map[string]any{"name": "emails_read"})
	if w.Code != 403 || w.Header().Get("WWW-Authenticate") != `Bearer error="insufficient_scope", scope="emails inboxes"` {
		t.Fatalf("step-up: %d %v %s", w.Code, w.Header(), w.Body)
	}
	if w.Body.Len() != 0 {
		t.Fatalf("the hook writes the whole answer; got a body %q", w.Body)
	}
	if w := post(h, map[string]string{"Authorization": "Bearer x"}, "resources/read", "", "test://scoped", map[string]any{"uri": "test://scoped"}); w.Code != 403 {
		t.Fatalf("scoped resource: %d", w.Code)
	}
	if w := post(h, admin, "tools/call", "", "emails_read", map[string]any{"name": "emails_read"}); !strings.Contains(w.Body.String(), `"text":"ran"`) {
		t.Fatalf("allowed call: %s", w.Body)
	}

	// No token: the authenticator's answer, before anything else is read.
	w = post(h, nil, "tools/list", "", "", nil)
	if w.Code != 401 || w.Header().Get("WWW-Authenticate") == "" || w.Body.Len() != 0 {
		t.Fatalf("unauthenticated: %d %v %q", w.Code, w.Header(), w.Body)
	}
}

func TestRateLimitHook(t *testing.T) {
	t.Parallel()
	d := RateDecision{Allowed: true, Limit: 100, Remaining: 99, ResetUnix: 1_900_000_000}
	h := MustNewHandler(Options{Name: "t", Version: "1", RateLimiter: fixedLimiter{d}}, accessCatalog())
	w := post(h, nil, "tools/list", "", "", nil)
	if w.Code != 200 || w.Header().Get("X-RateLimit-Limit") != "100" || w.Header().Get("X-RateLimit-Remaining") != "99" || w.Header().Get("X-RateLimit-Reset") != "1900000000" {
		t.Fatalf("allowed: %d %v", w.Code, w.Header())
	}
	d = RateDecision{Allowed: false, Limit: 100, Remaining: 0, ResetUnix: 1_900_000_000, RetryAfterSeconds: 7}
	h = MustNewHandler(Options{Name: "t", Version: "1", RateLimiter: fixedLimiter{d}}, accessCatalog())
	w = post(h, nil, "tools/list", "", "", nil)
	if w.Code != 429 || w.Header().Get("Retry-After") != "7" || w.Header().Get("X-RateLimit-Remaining") != "0" {
		t.Fatalf("limited: %d %v", w.Code, w.Header())
	}
	if !strings.Contains(w.Body.String(), `"code":-31029`) || w.Header().Get("Cache-Control") != "no-store" {
		t.Fatalf("limited body: %s", w.Body)
	}
}
