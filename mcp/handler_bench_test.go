package mcp_test

// Benchmarks of the handler's own work per request (docs/performance.md,
// "Handler CPU per request"): an authorizer that answers at once,
// a rate limiter that always allows and writes its headers, and a tool that
// returns a small JSON text, so what is measured is the envelope, the gates
// and the answer, not a product.
//
//	go test ./mcp -run '^$' -bench Handler -benchmem

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/kobana/kobana-mcp/mcp"
)

// benchAuth lets everyone in, with one access class, as a signed-in caller
// of the OAuth resource server is.
type benchAuth struct{}

func (benchAuth) Authenticate(_ http.ResponseWriter, r *http.Request) (context.Context, bool) {
	return r.Context(), true
}
func (benchAuth) Access(context.Context, mcp.Requirement) mcp.Access { return mcp.Allowed }
func (benchAuth) InsufficientScope(w http.ResponseWriter, _ *http.Request, _ mcp.Requirement) {
	w.WriteHeader(http.StatusForbidden)
}
func (benchAuth) Principal(context.Context) string           { return "bench" }
func (benchAuth) AccessClass(context.Context) (string, bool) { return "owner", true }

// benchLimiter always allows, with the headers of a large limit.
type benchLimiter struct{}

func (benchLimiter) Limit(r *http.Request) mcp.RateDecision {
	return benchDecision(mcp.OperationOf(r.Context()))
}
func (benchLimiter) LimitOperation(_ context.Context, _ *http.Request, op mcp.Operation) mcp.RateDecision {
	return benchDecision(op)
}

// benchPlainLimiter has only Limit, as a limiter written before
// [mcp.OperationLimiter] has.
type benchPlainLimiter struct{}

func (benchPlainLimiter) Limit(r *http.Request) mcp.RateDecision {
	return benchDecision(mcp.OperationOf(r.Context()))
}

func benchDecision(op mcp.Operation) mcp.RateDecision {
	remaining := 999999
	if op.Write {
		remaining--
	}
	return mcp.RateDecision{Allowed: true, Limit: 1000000, Remaining: remaining, ResetUnix: 1767225600}
}

func benchHandler(b *testing.B, limiter mcp.RateLimiter) http.Handler {
	b.Helper()
	var tools []mcp.Tool
	for _, name := range []string{"emails_list", "emails_get", "emails_send", "domains_list", "webhooks_list"} {
		tools = append(tools, mcp.Tool{
			Name: name, Title: "List e-mails", Description: "Lists the workspace's e-mails, newest first.",
			InputSchema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
				"limit": {Type: "integer", Description: "How many per page."}, "cursor": {Type: "string"}}},
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)},
			// The products' REST tools validate their own arguments.
			SkipSchemaValidation: true,
			Handler: func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{req.JSONText([]byte(`{"data":[],"next_cursor":null}`))}}, nil
			},
		})
	}
	h, err := mcp.NewHandler(mcp.Options{Name: "bench", Version: "1", Authorizer: benchAuth{}, RateLimiter: limiter},
		mcp.Catalog{Tools: tools})
	if err != nil {
		b.Fatal(err)
	}
	return h
}

const benchEnvelope = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}`

type benchWriter struct {
	h      http.Header
	status int
	body   bytes.Buffer
}

func (w *benchWriter) Header() http.Header { return w.h }
func (w *benchWriter) Write(p []byte) (int, error) {
	return w.body.Write(p)
}
func (w *benchWriter) WriteHeader(s int) { w.status = s }

// runHandlerBench checks the first answer, then replays the request.
func runHandlerBench(b *testing.B, h http.Handler, method, name, params, want string) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params + benchEnvelope + `}}`)
	header := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
		"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {method}}
	if name != "" {
		header["Mcp-Name"] = []string{name}
	}
	rd := bytes.NewReader(body)
	req := httptest.NewRequest(http.MethodPost, "/mcp", rd)
	w := &benchWriter{h: http.Header{}}
	serve := func() {
		rd.Reset(body)
		req.Body = io.NopCloser(rd)
		req.Header = header.Clone()
		clear(w.h)
		w.body.Reset()
		h.ServeHTTP(w, req)
	}
	serve()
	if w.status != http.StatusOK || !strings.Contains(w.body.String(), want) || w.h.Get("X-RateLimit-Remaining") == "" {
		b.Fatalf("status %d, header %v, answer %s; want it to contain %q", w.status, w.h, w.body.String(), want)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		serve()
	}
}

func BenchmarkHandlerToolsCall(b *testing.B) {
	runHandlerBench(b, benchHandler(b, benchLimiter{}), "tools/call", "emails_list", `"name":"emails_list","arguments":{"limit":10},`, `next_cursor`)
}

func BenchmarkHandlerToolsCallPlainLimiter(b *testing.B) {
	runHandlerBench(b, benchHandler(b, benchPlainLimiter{}), "tools/call", "emails_list", `"name":"emails_list","arguments":{"limit":10},`, `next_cursor`)
}

func BenchmarkHandlerToolsList(b *testing.B) {
	runHandlerBench(b, benchHandler(b, benchLimiter{}), "tools/list", "", "", `"webhooks_list"`)
}

func BenchmarkHandlerDiscover(b *testing.B) {
	runHandlerBench(b, benchHandler(b, benchLimiter{}), "server/discover", "", "", `"supportedVersions"`)
}
