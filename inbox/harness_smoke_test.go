package inbox

import (
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestHarness checks the shared test environment itself: the same listing
// through REST and MCP, and each organization sees only its workspace.
func TestHarness(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := newTestEnv(t, db, Config{SMTPAddr: "off"})
		code, body := e.Do(e.Owner, "GET", "/api/v1/workspaces", nil)
		if code != 200 || !strings.Contains(body, e.MineWS.ID) || strings.Contains(body, e.TheirWS.ID) {
			t.Fatalf("REST: %d %s", code, body)
		}
		text, isErr := e.Call(e.Other, "workspaces_list", map[string]any{})
		if isErr || !strings.Contains(text, e.TheirWS.ID) || strings.Contains(text, e.MineWS.ID) {
			t.Fatalf("MCP: %s", text)
		}
	})
}
