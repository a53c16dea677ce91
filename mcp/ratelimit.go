package mcp

import (
	"context"
	"net/http"
	"strconv"
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

// OperationLimiter is a [RateLimiter] that can be told the operation
// directly. The handler then calls LimitOperation with the authenticated
// context instead of Limit with a copy of the request whose context carries
// the operation: that copy and the context value cost allocations on every
// request (docs/decisions.md, "Handler CPU per request"). ctx is what
// [Authorizer.Authenticate] returned; r is the request as it arrived, to be
// read, not kept.
type OperationLimiter interface {
	RateLimiter
	LimitOperation(ctx context.Context, r *http.Request, op Operation) RateDecision
}

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
		var t *compiledTool
		op.Tool, t, _ = h.calledTool(msg)
		if t != nil && !t.def.IsReadOnly() && h.auth.Access(ctx, t.def.Requires) != Hidden {
			op.Write = true
		}
	}
	return op
}

// limit asks the rate limiter about this request, without copying the
// request when the limiter takes the operation directly.
func (h *Handler) limit(ctx context.Context, r *http.Request, op Operation) RateDecision {
	if h.opLimiter != nil {
		return h.opLimiter.LimitOperation(ctx, r, op)
	}
	return h.opts.RateLimiter.Limit(r.WithContext(context.WithValue(ctx, operationKey{}, op)))
}

// Canonical names of the rate-limit headers, as http.Header.Set would key
// them: assigned directly, they cost no canonicalisation per request.
const (
	headerRateLimit     = "X-Ratelimit-Limit"
	headerRateRemaining = "X-Ratelimit-Remaining"
	headerRateReset     = "X-Ratelimit-Reset"
)

// setRateHeaders writes the X-RateLimit-* headers of d. The three numbers
// share one string and the three values one backing array, each value
// capped at its own element so that an Add by later middleware copies
// instead of writing into its neighbour.
func setRateHeaders(hdr http.Header, d RateDecision) {
	var buf [3 * 20]byte
	b := strconv.AppendInt(buf[:0], int64(d.Limit), 10)
	n1 := len(b)
	b = strconv.AppendInt(b, int64(max(d.Remaining, 0)), 10)
	n2 := len(b)
	b = strconv.AppendInt(b, d.ResetUnix, 10)
	s := string(b)
	v := make([]string, 3)
	v[0], v[1], v[2] = s[:n1], s[n1:n2], s[n2:]
	hdr[headerRateLimit] = v[0:1:1]
	hdr[headerRateRemaining] = v[1:2:2]
	hdr[headerRateReset] = v[2:3:3]
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
