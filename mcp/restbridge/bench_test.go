package restbridge_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
)

// benchAPI answers GET /api/v1/emails/{id} with a small JSON document,
// like a REST handler whose own work is not what is being measured.
func benchAPI() http.Handler {
	mux := http.NewServeMux()
	body := []byte(`{"data":{"id":"0b7c","status":"processed","subject":"Boleto de novembro"}}`)
	mux.HandleFunc("GET /api/v1/emails/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
	return mux
}

func benchHandler(b *testing.B, tools int) *mcp.Handler {
	api := benchAPI()
	bridge := restbridge.New(api, restbridge.Options{})
	schema := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"id": {Type: "string"}}, Required: []string{"id"}}
	var list []mcp.Tool
	for i := 0; i < tools; i++ {
		name := "emails_get"
		if i > 0 {
			name = "tool_" + strconv.Itoa(i)
		}
		list = append(list, mcp.Tool{
			Name: name, Title: "Get an e-mail", Description: "Gets one e-mail by id or external_id.",
			InputSchema: schema, SkipSchemaValidation: true,
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true), DestructiveHint: mcp.Bool(false), IdempotentHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)},
			Handler:     bridge.MustHandler(restbridge.Route{Method: "GET", Path: "/api/v1/emails/{id}"}),
		})
	}
	h, err := mcp.NewHandler(mcp.Options{Name: "bench", Version: "1", PageSize: 1000}, mcp.Catalog{Tools: list})
	if err != nil {
		b.Fatal(err)
	}
	return h
}

// nopWriter is a ResponseWriter that keeps nothing, so the benchmark
// measures the handler and not a recorder.
type nopWriter struct{ h http.Header }

func (w *nopWriter) Header() http.Header         { return w.h }
func (w *nopWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *nopWriter) WriteHeader(int)             {}

func serveBench(b *testing.B, h http.Handler, method, name string, body []byte) {
	b.Helper()
	req := httptest.NewRequest("POST", "/mcp", nil)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	w := &nopWriter{h: http.Header{}}
	rd := bytes.NewReader(body)
	req.Body = io.NopCloser(rd)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		rd.Reset(body)
		clear(w.h)
		h.ServeHTTP(w, req)
	}
}

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}`

// BenchmarkToolsCallThroughBridge is a whole 2026-07-28 tools/call: gates,
// envelope, header checks, in-process REST dispatch and the encoded result.
func BenchmarkToolsCallThroughBridge(b *testing.B) {
	h := benchHandler(b, 1)
	body := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"emails_get","arguments":{"id":"0b7c"},` + meta + `}}`)
	serveBench(b, h, "tools/call", "emails_get", body)
}

// BenchmarkRESTHandlerDirect is the same REST route called directly: the
// baseline the transport's overhead is measured against.
func BenchmarkRESTHandlerDirect(b *testing.B) {
	api := benchAPI()
	req := httptest.NewRequestWithContext(context.Background(), "GET", "/api/v1/emails/0b7c", nil)
	w := &nopWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		api.ServeHTTP(w, req)
	}
}

// BenchmarkToolsList60 lists 60 tools, the size of a product catalog.
func BenchmarkToolsList60(b *testing.B) {
	h := benchHandler(b, 60)
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`)
	serveBench(b, h, "tools/list", "", body)
}
