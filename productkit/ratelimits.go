package productkit

import (
	"context"
	"net/http"
	"strconv"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/rest"
)

// RateLimits counts a product's requests per token and per organization,
// reads and writes apart. platform/ratelimit implements it.
type RateLimits interface {
	// Limit judges an MCP request (the endpoint's RateLimiter hook).
	mcp.RateLimiter
	// Charge counts one operation of id's, a write or a read, and decides.
	Charge(ctx context.Context, id *identity.Identity, write bool) mcp.RateDecision
	// ChargeOrganization counts one operation against the organization's
	// limit alone: work that is the organization's but comes with no token
	// (the Inbox's SMTP intake).
	ChargeOrganization(ctx context.Context, org string, write bool) mcp.RateDecision
}

// RateLimiter is the MCP endpoint's Options.RateLimiter: nil (unlimited)
// without auth or without limits.
func (a *Auth) RateLimiter() mcp.RateLimiter {
	if a == nil || a.limits == nil {
		return nil
	}
	return a.limits
}

// chargeAPI counts a direct API call: a write unless the operation is
// declared read-only (or, undeclared, is a GET or HEAD). It writes the
// X-RateLimit-* headers, and refuses with 429 and Retry-After over the
// limit, in the API's error shape.
func (a *Auth) chargeAPI(r *http.Request, id *identity.Identity, op *rest.Operation) *rest.Error {
	if a.limits == nil {
		return nil
	}
	write := r.Method != http.MethodGet && r.Method != http.MethodHead
	if ro := op.Annotations.ReadOnlyHint; ro != nil {
		write = !*ro
	}
	d := a.limits.Charge(r.Context(), id, write)
	h, _ := r.Context().Value(responseHeaderKey{}).(http.Header)
	if h == nil {
		h = http.Header{}
	}
	if d.Limit > 0 {
		h.Set("X-RateLimit-Limit", strconv.Itoa(d.Limit))
		h.Set("X-RateLimit-Remaining", strconv.Itoa(max(d.Remaining, 0)))
		h.Set("X-RateLimit-Reset", strconv.FormatInt(d.ResetUnix, 10))
	}
	if d.Allowed {
		return nil
	}
	h.Set("Retry-After", strconv.Itoa(max(d.RetryAfterSeconds, 1)))
	return &rest.Error{Status: http.StatusTooManyRequests, Code: rest.CodeRateLimited,
		Message: "rate limit exceeded; retry after the time in Retry-After", Header: h}
}

type responseHeaderKey struct{}

// withResponseHeader hands the response's header map to AuthorizeAPI
// through the request context: rest's Authorize hook sees the request but
// not the ResponseWriter, and the rate-limit headers belong on successful
// answers too.
func withResponseHeader(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), responseHeaderKey{}, w.Header())))
	})
}
