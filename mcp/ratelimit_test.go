package mcp

import (
	"context"
	"net/http"
	"testing"
)

// recordingLimiter keeps what it was told; with direct set it also offers
// LimitOperation, which the handler must then prefer.
type recordingLimiter struct {
	direct   bool
	ops      []Operation
	callers  []caller
	viaLimit int
}

func (l *recordingLimiter) Limit(r *http.Request) RateDecision {
	l.viaLimit++
	return l.record(r.Context(), OperationOf(r.Context()))
}

func (l *recordingLimiter) record(ctx context.Context, op Operation) RateDecision {
	l.ops = append(l.ops, op)
	c, _ := ctx.Value(callerKey{}).(caller)
	l.callers = append(l.callers, c)
	return RateDecision{Allowed: true, Limit: 1000, Remaining: 998, ResetUnix: 1_900_000_000}
}

type directLimiter struct{ *recordingLimiter }

func (l directLimiter) LimitOperation(ctx context.Context, r *http.Request, op Operation) RateDecision {
	if r == nil {
		panic("no request")
	}
	return l.record(ctx, op)
}

func limiterCatalog() Catalog {
	cat := accessCatalog()
	cat.Tools = append(cat.Tools, Tool{Name: "send", Description: "d",
		Handler: func(context.Context, *CallToolRequest) (*CallToolResult, error) { return TextResult("sent"), nil }})
	return cat
}

// Both kinds of limiter learn the same operations, with the authenticated
// caller in their context; one that takes the operation directly is never
// asked through Limit (docs/decisions.md, "Handler CPU per request").
func TestOperationLimiter(t *testing.T) {
	t.Parallel()
	for _, direct := range []bool{false, true} {
		rec := &recordingLimiter{}
		var limiter RateLimiter = rec
		if direct {
			limiter = directLimiter{rec}
		}
		h := MustNewHandler(Options{Name: "t", Version: "1", Authorizer: &roleAuthorizer{}, RateLimiter: limiter}, limiterCatalog())
		auth := map[string]string{"Authorization": "Bearer x", "X-Role": "admin"}
		for _, c := range []struct{ method, name string }{{"tools/call", "send"}, {"tools/call", "public_read"}, {"tools/list", ""}, {"tools/call", "nope"}} {
			var params map[string]any
			if c.name != "" {
				params = map[string]any{"name": c.name}
			}
			if w := post(h, auth, c.method, c.name, c.name, params); w.Code != http.StatusOK {
				t.Fatalf("%v %s: %d %s", direct, c.name, w.Code, w.Body)
			}
		}
		want := []Operation{{Method: "tools/call", Tool: "send", Write: true}, {Method: "tools/call", Tool: "public_read"}, {Method: "tools/list"}, {Method: "tools/call", Tool: "nope"}}
		if len(rec.ops) != len(want) {
			t.Fatalf("direct=%v: %d operations, want %d", direct, len(rec.ops), len(want))
		}
		for i := range want {
			if rec.ops[i] != want[i] || rec.callers[i].role != "admin" {
				t.Errorf("direct=%v #%d: %+v for %+v, want %+v for admin", direct, i, rec.ops[i], rec.callers[i], want[i])
			}
		}
		if direct && rec.viaLimit != 0 {
			t.Errorf("Limit was called %d times although LimitOperation is offered", rec.viaLimit)
		}
	}
}

// The rate-limit headers are keyed as Header.Set keys them, hold one value
// each, and share nothing a later Add could overwrite.
func TestRateHeaders(t *testing.T) {
	t.Parallel()
	hdr := http.Header{}
	setRateHeaders(hdr, RateDecision{Limit: 120, Remaining: -3, ResetUnix: 1_900_000_000})
	want := map[string]string{"X-RateLimit-Limit": "120", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1900000000"}
	for name, v := range want {
		if got := hdr.Values(name); len(got) != 1 || got[0] != v {
			t.Errorf("%s: %q, want %q", name, got, v)
		}
		if _, ok := hdr[http.CanonicalHeaderKey(name)]; !ok {
			t.Errorf("%s is not keyed canonically: %v", name, hdr)
		}
	}
	hdr.Add("X-RateLimit-Limit", "extra")
	hdr.Add("X-RateLimit-Remaining", "extra")
	if hdr.Get("X-RateLimit-Remaining") != "0" || hdr.Get("X-RateLimit-Reset") != "1900000000" {
		t.Errorf("an Add overwrote a neighbour: %v", hdr)
	}
}
