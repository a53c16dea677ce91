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
