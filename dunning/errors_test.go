package dunning

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/httpx"
	"github.com/kobana/kobana-mcp/platform/ratelimit"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit/producttest"
)

// TestEveryAnswerSpeaksUpperCase: Dunning's API answers its upper-case
// codes whoever writes the answer — the token check (401), the rate
// limiter (429), the limit on unauthenticated traffic (429), the
// overload guard and the drain (503) in front of the listener, as serve
// puts them — and its MCP endpoint keeps JSON-RPC errors.
func TestEveryAnswerSpeaksUpperCase(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, nil, func(t *testing.T, db *store.DB) {
		guard := httpx.NewGuard(1, time.Second)
		release, inside := make(chan struct{}), make(chan struct{}, 1)
		unauth := ratelimit.NewUnauthenticated(ratelimit.MustParseRate("2-M"))
		limits := ratelimit.NewLimiter(ratelimit.NewMemoryStore(), "dunning", ratelimit.Rates{
			Reads: ratelimit.MustParseRate("2-M"), Writes: ratelimit.MustParseRate("100-M"),
			OrgReads: ratelimit.MustParseRate("100-M"), OrgWrites: ratelimit.MustParseRate("100-M"),
		}, slog.New(slog.DiscardHandler))
		e := producttest.Start(t, db, Spec(), producttest.Options{RateLimits: limits, Wrap: func(h http.Handler) http.Handler {
			mux := http.NewServeMux()
			mux.HandleFunc("/block", func(http.ResponseWriter, *http.Request) { inside <- struct{}{}; <-release })
			mux.Handle("/", h)
			return guard.Wrap(unauth.Wrap(mux))
		}})
		codeOf := func(body string) string { c, _ := errorOf(body); return c }

		// The rate limiter of the API: two reads a minute for this token.
		tok := e.Token(e.Owner, "api")
		for i, want := range []int{200, 200, 429} {
			code, h, body := e.DoFull(tok, "GET", "/v1/webhooks", nil)
			if code != want || (code == 429 && (codeOf(body) != "RATE_LIMITED" || h.Get("Retry-After") == "")) {
				t.Fatalf("read %d: %d %s", i+1, code, body)
			}
		}
		// Overload: one request in flight fills the guard.
		go func() {
			if resp, err := http.Get(e.URL + "/block"); err == nil {
				resp.Body.Close()
			}
		}()
		<-inside
		code, body := e.Do(e.Other, "GET", "/v1/webhooks", nil)
		if code != 503 || codeOf(body) != "UNAVAILABLE" || !strings.Contains(body, "overloaded") {
			t.Fatalf("overloaded: %d %s", code, body)
		}
		if code, body := e.DoToken(e.Token(e.Other, "mcp"), "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`); code != 503 || !strings.Contains(body, `"code":-31003`) {
			t.Fatalf("overloaded MCP endpoint: %d %s", code, body)
		}
		close(release)
		for guard.InFlight() > 0 {
			time.Sleep(time.Millisecond)
		}
		// 401, then the unauthenticated limit's 429 (which refuses this
		// address from now on, so it comes last).
		for i, want := range []string{"UNAUTHORIZED", "UNAUTHORIZED", "RATE_LIMITED"} {
			code, body := e.DoToken("", "GET", "/v1/webhooks", nil)
			if codeOf(body) != want || (want == "RATE_LIMITED") != (code == 429) {
				t.Fatalf("unauthenticated request %d: %d %s", i+1, code, body)
			}
		}
		guard.Drain()
		if code, body := e.Do(e.Other, "GET", "/v1/webhooks", nil); code != 503 || codeOf(body) != "UNAVAILABLE" || !strings.Contains(body, "shutting down") {
			t.Fatalf("draining: %d %s", code, body)
		}
	})
}

// TestValidationDetails: a Dunning validation error is 422
// VALIDATION_ERROR with one detail per field.
func TestValidationDetails(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, nil, func(t *testing.T, db *store.DB) {
		e := producttest.Start(t, db, Spec(), producttest.Options{})
		code, body := e.Do(e.Owner, "POST", "/v1/webhooks", map[string]any{"label": "", "url": "https://x.example/h", "subscribed_events": []string{"*"}, "status": "paused"})
		c, fields := errorOf(body)
		if code != 422 || c != "VALIDATION_ERROR" || strings.Join(fields, ",") != "label,status" {
			t.Fatalf("%d %s", code, body)
		}
		code, body = e.Do(e.Owner, "GET", "/v1/nowhere", nil)
		if c, _ := errorOf(body); code != 404 || c != "NOT_FOUND" {
			t.Fatalf("unknown route: %d %s", code, body)
		}
		code, body = e.DoToken(e.Token(e.Owner, "api"), "POST", "/v1/webhooks", "{not json")
		if c, _ := errorOf(body); code != 400 || c != "BAD_REQUEST" {
			t.Fatalf("malformed body: %d %s", code, body)
		}
	})
}

// Seed 002: an unknown argument of a read tool is a VALIDATION_ERROR naming
// the key — the same envelope the API answers for the unknown query
// parameter, not the transport's plain text.
func TestUnknownArgumentIsAValidationError(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, nil, func(t *testing.T, db *store.DB) {
		e := producttest.Start(t, db, Spec(), producttest.Options{})
		text, isErr := e.Call(e.Owner, "dunning_charges_list", map[string]any{"statuz": "open"})
		c, fields := errorOf(text)
		if !isErr || c != "VALIDATION_ERROR" || strings.Join(fields, ",") != "statuz" {
			t.Fatalf("tool: %v %s", isErr, text)
		}
		code, body := e.Do(e.Owner, "GET", "/v1/charges?statuz=open", nil)
		if c, f := errorOf(body); code != 422 || c != "VALIDATION_ERROR" || strings.Join(f, ",") != "statuz" {
			t.Fatalf("REST: %d %s", code, body)
		}
	})
}
