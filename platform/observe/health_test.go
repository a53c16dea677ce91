package observe

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// Health answers every request as the mux it is built on does — its two
// paths, their wrong methods, unclean paths redirected — while what goes to
// next skips the mux's matching.
func TestHealthRouting(t *testing.T) {
	// Not parallel: testing.AllocsPerRun counts every goroutine's
	// allocations and sets GOMAXPROCS to 1 while it measures.
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("next " + r.URL.Path)) })
	h := Health(nil, next)
	reference := http.NewServeMux()
	reference.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeHealth(w, http.StatusOK, map[string]any{"status": "ok"})
	})
	reference.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		writeHealth(w, http.StatusOK, map[string]any{"status": "ok", "checks": map[string]string{}})
	})
	reference.Handle("/", next)
	for _, c := range []struct{ method, target string }{
		{"GET", "/healthz"}, {"HEAD", "/healthz"}, {"POST", "/healthz"}, {"GET", "/readyz"}, {"DELETE", "/readyz"},
		{"POST", "/mcp"}, {"GET", "/mcp/"}, {"GET", "/"}, {"POST", "//mcp"}, {"GET", "/a/../healthz"}, {"GET", "/healthz/"},
		{"POST", "/mcp/./x"}, {"GET", "/api/v1/emails?x=1"},
	} {
		got, want := httptest.NewRecorder(), httptest.NewRecorder()
		h.ServeHTTP(got, httptest.NewRequest(c.method, c.target, nil))
		reference.ServeHTTP(want, httptest.NewRequest(c.method, c.target, nil))
		if got.Code != want.Code || got.Body.String() != want.Body.String() || got.Header().Get("Location") != want.Header().Get("Location") {
			t.Errorf("%s %s: %d %q (Location %q), the mux answers %d %q (%q)", c.method, c.target, got.Code, got.Body,
				got.Header().Get("Location"), want.Code, want.Body, want.Header().Get("Location"))
		}
	}
	r := httptest.NewRequest("POST", "/mcp", nil)
	w := httptest.NewRecorder()
	viaMux := testing.AllocsPerRun(100, func() { reference.ServeHTTP(w, r) })
	if n := testing.AllocsPerRun(100, func() { h.ServeHTTP(w, r) }); n >= viaMux {
		t.Errorf("a request for next allocates %v times through Health, %v through the mux", n, viaMux)
	}
}
