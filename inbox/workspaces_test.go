package inbox

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestWorkspaceTools runs the Inbox listener on loopback with real
// tokens and a real database: the tools mirror the routes, and another
// organization's workspace is not found, through MCP and REST alike.
func TestWorkspaceTools(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newTestEnv(t, db, Config{SMTPAddr: "off"})
		mine, theirWS := e.Mine, e.TheirWS
		extra, err := e.Acc.CreateWorkspace(ctx, mine.ID, accounts.NewWorkspace{ExternalID: "billing", Label: "Billing"})
		if err != nil {
			t.Fatal(err)
		}
		u, _ := e.Acc.CreateUser(ctx, accounts.NewUser{Email: "v@example.com", Password: "a long enough password", OrganizationID: mine.ID, Role: identity.RoleViewer})
		call := func(tool string, args map[string]any) (string, bool) {
			return e.Call(u, tool, args)
		}
		tok := func(resource string) string { return e.Token(u, resource, "inbox.workspaces") }
		mcpTok := tok("mcp")
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
		if text, isErr := call("workspaces_get", map[string]any{"id": theirWS.ID}); !isErr || !strings.Contains(text, `"not_found"`) {
			t.Fatalf("another organization's workspace: %s", text)
		}
		if text, isErr := call("workspaces_list", map[string]any{"organization_id": e.Theirs.ID}); !isErr || text != `{"error":{"code":"validation_failed","message":"the request is invalid","details":[{"field":"organization_id","message":"unknown query parameter"}]}}` {
			t.Fatalf("no tool takes an organization: %s", text)
		}

		get := func(path, token string) (int, string) { return e.DoToken(token, "GET", path, nil) }
		if code, body := get("/api/v1/workspaces/"+theirWS.ID, tok("api")); code != 404 {
			t.Fatalf("REST, another organization's workspace: %d %s", code, body)
		}
		if code, body := get("/api/v1/workspaces", tok("api")); code != 200 || !strings.Contains(body, extra.ID) {
			t.Fatalf("REST list: %d %s", code, body)
		}
		if code, _ := get("/api/v1/workspaces", mcpTok); code != 401 {
			t.Fatalf("an MCP token on the API: %d", code)
		}
	})
}
