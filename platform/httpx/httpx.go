// Package httpx is the HTTP plumbing in front of the product listeners: a
// bound on the requests one process serves at once, the drain that
// answers new requests while the process shuts down, the refusals both
// send (and the rate limiters' too), and the server timeouts that keep
// slow clients from holding connections.
package httpx

import (
	"context"
	"encoding/json"
	"log"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
)

// Refuse answers a request the server will not serve now — 429 (rate
// limited) or 503 (overloaded, draining) — with Retry-After, in the shape
// the endpoint's clients read: on an MCP endpoint a JSON-RPC error with
// id null and code mcp.CodeRateLimited or mcp.CodeUnavailable; elsewhere
// {"error":{"code":"rate_limited"|"unavailable","message":…}}, the APIs'
// error shape, the code spelled as WithErrorCodes says for the listener.
func Refuse(w http.ResponseWriter, r *http.Request, status int, retryAfter time.Duration, message string) {
	w.Header().Set("Retry-After", strconv.Itoa(retrySeconds(retryAfter)))
	// The canonical codes of package rest (rest.CodeUnavailable,
	// rest.CodeRateLimited), which this foundation does not import.
	code, rpcCode := "unavailable", mcp.CodeUnavailable
	if status == http.StatusTooManyRequests {
		code, rpcCode = "rate_limited", mcp.CodeRateLimited
	}
	if spell, ok := r.Context().Value(errorCodesKey{}).(func(string) string); ok {
		code = spell(code)
	}
	if r.URL.Path == MCPPath {
		mcp.WriteHTTPError(w, r, &mcp.Error{Code: rpcCode, Message: message, Status: status})
		return
	}
	body, _ := json.Marshal(map[string]any{"error": map[string]string{"code": code, "message": message}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// MCPPath is where every product listener serves its MCP endpoint; the
// refusals above answer it in JSON-RPC form.
const MCPPath = "/mcp"

type errorCodesKey struct{}

// WithErrorCodes makes Refuse spell its codes with spell for every request
// next serves. The refusals come from handlers that wrap a whole listener
// (Guard, the unauthenticated limit) and so answer before the product's
// API could: a product whose API spells its codes its own way (Dunning's
// upper case) sets this outside them, so that every answer of its API has
// one style (docs/decisions.md "Error codes"). A nil spell changes
// nothing.
func WithErrorCodes(next http.Handler, spell func(canonical string) string) http.Handler {
	if spell == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), errorCodesKey{}, spell)))
	})
}

// WithErrorCodesContext is ctx making Refuse spell its codes with spell, as
// WithErrorCodes does for each request. Set once as a server's base context
// (http.Server.BaseContext), it reaches every request of the server without
// WithErrorCodes' copy of each request and its context (docs/performance.md,
// "Kadu and Dunning as fast as the Inbox (issue 28)"). A nil spell returns
// ctx.
func WithErrorCodesContext(ctx context.Context, spell func(canonical string) string) context.Context {
	if spell == nil {
		return ctx
	}
	return context.WithValue(ctx, errorCodesKey{}, spell)
}

func retrySeconds(d time.Duration) int {
	return max(int((d+time.Second-1)/time.Second), 1)
}

// Guard bounds the requests a process serves at once and, once Drain is
// called, refuses new ones while those in flight finish. Past the bound a
// request is refused at once (503 with Retry-After): nothing queues, so a
// burst costs a counter increment per request, not a goroutine waiting on
// memory it holds. One Guard wraps every listener of the process.
type Guard struct {
	max        int64
	retryAfter time.Duration
	inFlight   atomic.Int64
	draining   atomic.Bool
	refused    atomic.Int64
}

// DefaultMaxInFlight is the default bound on requests served at once.
const DefaultMaxInFlight = 512

// NewGuard bounds requests served at once to maxInFlight (≤ 0: the
// default); refused clients are told to retry after retryAfter (≤ 0: 1 s).
func NewGuard(maxInFlight int, retryAfter time.Duration) *Guard {
	if maxInFlight <= 0 {
		maxInFlight = DefaultMaxInFlight
	}
	if retryAfter <= 0 {
		retryAfter = time.Second
	}
	return &Guard{max: int64(maxInFlight), retryAfter: retryAfter}
}

// Wrap guards next.
func (g *Guard) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.draining.Load() {
			// A request on a kept-alive connection after shutdown began:
			// tell the client to go elsewhere and close the connection.
			g.refused.Add(1)
			w.Header().Set("Connection", "close")
			Refuse(w, r, http.StatusServiceUnavailable, g.retryAfter, "The server is shutting down; retry after the time in Retry-After")
			return
		}
		if g.inFlight.Add(1) > g.max {
			g.inFlight.Add(-1)
			g.refused.Add(1)
			Refuse(w, r, http.StatusServiceUnavailable, g.retryAfter, "The server is overloaded; retry after the time in Retry-After")
			return
		}
		defer g.inFlight.Add(-1)
		next.ServeHTTP(w, r)
	})
}

// Drain makes every new request answer 503 with Retry-After and
// Connection: close; requests already in flight go on. Call it when
// shutdown begins, before http.Server.Shutdown.
func (g *Guard) Drain() { g.draining.Store(true) }

// InFlight is how many requests are being served now.
func (g *Guard) InFlight() int { return int(g.inFlight.Load()) }

// Refused is how many requests the guard has refused so far.
func (g *Guard) Refused() int { return int(g.refused.Load()) }

// Timeouts bound how long a client may hold a connection.
type Timeouts struct {
	// ReadHeader bounds reading the request line and headers (a
	// slowloris client is cut off after it).
	ReadHeader time.Duration
	// Read bounds reading the whole request, body included.
	Read time.Duration
	// Write bounds the time from the end of the request headers to the
	// end of the response.
	Write time.Duration
	// Idle bounds how long a kept-alive connection waits for its next
	// request.
	Idle time.Duration
	// MaxHeaderBytes caps the request line and headers.
	MaxHeaderBytes int
}

// DefaultTimeouts suit JSON requests of at most a few megabytes answered
// within seconds. Write stays above Read plus the slowest tool call.
var DefaultTimeouts = Timeouts{
	ReadHeader:     10 * time.Second,
	Read:           30 * time.Second,
	Write:          60 * time.Second,
	Idle:           120 * time.Second,
	MaxHeaderBytes: 64 << 10,
}

// NewServer is an http.Server for h with the timeouts t.
func NewServer(h http.Handler, t Timeouts, errorLog *log.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.Read,
		WriteTimeout:      t.Write,
		IdleTimeout:       t.Idle,
		MaxHeaderBytes:    t.MaxHeaderBytes,
		ErrorLog:          errorLog,
	}
}
