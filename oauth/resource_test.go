package oauth

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/identity"
)

func testResourceServer(t *testing.T, c *clock, resource string, roles map[string]identity.Role) (*ResourceServer, *Issuer) {
	t.Helper()
	is, ks, _ := newTestIssuer(t, c)
	rs := &ResourceServer{
		Resource: resource, MetadataURL: WellKnownURL(resource), AuthorizationServers: []string{testIssuer},
		Scopes:   []string{"inbox.emails", "inbox.inboxes", "inbox.webhooks"},
		Verifier: &JWTVerifier{Issuer: testIssuer, Audience: resource, Keys: KeySetSource{ks}, Now: c.now},
		Roles: func(ctx context.Context, id *identity.Identity) (identity.Role, error) {
			r, ok := roles[id.UserID]
			if !ok {
				return "", ErrNoMembership
			}
			return r, nil
		},
	}
	return rs, is
}

func mcpCatalog() mcp.Catalog {
	ro := &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true)}
	ran := func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		id := identity.From(ctx)
		return mcp.TextResult("ran for " + id.OrganizationID + " as " + string(id.Role)), nil
	}
	return mcp.Catalog{Tools: []mcp.Tool{
		{Name: "emails_list", Description: "d", Annotations: ro, Requires: mcp.Requirement{Scopes: []string{"inbox.emails"}, Permission: identity.PermRead}, Handler: ran},
		{Name: "webhooks_delete", Description: "d", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(false), DestructiveHint: mcp.Bool(false)},
			Requires: mcp.Requirement{Scopes: []string{"inbox.webhooks", "inbox.inboxes"}, Permission: identity.PermManage}, Handler: ran},
	}}
}

func rpc(h http.Handler, token, method, name string, params map[string]any) *httptest.ResponseRecorder {
	params["_meta"] = map[string]any{mcp.MetaProtocolVersion: mcp.Version20260728, mcp.MetaClientCapabilities: map[string]any{}}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	r := httptest.NewRequest("POST", "/mcp", strings.NewReader(string(body)))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(mcp.HeaderProtocolVersion, mcp.Version20260728)
	r.Header.Set(mcp.HeaderMethod, method)
	if name != "" {
		r.Header.Set(mcp.HeaderName, name)
	}
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestChallengesThroughTheMCPEndpoint(t *testing.T) {
	t.Parallel()
	c := &clock{time.Now()}
	rs, is := testResourceServer(t, c, testResource, map[string]identity.Role{"member": identity.RoleMember, "admin": identity.RoleAdmin})
	h := mcp.MustNewHandler(mcp.Options{Name: "t", Version: "1", Authorizer: rs}, mcpCatalog())
	meta := `resource_metadata="http://127.0.0.1:8081/.well-known/oauth-protected-resource/mcp"`

	w := rpc(h, "", "server/discover", "", map[string]any{})
	if w.Code != 401 || w.Header().Get("WWW-Authenticate") != `Bearer `+meta+`, scope="inbox.emails inbox.inboxes inbox.webhooks"` {
		t.Fatalf("no token: %d %q", w.Code, w.Header().Get("WWW-Authenticate"))
	}
	if !strings.Contains(w.Body.String(), `"error":"invalid_request"`) || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("no token body: %s", w.Body)
	}

	w = rpc(h, "garbage", "tools/list", "", map[string]any{})
	if w.Code != 401 || !strings.HasPrefix(w.Header().Get("WWW-Authenticate"), `Bearer error="invalid_token", error_description="malformed`) || !strings.Contains(w.Header().Get("WWW-Authenticate"), meta) {
		t.Fatalf("bad token: %d %q", w.Code, w.Header().Get("WWW-Authenticate"))
	}

	g := grant()
	g.UserID, g.Subject = "member", "member"
	g.Scopes = []string{"inbox.emails", "inbox.webhooks"}
	memberTok, _, _ := is.Issue(g)
	w = rpc(h, memberTok, "tools/list", "", map[string]any{})
	if w.Code != 200 || !strings.Contains(w.Body.String(), `"emails_list"`) || strings.Contains(w.Body.String(), `"webhooks_delete"`) {
		t.Fatalf("member list: %s", w.Body)
	}
	w = rpc(h, memberTok, "tools/call", "webhooks_delete", map[string]any{"name": "webhooks_delete"})
	if w.Code != 200 || !strings.Contains(w.Body.String(), `Unknown tool: webhooks_delete`) {
		t.Fatalf("a tool the role does not allow must look unknown: %d %s", w.Code, w.Body)
	}
	w = rpc(h, memberTok, "tools/call", "emails_list", map[string]any{"name": "emails_list"})
	if !strings.Contains(w.Body.String(), `ran for org-1 as member`) {
		t.Fatalf("member call: %s", w.Body)
	}

	g.UserID, g.Subject = "admin", "admin"
	adminTok, _, _ := is.Issue(g)
	w = rpc(h, adminTok, "tools/call", "webhooks_delete", map[string]any{"name": "webhooks_delete"})
	want := `Bearer error="insufficient_scope", scope="inbox.webhooks inbox.inboxes", ` + meta
	if w.Code != 403 || !strings.HasPrefix(w.Header().Get("WWW-Authenticate"), want) {
		t.Fatalf("step-up: %d %q", w.Code, w.Header().Get("WWW-Authenticate"))
	}

	g.UserID, g.Subject = "gone", "gone"
	goneTok, _, _ := is.Issue(g)
	if w := rpc(h, goneTok, "tools/list", "", map[string]any{}); w.Code != 401 {
		t.Fatalf("a person removed from the organization: %d", w.Code)
	}

	// A token for another product's endpoint is refused here.
	g = grant()
	g.UserID, g.Subject, g.Audience = "admin", "admin", "http://127.0.0.1:8082/mcp"
	dunningTok, _, _ := is.Issue(g)
	if w := rpc(h, dunningTok, "tools/list", "", map[string]any{}); w.Code != 401 || !strings.Contains(w.Header().Get("WWW-Authenticate"), "issued for another resource") {
		t.Fatalf("foreign audience: %d %q", w.Code, w.Header().Get("WWW-Authenticate"))
	}
}

func TestProtectedResourceMetadata(t *testing.T) {
	t.Parallel()
	if got := WellKnownURL("https://mcp.example.com/mcp"); got != "https://mcp.example.com/.well-known/oauth-protected-resource/mcp" {
		t.Fatal(got)
	}
	if got := WellKnownURL("https://mcp.example.com:8443"); got != "https://mcp.example.com:8443/.well-known/oauth-protected-resource" {
		t.Fatal(got)
	}
	c := &clock{time.Now()}
	rs, _ := testResourceServer(t, c, testResource, nil)
	w := httptest.NewRecorder()
	rs.ServeMetadata(w, httptest.NewRequest("GET", "/.well-known/oauth-protected-resource/mcp", nil))
	var m map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	if m["resource"] != testResource || m["authorization_servers"].([]any)[0] != testIssuer || m["bearer_methods_supported"].([]any)[0] != "header" {
		t.Fatalf("metadata %v", m)
	}
}

// TestAccessClassIsRoleAndScopes: two callers share a class exactly when
// Access answers the same for them — same role, same scopes — and a
// request without an identity has none.
func TestAccessClassIsRoleAndScopes(t *testing.T) {
	t.Parallel()
	rs := &ResourceServer{}
	class := func(id *identity.Identity) string {
		c, ok := rs.AccessClass(identity.With(context.Background(), id))
		if !ok {
			t.Fatal("no class")
		}
		return c
	}
	a := class(&identity.Identity{Subject: "a", Role: identity.RoleMember, Scopes: []string{"x", "y"}})
	if b := class(&identity.Identity{Subject: "b", Role: identity.RoleMember, Scopes: []string{"x", "y"}}); a != b {
		t.Fatal("same role and scopes, different classes")
	}
	for _, other := range []*identity.Identity{
		{Role: identity.RoleAdmin, Scopes: []string{"x", "y"}}, {Role: identity.RoleMember, Scopes: []string{"x"}},
		{Role: identity.RoleMember, Scopes: []string{"x", "y", "z"}}, {Role: identity.RoleMember, Scopes: []string{"x y"}},
	} {
		if class(other) == a {
			t.Fatalf("%+v shares the class of a member with x, y", other)
		}
	}
	if _, ok := rs.AccessClass(context.Background()); ok {
		t.Fatal("a class without an identity")
	}
}
