package mcp

import (
	"context"
	"net/http"

	"github.com/kobana/kobana-mcp/internal/jsonscan"
)

// Tracer follows each request for a tracing system outside this package:
// the handler tells it where a request starts and ends, and runs the
// method with the context it returns, so whatever the method does (a
// tool's in-process route, its database calls) can hang under the
// request's span. The mcp package knows no tracing library
// (docs/decisions.md "Traces"); platform/tracing implements Tracer with
// OpenTelemetry's conventions for MCP. Nil (the default) costs nothing.
type Tracer interface {
	// StartRequest is called once a request (not a notification) has
	// been decoded, before its era is checked; r is the HTTP request it
	// came in, t what is known of it so far. The context returned is the
	// one the method runs with.
	StartRequest(ctx context.Context, r *http.Request, t *Trace) context.Context
	// EndRequest is called once the answer is written, with t complete
	// (era, version, the error answered), and ctx the context
	// StartRequest returned.
	EndRequest(ctx context.Context, t *Trace)
}

// Trace is what the handler tells a [Tracer] about one request. Strings
// come from the request as it was sent: none is a secret, but none is
// trusted either (the tracer bounds what it records).
type Trace struct {
	// Method is the JSON-RPC method.
	Method string
	// Target is the tool of a tools/call or the prompt of a prompts/get
	// when the catalog has it ("" otherwise: a name the client made up
	// must not become a span name of its own).
	Target string
	// ResourceURI is the uri of resources/read ("" otherwise).
	ResourceURI string
	// RequestID is the JSON-RPC id as text: a string's content, an
	// integer's digits.
	RequestID string
	// TraceParent and TraceState are the W3C trace context the client
	// put in params._meta ("traceparent", "tracestate"), "" when absent
	// or not a string.
	TraceParent string
	TraceState  string
	// Era ("2026" or "2025") and Version (the protocol revision) are
	// known when the envelope passed its checks ("" otherwise).
	Era     string
	Version string
	// ErrorCode is the JSON-RPC error code answered (0 for a result), and
	// ErrorMessage its message.
	ErrorCode    int
	ErrorMessage string
	// ToolError is set when a tool answered a result with isError.
	ToolError bool
}

// startTrace begins the tracing of a decoded request, when a Tracer is
// set: c.ctx becomes the context the method runs with.
func (c *call) startTrace(t Tracer) {
	m := &c.msg
	tr := &Trace{}
	c.trace = tr
	tr.Method = m.method
	tr.RequestID = idText(m.id)
	switch m.method {
	case "tools/call":
		if name, known, _ := c.h.calledTool(m); known != nil {
			tr.Target = name
		}
	case "prompts/get":
		if name, ok := jsonscan.Unquoted(m.params.Name); ok {
			if p := c.h.catalog.promptIndex[string(name)]; p != nil {
				tr.Target = p.def.Name
			}
		}
	case "resources/read":
		tr.ResourceURI, _ = jsonscan.String(m.params.URI)
	}
	tr.TraceParent, _ = jsonscan.String(m.params.metaTraceParent)
	tr.TraceState, _ = jsonscan.String(m.params.metaTraceState)
	c.ctx = t.StartRequest(c.ctx, c.r, tr)
}

// idText is a JSON-RPC id as text: a string's content or a number's
// digits.
func idText(id []byte) string {
	if s, ok := jsonscan.String(id); ok {
		return s
	}
	return string(id)
}

// endTrace ends the tracing of a call whose answer is written.
func (c *call) endTrace(t Tracer) {
	t.EndRequest(c.ctx, c.trace)
}
