package productkit

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
	"github.com/kobana/kobana-mcp/rest"
)

type noInput struct{}

func annotations(readOnly bool) mcp.ToolAnnotations {
	return mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(readOnly), DestructiveHint: mcp.Bool(false), IdempotentHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)}
}

// TestAPIAndMCPEachAcceptTheirOwnTokens runs a product's API and MCP
// endpoint on one loopback listener, as serve does.
func TestAPIAndMCPEachAcceptTheirOwnTokens(t *testing.T) {
	t.Parallel()
	keys, err := oauth.NewKeySet(&oauth.MemoryKeyStore{}, oauth.KeySetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	roles := map[string]identity.Role{"viewer": identity.RoleViewer, "member": identity.RoleMember}
	auth := NewAuth(AuthConfig{
		PublicURL: srv.URL, APIBase: "/api/v1", Issuer: srv.URL, Keys: oauth.KeySetSource{Keys: keys},
		Scopes: []string{"inbox.emails"}, Name: "Test",
		Roles: func(ctx context.Context, id *identity.Identity) (identity.Role, error) {
			if r, ok := roles[id.UserID]; ok {
				return r, nil
			}
			return "", oauth.ErrNoMembership
		},
	})
	api := rest.New(rest.Config{Title: "T", Version: "1", BasePath: "/api/v1", Authorize: auth.AuthorizeAPI})
	rest.Handle(api, rest.Operation{ID: "emails_list", Method: "GET", Path: "/emails", Title: "List", Summary: "Lists.", Annotations: annotations(true),
		Requires: mcp.Requirement{Scopes: []string{"inbox.emails"}, Permission: identity.PermRead}},
		func(ctx context.Context, _ *noInput) (*rest.Response, error) {
			id := identity.From(ctx)
			return rest.OK(map[string]any{"org": id.OrganizationID, "role": id.Role}), nil
		})
	rest.Handle(api, rest.Operation{ID: "emails_purge", Method: "POST", Path: "/emails/purge", Title: "Purge", Summary: "Purges.", Annotations: annotations(false),
		Requires: mcp.Requirement{Scopes: []string{"inbox.emails"}, Permission: identity.PermWrite}},
		func(ctx context.Context, _ *noInput) (*rest.Response, error) { return rest.NoContent(), nil })
	h := mcp.MustNewHandler(mcp.Options{Name: "t", Version: "1", Authorizer: auth.MCP}, mcp.Catalog{Tools: api.Tools(restbridge.New(api, restbridge.Options{}))})
	mux.Handle(MCPPath, h)
	mux.Handle("/api/v1/", api)
	auth.Mount(mux)

	issuer := &oauth.Issuer{URL: srv.URL, Keys: keys}
	token := func(user, audience string, scopes ...string) string {
		tok, _, err := issuer.Issue(oauth.Grant{Subject: user, UserID: user, OrganizationID: "org-1", Audience: audience, Scopes: scopes, TTL: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	get := func(method, path, tok string) (*http.Response, string) {
		req, _ := http.NewRequest(method, srv.URL+path, nil)
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}

	resp, body := get("GET", "/api/v1/emails", "")
	if resp.StatusCode != 401 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `resource_metadata="`+srv.URL+`/.well-known/oauth-protected-resource/api/v1"`) || !strings.Contains(body, `"unauthorized"`) {
		t.Fatalf("no token: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	resp, _ = get("GET", "/api/v1/emails", token("viewer", srv.URL+"/mcp", "inbox.emails"))
	if resp.StatusCode != 401 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "another resource") {
		t.Fatalf("an MCP token on the API: %d %v", resp.StatusCode, resp.Header)
	}
	resp, body = get("GET", "/api/v1/emails", token("viewer", srv.URL+"/api/v1", "inbox.emails"))
	if resp.StatusCode != 200 || !strings.Contains(body, `"role":"viewer"`) {
		t.Fatalf("API token: %d %s", resp.StatusCode, body)
	}
	resp, _ = get("POST", "/api/v1/emails/purge", token("viewer", srv.URL+"/api/v1", "inbox.emails"))
	if resp.StatusCode != 403 {
		t.Fatalf("viewer writing: %d", resp.StatusCode)
	}
	resp, _ = get("GET", "/api/v1/emails", token("member", srv.URL+"/api/v1"))
	if resp.StatusCode != 403 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `error="insufficient_scope", scope="inbox.emails"`) {
		t.Fatalf("missing scope: %d %v", resp.StatusCode, resp.Header)
	}

	// Through MCP: the MCP token, never forwarded, and the identity reaches
	// the API in the context.
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"emails_list","arguments":{}}}`
	req, _ := http.NewRequest("POST", srv.URL+"/mcp", strings.NewReader(call))
	req.Header.Set("Authorization", "Bearer "+token("member", srv.URL+"/mcp", "inbox.emails"))
	req.Header.Set("Content-Type", "application/json")
	r2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(r2.Body).Decode(&out)
	text := out["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)
	if text != `{"org":"org-1","role":"member"}` {
		t.Fatalf("in-process call: %s", text)
	}

	for _, p := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/api/v1"} {
		resp, body := get("GET", p, "")
		if resp.StatusCode != 200 || !strings.Contains(body, `"authorization_servers":["`+srv.URL+`"]`) {
			t.Fatalf("%s: %d %s", p, resp.StatusCode, body)
		}
	}
}
