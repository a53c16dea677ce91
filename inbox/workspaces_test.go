package inbox

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/app"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestWorkspaceTools runs the Inbox listener on loopback with real
// tokens and a real database: the tools mirror the routes, and another
// organization's workspace is not found, through MCP and REST alike.
func TestWorkspaceTools(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		acc := accounts.New(db, accounts.Options{})
		mine, _ := acc.CreateOrganization(ctx, "Mine")
		theirs, _ := acc.CreateOrganization(ctx, "Theirs")
		extra, err := acc.CreateWorkspace(ctx, mine.ID, accounts.NewWorkspace{ExternalID: "billing", Label: "Billing"})
		if err != nil {
			t.Fatal(err)
		}
		u, _ := acc.CreateUser(ctx, accounts.NewUser{Email: "v@example.com", Password: "a long enough password", OrganizationID: mine.ID, Role: identity.RoleViewer})
		theirWS, _ := acc.ListWorkspaces(ctx, theirs.ID)

		keys, _ := oauth.NewKeySet(&oauth.MemoryKeyStore{}, oauth.KeySetOptions{})
		mux := http.NewServeMux()
		srv := httptest.NewServer(mux)
		defer srv.Close()
		p, err := New(app.Deps{PublicURL: srv.URL, DB: db, Issuer: srv.URL, Keys: oauth.KeySetSource{Keys: keys},
			Roles: func(ctx context.Context, id *identity.Identity) (identity.Role, error) {
				m, err := acc.GetMembership(ctx, id.OrganizationID, id.UserID)
				return m.Role, err
			}})
		if err != nil {
			t.Fatal(err)
		}
		mux.Handle("/", p.Handler)
		issuer := &oauth.Issuer{URL: srv.URL, Keys: keys}
		tok := func(audience string, scopes ...string) string {
			s, _, err := issuer.Issue(oauth.Grant{Subject: u.ID, UserID: u.ID, OrganizationID: mine.ID, Audience: audience, Scopes: scopes, TTL: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		mcpTok := tok(srv.URL+"/mcp", "inbox.workspaces")

		call := func(tool string, args map[string]any) (string, bool) {
			body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
			req, _ := http.NewRequest("POST", srv.URL+"/mcp", strings.NewReader(string(body)))
			req.Header.Set("Authorization", "Bearer "+mcpTok)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var out struct {
				Result struct {
					Content []struct{ Text string }
					IsError bool
				}
			}
			_ = json.NewDecoder(resp.Body).Decode(&out)
			if len(out.Result.Content) == 0 {
				t.Fatalf("%s: no result (status %d)", tool, resp.StatusCode)
			}
			return out.Result.Content[0].Text, out.Result.IsError
		}
		text, isErr := call("workspaces_list", map[string]any{"limit": 1})
		var page struct {
			Data []workspaceJSON
			Meta struct {
				NextCursor *string `json:"next_cursor"`
			}
		}
		if err := json.Unmarshal([]byte(text), &page); err != nil || isErr || len(page.Data) != 1 || page.Meta.NextCursor == nil {
			t.Fatalf("first page: %s", text)
		}
		text, _ = call("workspaces_list", map[string]any{"limit": 1, "cursor": *page.Meta.NextCursor})
		page.Meta.NextCursor = nil
		_ = json.Unmarshal([]byte(text), &page)
		if len(page.Data) != 1 || page.Data[0].ID != extra.ID || page.Meta.NextCursor != nil {
			t.Fatalf("last page: %s", text)
		}
		if text, isErr := call("workspaces_get", map[string]any{"id": "billing"}); isErr || !strings.Contains(text, extra.ID) {
			t.Fatalf("by external id: %s", text)
		}
		if text, isErr := call("workspaces_get", map[string]any{"id": theirWS[0].ID}); !isErr || !strings.Contains(text, `"not_found"`) {
			t.Fatalf("another organization's workspace: %s", text)
		}
		if text, isErr := call("workspaces_list", map[string]any{"organization_id": theirs.ID}); !isErr || !strings.Contains(text, `unknown argument "organization_id"`) {
			t.Fatalf("no tool takes an organization: %s", text)
		}

		get := func(path, token string) (int, string) {
			req, _ := http.NewRequest("GET", srv.URL+path, nil)
			req.Header.Set("Authorization", "Bearer "+token)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b)
		}
		if code, body := get("/api/v1/workspaces/"+theirWS[0].ID, tok(srv.URL+"/api/v1", "inbox.workspaces")); code != 404 {
			t.Fatalf("REST, another organization's workspace: %d %s", code, body)
		}
		if code, body := get("/api/v1/workspaces", tok(srv.URL+"/api/v1", "inbox.workspaces")); code != 200 || !strings.Contains(body, extra.ID) {
			t.Fatalf("REST list: %d %s", code, body)
		}
		if code, _ := get("/api/v1/workspaces", mcpTok); code != 401 {
			t.Fatalf("an MCP token on the API: %d", code)
		}
	})
}
