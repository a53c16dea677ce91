package mcp_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/mcp"
)

// TestResultsCarryTheirLength: a result longer than net/http's response
// buffer (a tools/list of many tools) is sent with its Content-Length, not
// in chunks, like every shorter answer; the body is the same either way
// (docs/performance.md, "Kadu and Dunning as fast as the Inbox (issue 28)").
func TestResultsCarryTheirLength(t *testing.T) {
	t.Parallel()
	var tools []mcp.Tool
	for i := range 40 {
		tools = append(tools, mcp.Tool{Name: fmt.Sprintf("tool_%02d", i), Description: strings.Repeat("Lists the things. ", 8),
			Annotations: annotations(true, false, true),
			Handler: func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			}})
	}
	srv := httptest.NewServer(mcp.MustNewHandler(mcp.Options{Name: "long", Version: "1.0.0"}, mcp.Catalog{Tools: tools}))
	t.Cleanup(srv.Close)
	for _, c := range []struct{ body string }{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{`{"jsonrpc":"2.0","id":2,"method":"ping"}`},
	} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(c.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || len(resp.TransferEncoding) != 0 || resp.ContentLength != int64(len(b)) {
			t.Fatalf("%s: %d, transfer encoding %v, length %d for a body of %d", c.body, resp.StatusCode, resp.TransferEncoding, resp.ContentLength, len(b))
		}
		if strings.Contains(c.body, "tools/list") && (len(b) < 4096 || !strings.Contains(string(b), `"tool_39"`)) {
			t.Fatalf("the list is not long enough to test: %d bytes", len(b))
		}
	}
}

// TestKeptAnswersAreWrittenAsBuilt: server/discover and a caller class's
// tools/list are decorated once and written after the id without a copy
// (writeTail). The answer is the one built the first time, whatever the
// id (short, long, past the response buffer), in both eras, for a catalog
// past net/http's buffer and one within it, and never in chunks.
func TestKeptAnswersAreWrittenAsBuilt(t *testing.T) {
	t.Parallel()
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`
	for _, n := range []int{1, 40} {
		var tools []mcp.Tool
		for i := range n {
			tools = append(tools, mcp.Tool{Name: fmt.Sprintf("tool_%02d", i), Description: strings.Repeat("Lists the things. ", 8),
				Annotations: annotations(true, false, true),
				Handler: func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{}, nil
				}})
		}
		srv := httptest.NewServer(mcp.MustNewHandler(mcp.Options{Name: "kept", Version: "1.0.0", Instructions: strings.Repeat("Read me. ", 300)}, mcp.Catalog{Tools: tools}))
		t.Cleanup(srv.Close)
		for _, c := range []struct{ version, method, params string }{
			{"2025-06-18", "tools/list", `{}`},
			{"2026-07-28", "tools/list", `{` + meta + `}`},
			{"2026-07-28", "server/discover", `{` + meta + `}`},
		} {
			var first string
			for _, id := range []string{`1`, `"a"`, `"` + strings.Repeat("x", 200) + `"`, `"` + strings.Repeat("y", 3000) + `"`, `7`} {
				req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":`+id+`,"method":"`+c.method+`","params":`+c.params+`}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("MCP-Protocol-Version", c.version)
				req.Header.Set("Mcp-Method", c.method)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || len(resp.TransferEncoding) != 0 || resp.ContentLength != int64(len(b)) ||
					resp.Header.Get("Content-Type") != "application/json" {
					t.Fatalf("%d tools, %s %s id %.20s: %d, transfer encoding %v, length %d for a body of %d, %q", n, c.version, c.method, id,
						resp.StatusCode, resp.TransferEncoding, resp.ContentLength, len(b), resp.Header.Get("Content-Type"))
				}
				head := `{"jsonrpc":"2.0","id":` + id + `,"result":{`
				if !strings.HasPrefix(string(b), head) || !strings.HasSuffix(string(b), "}}") {
					t.Fatalf("%d tools, %s %s: answer %.300s", n, c.version, c.method, b)
				}
				rest := string(b[len(head)-len(`,"result":{`):])
				if first == "" {
					first = rest
				} else if rest != first {
					t.Fatalf("%d tools, %s %s id %.20s: after the id\n%.300s\nwant\n%.300s", n, c.version, c.method, id, rest, first)
				}
				if c.method == "tools/list" && !strings.Contains(rest, fmt.Sprintf(`"tool_%02d"`, n-1)) {
					t.Fatalf("%d tools, %s: %.300s", n, c.version, rest)
				}
			}
		}
	}
}
