package tracing_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/tracing"
	"github.com/kobana/kobana-mcp/platform/tracing/tracingtest"
)

func failingTool(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return mcp.ErrorResult("the charge was refused"), nil
}

func readNote(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	text := "a note"
	return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: req.URI, MimeType: "text/plain", Text: &text}}}, nil
}

func summarize(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: "user", Content: mcp.TextContent("Summarize.")}}}, nil
}

// post sends one JSON-RPC body to the endpoint with the 2025-06-18
// headers.
func post(t *testing.T, url, body string) string {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// TestMCPSpansOfEveryMethod: the MCP tracer on a plain mcp endpoint (no
// product) names and describes each kind of request by the conventions —
// resources/read with mcp.resource.uri and no target in the name,
// prompts/get with gen_ai.prompt.name, a tool's isError result as
// error.type tool_error — in the 2025 era too (kobana.mcp.era 2025), a
// string request id as its text.
func TestMCPSpansOfEveryMethod(t *testing.T) {
	t.Parallel()
	col := tracingtest.NewCollector(t)
	tp := col.Provider(t)
	h := mcp.MustNewHandler(mcp.Options{Name: "t", Version: "1", Tracer: tracing.MCP(tp)}, mcp.Catalog{
		Tools: []mcp.Tool{{Name: "charge", Description: "Charges.", InputSchema: &jsonschema.Schema{Type: "object"},
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)}, Handler: failingTool}},
		Resources: []mcp.Resource{{URI: "note://one", Name: "one", MimeType: "text/plain", Read: readNote}},
		Prompts:   []mcp.Prompt{{Name: "summarize", Description: "Summarizes.", Get: summarize}},
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	const tp2025 = `"_meta":{"traceparent":"00-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-bbbbbbbbbbbbbbbb-01"}`
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":"r-1","method":"resources/read","params":{"uri":"note://one",` + tp2025 + `}}`,
		`{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"summarize",` + tp2025 + `}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"charge","arguments":{},` + tp2025 + `}}`,
	} {
		if out := post(t, srv.URL, body); !strings.Contains(out, `"result"`) {
			t.Fatalf("%s: %s", body, out)
		}
	}
	spans := col.Wait(t, 10*time.Second, func(s []tracingtest.Span) bool { return len(s) == 3 })
	t.Logf("three requests in the 2025 era:\n%s", tracingtest.Tree(spans))
	read := tracingtest.Find(t, spans, "resources/read")
	if read.Attrs["mcp.resource.uri"] != "note://one" || read.Attrs["jsonrpc.request.id"] != "r-1" || read.Attrs["kobana.mcp.era"] != "2025" ||
		read.Attrs["mcp.protocol.version"] != "2025-06-18" || read.ParentID != "bbbbbbbbbbbbbbbb" || read.Error {
		t.Fatalf("resources/read: %+v", read)
	}
	prompt := tracingtest.Find(t, spans, "prompts/get summarize")
	if prompt.Attrs["gen_ai.prompt.name"] != "summarize" || prompt.Attrs["gen_ai.operation.name"] != "" {
		t.Fatalf("prompts/get: %+v", prompt)
	}
	call := tracingtest.Find(t, spans, "tools/call charge")
	if !call.Error || call.Attrs["error.type"] != "tool_error" || call.Attrs["rpc.response.status_code"] != "" || call.Kind != "SERVER" {
		t.Fatalf("tools/call with isError: %+v", call)
	}
}
