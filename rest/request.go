package rest

import (
	"context"
	"net/http"
)

type requestKey struct{}

// withRequest puts the request's headers where a typed handler can read
// them: handlers take (ctx, input), and a few concerns travel as headers
// (X-Workspace-Id picks a workspace, X-Idempotency-Key makes a write safe
// to retry), in-process MCP calls included since the bridge forwards them.
func withRequest(ctx context.Context, r *http.Request) context.Context {
	return context.WithValue(ctx, requestKey{}, r.Header)
}

// RequestHeader is the header of the request an operation handler is
// answering; an empty header outside one (a background job calling the
// same code).
func RequestHeader(ctx context.Context) http.Header {
	if h, ok := ctx.Value(requestKey{}).(http.Header); ok {
		return h
	}
	return http.Header{}
}
