package mcp_test

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/kobana/kobana-mcp/mcp"
)

// A server is a catalog and options; the handler is an http.Handler that
// answers both protocol eras on one endpoint.
func ExampleNewHandler() {
	h := mcp.MustNewHandler(mcp.Options{Name: "greeter", Version: "1.0.0"}, mcp.Catalog{
		Tools: []mcp.Tool{{
			Name:        "greet",
			Description: "Greets someone by name.",
			InputSchema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"name": {Type: "string"}}, Required: []string{"name"}},
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true), DestructiveHint: mcp.Bool(false), IdempotentHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)},
			Handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.TextResult("Hello! You sent " + string(req.Arguments)), nil
			},
		}},
	})
	srv := httptest.NewServer(h)
	defer srv.Close()

	// A 2026-07-28 client: no handshake, the envelope in every request,
	// the headers repeating it.
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ana"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req := httptest.NewRequest("POST", srv.URL, strings.NewReader(body))
	req.RequestURI = ""
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "greet")
	resp, err := srv.Client().Do(req)
	if err != nil {
		panic(err)
	}
	out, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, resp.Header.Get("MCP-Protocol-Version"))
	fmt.Println(string(out))
	// Output:
	// 200 2026-07-28
	// {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"Hello! You sent {\"name\":\"Ana\"}"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"greeter","version":"1.0.0"}}}}
}
