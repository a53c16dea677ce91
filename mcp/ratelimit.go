package mcp

import (
	"context"
	"net/http"
)

// Operation is what a [RateLimiter] is told about the request it judges,
// so that it can count reads and writes apart. The handler has read the
// body (within its cap) before it asks the limiter, so this is the body's
// own answer, not a header's claim; errors in the body are still answered
// after the limit, as the gate order says.
type Operation struct {
	// Method is the JSON-RPC method; empty when the body is not a valid
	// request (it counts as a read, and is answered with its error).
	Method string
	// Tool is the tool a tools/call names.
	Tool string
	// Write is true only for a tools/call of a tool that is not declared
	// read-only and that the caller can see (listed, or missing only a
	// scope). Everything else is a read: lists, reads, initialize, ping,
	// and calls of unknown tools — a tool hidden from the caller counts
	// like an unknown one, so the limit headers reveal nothing about it.
	Write bool
}

type operationKey struct{}

// OperationOf returns the operation of the request a [RateLimiter] is
// judging: use it in Limit with the request's context. Outside a limiter
// it is the zero Operation, a read.
func OperationOf(ctx context.Context) Operation {
	op, _ := ctx.Value(operationKey{}).(Operation)
	return op
}

// operation classifies a decoded message for the rate limiter.
func (h *Handler) operation(ctx context.Context, msg *message, perr *Error) Operation {
	if perr != nil || msg == nil || msg.response {
		return Operation{}
	}
	op := Operation{Method: msg.method}
	if msg.method == "tools/call" && msg.params.present {
		op.Tool, _ = stringMember(msg.params.Name)
		if t := h.catalog.toolIndex[op.Tool]; t != nil && !t.def.IsReadOnly() && h.auth.Access(ctx, t.def.Requires) != Hidden {
			op.Write = true
		}
	}
	return op
}

// WriteHTTPError answers, in an MCP endpoint's shape, a request that
// something in front of the endpoint refuses before the endpoint sees it:
// an overload or shutdown guard (503, [CodeUnavailable]) or a limiter of
// unauthenticated traffic (429, [CodeRateLimited]). It writes the JSON-RPC
// error with id null, Cache-Control: no-store and the MCP-Protocol-Version
// the endpoint would have written; the caller sets Retry-After first.
func WriteHTTPError(w http.ResponseWriter, r *http.Request, e *Error) {
	hdr := w.Header()
	hdr["Cache-Control"] = noStore
	hdr[canonicalProtocolVersion] = versionHeaders[guessVersion(r)]
	// writeError uses no field of the handler.
	(*Handler)(nil).writeError(w, nil, e)
}
