package inbox

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestHostileStringsSameOnBothEngines: a NUL character (which PostgreSQL
// cannot store, and once answered 500 there while SQLite took it) and an
// unpaired surrogate (which JSON decoding used to turn into U+FFFD) are
// refused before any query, through the REST API and through the MCP
// tool, naming the field, with the same answer on SQLite and PostgreSQL.
// Through tools/call an unpaired surrogate is the endpoint's own parse
// error, as before.
func TestHostileStringsSameOnBothEngines(t *testing.T) {
	t.Parallel()
	rest := []struct {
		name, method, path, body, field string
	}{
		{"body NUL", "POST", "/api/v1/inboxes", `{"label":"a\u0000b"}`, "label"},
		{"nested NUL", "POST", "/api/v1/inboxes", `{"label":"ok","allowed_senders":["a\u0000b@x.example"]}`, "allowed_senders"},
		{"body lone surrogate", "POST", "/api/v1/inboxes", `{"label":"a\ud800b"}`, "label"},
		{"path NUL", "GET", "/api/v1/inboxes/a%00b", "", "id"},
		{"query NUL", "GET", "/api/v1/emails?from=a%00b", "", "from"},
		{"query invalid UTF-8", "GET", "/api/v1/emails?from=a%ffb", "", "from"},
	}
	answers := map[string]string{}
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := newTestEnv(t, db, Config{SMTPAddr: "off"})
		for _, c := range rest {
			var body any
			if c.body != "" {
				body = c.body
			}
			code, got := e.Do(e.Owner, c.method, c.path, body, "Content-Type", "application/json")
			var doc struct {
				Error struct {
					Code    string `json:"code"`
					Details []struct {
						Field string `json:"field"`
					} `json:"details"`
				} `json:"error"`
			}
			_ = json.Unmarshal([]byte(got), &doc)
			named := false
			for _, d := range doc.Error.Details {
				named = named || strings.HasPrefix(d.Field, c.field)
			}
			if code != 422 || doc.Error.Code != "validation_failed" || !named {
				t.Errorf("%s: %d %s, want 422 validation_failed naming %s", c.name, code, got, c.field)
			}
			if prev, ok := answers[c.name]; ok && prev != got {
				t.Errorf("%s: the engines answer differently:\n %s\n %s", c.name, prev, got)
			}
			answers[c.name] = got
		}
		// The same through the MCP tool: an isError result with the API's body.
		text, isErr := e.Call(e.Owner, "inboxes_get", map[string]any{"id": "a\x00b"})
		if !isErr || !strings.Contains(text, `"validation_failed"`) || !strings.Contains(text, `"id"`) {
			t.Errorf("inboxes_get with a NUL: %v %s", isErr, text)
		}
		text, isErr = e.Call(e.Owner, "inboxes_create", map[string]any{"label": "a\x00b"})
		if !isErr || !strings.Contains(text, `"label"`) {
			t.Errorf("inboxes_create with a NUL: %v %s", isErr, text)
		}
		if prev, ok := answers["mcp"]; ok && prev != text {
			t.Errorf("the engines answer the tool differently:\n %s\n %s", prev, text)
		}
		answers["mcp"] = text
		// An unpaired surrogate in the tool's arguments is a JSON-RPC parse error.
		_, raw := e.DoToken(e.Token(e.Owner, "mcp"), "POST", "/mcp",
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"inboxes_create","arguments":{"label":"a\ud800b"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`,
			"Content-Type", "application/json", "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "inboxes_create")
		if !strings.Contains(raw, `-32700`) {
			t.Errorf("a lone surrogate through tools/call: %s", raw)
		}
	})
}
