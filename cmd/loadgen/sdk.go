package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkTool is the tool of the official SDK's peer that the benchmark
// calls; its call answers a short text and reads nothing. More tools
// (-sdk-tools) are copies named hello_1, hello_2, …: the SDK's stateless
// handler does work per registered tool on every request, so the count
// matters (docs/performance.md, "Benchmarks", "The signed-in path").
const sdkTool = "hello"

// sdkHandler is the official Go SDK's stateless streamable HTTP handler
// answering JSON (not an event stream), with tools trivial tools and no
// authorization: the peer of the issue's target "emails_list ≥ 2× the
// official SDK's throughput on its trivial tool without auth" (docs/performance.md,
// "Benchmarks", "The signed-in path"). It is built like the SDK target of
// the in-process benchmarks (cmd/kobana-mcp/bench_test.go).
func sdkHandler(tools int) http.Handler {
	server := sdk.NewServer(&sdk.Implementation{Name: "loadgen-sdk", Version: "1"}, nil)
	schema := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"limit": {Type: "integer", Description: "How many per page."}}}
	for i := range max(tools, 1) {
		name := sdkTool
		if i > 0 {
			name += "_" + strconv.Itoa(i)
		}
		server.AddTool(&sdk.Tool{Name: name, Title: "Say hello", Description: "Answers hello.", InputSchema: schema,
			Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(bool)}},
			func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hello"}}}, nil
			})
	}
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server },
		&sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
}

// serveSDK serves sdkHandler on addr at /mcp until the process ends.
func serveSDK(addr string, tools int) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", sdkHandler(tools))
	fmt.Printf("go-sdk: http://%s/mcp\n", ln.Addr())
	fatal(http.Serve(ln, mux))
}
