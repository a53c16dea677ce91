package tracing

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/kobana/kobana-mcp/mcp"
)

// Bounds on what a span records of a request's own strings.
const (
	maxIDLen  = 128
	maxURILen = 512
)

// MCP is the endpoints' mcp.Tracer: one SERVER span per MCP request, named
// and described by OpenTelemetry's semantic conventions for MCP
// (docs/operating.md "Traces"). Nil tp is tracing off: MCP returns nil,
// which the endpoint takes as no tracer.
func MCP(tp trace.TracerProvider) mcp.Tracer {
	if tp == nil {
		return nil
	}
	return &mcpTracer{tracer: tp.Tracer(Scope)}
}

type mcpTracer struct{ tracer trace.Tracer }

// metaCarrier reads the trace context a client put in params._meta.
type metaCarrier struct{ t *mcp.Trace }

func (c metaCarrier) Get(key string) string {
	switch key {
	case "traceparent":
		return c.t.TraceParent
	case "tracestate":
		return c.t.TraceState
	}
	return ""
}
func (metaCarrier) Set(string, string) {}
func (metaCarrier) Keys() []string     { return []string{"traceparent", "tracestate"} }

// StartRequest implements mcp.Tracer. The parent is the trace context of
// params._meta when the client sent one (the conventions' choice: one
// HTTP request is transport, the MCP message is the operation); the HTTP
// traceparent header is the parent otherwise, and a link when both came
// and differ.
func (m *mcpTracer) StartRequest(ctx context.Context, r *http.Request, t *mcp.Trace) context.Context {
	parent := ctx
	var links []trace.Link
	header := trace.SpanContextFromContext(propagator.Extract(context.Background(), propagation.HeaderCarrier(r.Header)))
	if header.IsValid() {
		parent = trace.ContextWithRemoteSpanContext(ctx, header)
	}
	if t.TraceParent != "" {
		if meta := trace.SpanContextFromContext(propagator.Extract(context.Background(), metaCarrier{t})); meta.IsValid() {
			parent = trace.ContextWithRemoteSpanContext(ctx, meta)
			if header.IsValid() && !header.Equal(meta) {
				links = append(links, trace.Link{SpanContext: header, Attributes: []attribute.KeyValue{attribute.String("kobana.link", "http")}})
			}
		}
	}
	attrs := make([]attribute.KeyValue, 0, 8)
	attrs = append(attrs,
		attribute.String("mcp.method.name", t.Method),
		attribute.String("jsonrpc.request.id", bound(t.RequestID, maxIDLen)),
		attribute.String("network.transport", "tcp"),
		attribute.String("network.protocol.name", "http"),
		attribute.String("network.protocol.version", protocolVersion(r)))
	switch {
	case t.Method == "tools/call" && t.Target != "":
		attrs = append(attrs, attribute.String("gen_ai.tool.name", t.Target), attribute.String("gen_ai.operation.name", "execute_tool"))
	case t.Method == "tools/call":
		attrs = append(attrs, attribute.String("gen_ai.operation.name", "execute_tool"))
	case t.Method == "prompts/get" && t.Target != "":
		attrs = append(attrs, attribute.String("gen_ai.prompt.name", t.Target))
	case t.ResourceURI != "":
		attrs = append(attrs, attribute.String("mcp.resource.uri", bound(t.ResourceURI, maxURILen)))
	}
	name := t.Method
	if t.Target != "" {
		name += " " + t.Target
	}
	ctx, _ = m.tracer.Start(parent, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithLinks(links...), trace.WithAttributes(attrs...))
	return ctx
}

// EndRequest implements mcp.Tracer: the protocol version and era, and
// the error answered — error.type is the JSON-RPC code (or tool_error for
// a result with isError), the status carries the error's message.
func (m *mcpTracer) EndRequest(ctx context.Context, t *mcp.Trace) {
	span := trace.SpanFromContext(ctx)
	if t.Version != "" {
		span.SetAttributes(attribute.String("mcp.protocol.version", t.Version), attribute.String("kobana.mcp.era", t.Era))
	}
	switch {
	case t.ErrorCode != 0:
		code := strconv.Itoa(t.ErrorCode)
		span.SetAttributes(attribute.String("error.type", code),
			attribute.String("rpc.response.status_code", code),
			attribute.Int("rpc.jsonrpc.error_code", t.ErrorCode))
		span.SetStatus(codes.Error, t.ErrorMessage)
	case t.ToolError:
		span.SetAttributes(attribute.String("error.type", "tool_error"))
		span.SetStatus(codes.Error, "tool_error")
	}
	span.End()
}

func protocolVersion(r *http.Request) string {
	switch r.ProtoMajor {
	case 2:
		return "2"
	case 3:
		return "3"
	}
	return "1.1"
}

// bound cuts s to at most n bytes.
func bound(s string, n int) string {
	if len(s) > n {
		return strings.ToValidUTF8(s[:n], "")
	}
	return s
}
