package mcp

import (
	"context"
	"net/http"
)

// Requirement is what a catalog entry asks of its caller: OAuth scopes the
// token must hold and a permission the person's role must grant. The mcp
// package does not interpret either; the [Authorizer] does.
type Requirement struct {
	// Scopes the token must hold, all of them.
	Scopes []string
	// Permission names the operation for role checks (for example
	// "emails:read"); empty means any authenticated caller.
	Permission string
}

// Access is the verdict on one catalog entry for one caller.
type Access int

const (
	// Allowed: listed and runnable.
	Allowed Access = iota
	// Hidden: neither listed nor runnable, and calling it looks exactly like
	// calling something that does not exist, so its existence is not revealed.
	Hidden
	// NeedsScope: the person may run it but the token lacks a scope. It is
	// not listed; calling it answers the step-up challenge of
	// [Authorizer.InsufficientScope] so the client can ask for more.
	NeedsScope
)

// Authorizer decides, per request, who the caller is and what it may see.
// One predicate, Access, both filters the lists and guards the calls, so a
// listed entry is always runnable and an unlisted one never is.
type Authorizer interface {
	// Authenticate verifies the request. It returns the context that carries
	// the verified identity, or false after writing the whole answer itself
	// (typically 401 with a WWW-Authenticate challenge).
	Authenticate(w http.ResponseWriter, r *http.Request) (context.Context, bool)
	// Access judges one entry's requirement for the identity in ctx.
	Access(ctx context.Context, req Requirement) Access
	// InsufficientScope writes the step-up answer (403 with an
	// insufficient_scope challenge naming every scope in req.Scopes).
	InsufficientScope(w http.ResponseWriter, r *http.Request, req Requirement)
	// Principal names the caller for binding multi-round-trip state: issuer,
	// subject and tenant, so a state minted for one caller is refused to
	// another.
	Principal(ctx context.Context) string
}

// RateLimiter decides whether a request may proceed. It runs after
// authentication, so it can count per token and per tenant, and after the
// body is read, so [OperationOf] on the request's context tells a write
// (a tools/call of a tool that is not read-only) from a read.
type RateLimiter interface {
	Limit(r *http.Request) RateDecision
}

// RateDecision is a rate limiter's answer. When Limit is zero no
// X-RateLimit-* headers are written.
type RateDecision struct {
	Allowed   bool
	Limit     int
	Remaining int
	// Reset is when the window resets, written as Unix seconds.
	ResetUnix int64
	// RetryAfterSeconds is sent as Retry-After when the request is refused.
	RetryAfterSeconds int
}

// openAccess lets everyone see and run everything: the default when a
// server has no Authorizer (local tools, the conformance fixture server).
type openAccess struct{}

func (openAccess) Authenticate(_ http.ResponseWriter, r *http.Request) (context.Context, bool) {
	return r.Context(), true
}
func (openAccess) Access(context.Context, Requirement) Access { return Allowed }
func (openAccess) InsufficientScope(w http.ResponseWriter, _ *http.Request, _ Requirement) {
	w.WriteHeader(http.StatusForbidden)
}
func (openAccess) Principal(context.Context) string { return "anonymous" }

// AccessClass puts every caller in one class: everyone sees the whole
// catalog, so tools/list is built once per version and page.
func (openAccess) AccessClass(context.Context) (string, bool) { return "", true }
