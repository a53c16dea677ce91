package mcp_test

// Ordinary tests of behaviour the golden fixture cannot show because it
// needs another catalog: capabilities that follow the catalog, and internal
// errors.

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/mcp"
)

const envelope = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// post sends one JSON-RPC request; modern requests get the 2026 headers.
func post(t *testing.T, h http.Handler, method, name, body string, modern bool) (int, string) {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	if modern {
		r.Header.Set("MCP-Protocol-Version", "2026-07-28")
		r.Header.Set("Mcp-Method", method)
		if name != "" {
			r.Header.Set("Mcp-Name", name)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	checkInvariants(t, rec)
	b, _ := io.ReadAll(rec.Body)
	return rec.Code, string(b)
}

func toolsOnly() mcp.Catalog {
	return mcp.Catalog{Tools: []mcp.Tool{
		{
			Name:        "boom",
			Annotations: annotations(true, false, true),
			Handler: func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return nil, errors.New("database password is hunter2")
			},
		},
		{
			Name:        "panics",
			Annotations: annotations(true, false, true),
			Handler: func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				panic("secret detail")
			},
		},
		{
			Name:        "nil_result",
			Annotations: annotations(true, false, true),
			Handler: func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return nil, nil
			},
		},
	}}
}

// Capabilities follow the catalog (docs/decisions.md, "Protocol" "Capabilities";
// mcp-protocol §3 "Capabilities must match behaviour"): a server without
// prompts, resources and completions does not advertise them, and their
// methods are -32601 (404 in 2026, 200 in 2025).
func TestCapabilitiesFollowTheCatalog(t *testing.T) {
	t.Parallel()
	h := mcp.MustNewHandler(goldenOptions(), toolsOnly())

	status, body := post(t, h, "server/discover", "", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+envelope+`}}`, true)
	if status != 200 || !strings.Contains(body, `"capabilities":{"tools":{}},`) {
		t.Errorf("discover: %d %s", status, body)
	}
	status, body = post(t, h, "", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`, false)
	if status != 200 || !strings.Contains(body, `"capabilities":{"tools":{"listChanged":false}},`) {
		t.Errorf("initialize: %d %s", status, body)
	}
	for _, m := range []string{"prompts/list", "resources/list", "resources/templates/list", "completion/complete"} {
		status, body = post(t, h, m, "", `{"jsonrpc":"2.0","id":1,"method":"`+m+`","params":{`+envelope+`}}`, true)
		if want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: ` + m + `"}}`; status != 404 || body != want {
			t.Errorf("2026 %s: %d %s, want 404 %s", m, status, body, want)
		}
		status, body = post(t, h, "", "", `{"jsonrpc":"2.0","id":1,"method":"`+m+`"}`, false)
		if want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: ` + m + `"}}`; status != 200 || body != want {
			t.Errorf("2025 %s: %d %s, want 200 %s", m, status, body, want)
		}
	}
	for _, m := range []string{"prompts/get", "resources/read"} {
		name, member := "x", `"name":"x"`
		if m == "resources/read" {
			name, member = "test://x", `"uri":"test://x"`
		}
		status, body = post(t, h, m, name, `{"jsonrpc":"2.0","id":1,"method":"`+m+`","params":{`+member+`,`+envelope+`}}`, true)
		if status != 404 || !strings.Contains(body, `"code":-32601`) {
			t.Errorf("2026 %s: %d %s, want 404 -32601", m, status, body)
		}
	}
}

// Internal failures answer -32603 in a 200 (docs/decisions.md, "Protocol" "Errors
// after routing (...; -32603) travel in a 200") and never leak details.
func TestInternalErrors(t *testing.T) {
	t.Parallel()
	h := mcp.MustNewHandler(goldenOptions(), toolsOnly())
	for _, tool := range []string{"boom", "panics", "nil_result"} {
		for _, modern := range []bool{true, false} {
			params := `{"name":"` + tool + `"}`
			if modern {
				params = `{"name":"` + tool + `",` + envelope + `}`
			}
			status, body := post(t, h, "tools/call", tool, `{"jsonrpc":"2.0","id":"e","method":"tools/call","params":`+params+`}`, modern)
			want := `{"jsonrpc":"2.0","id":"e","error":{"code":-32603,"message":"Internal error"}}`
			if status != 200 || body != want {
				t.Errorf("%s (modern=%v): %d %s, want 200 %s", tool, modern, status, body, want)
			}
		}
	}
}

// Every answer of the fixture server, whatever the request, is one of the
// statuses the seeds name, and never opens a stream or a session.
func TestNoStreamNoSession(t *testing.T) {
	t.Parallel()
	h := goldenHandler()
	for _, accept := range []string{"text/event-stream", "application/json, text/event-stream", ""} {
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Mcp-Session-Id", "client-made-this-up")
		r.Header.Set("Last-Event-ID", "7")
		if accept != "" {
			r.Header.Set("Accept", accept)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		checkInvariants(t, rec)
		if rec.Code != 200 || rec.Body.String() != `{"jsonrpc":"2.0","id":1,"result":{}}` {
			t.Errorf("Accept %q: %d %s", accept, rec.Code, rec.Body)
		}
	}
}
