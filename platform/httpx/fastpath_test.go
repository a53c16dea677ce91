package httpx_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kobana/kobana-mcp/platform/httpx"
)

// named answers with its name and the pattern the mux matched ("" when
// no mux routed the request).
func namedHandler(name string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Pattern", r.Pattern)
		_, _ = w.Write([]byte(name))
	})
}

func serveOne(h http.Handler, method, target string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(method, target, nil))
	return w
}

func TestFastPath(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.Handle("/mcp", namedHandler("mcp"))
	mux.Handle("/api/v1/", namedHandler("api"))
	h := httpx.FastPath(mux, "/mcp", "/mcp")
	for _, m := range []string{"POST", "GET", "DELETE", "OPTIONS"} {
		if w := serveOne(h, m, "/mcp"); w.Body.String() != "mcp" || w.Header().Get("X-Pattern") != "" {
			t.Errorf("%s /mcp: %d %q, pattern %q: want the MCP handler without the mux", m, w.Code, w.Body, w.Header().Get("X-Pattern"))
		}
	}
	for _, target := range []string{"/api/v1/emails", "/mcp?x=1", "//mcp", "/mcp/", "/mcp/.", "/other"} {
		got, want := serveOne(h, "POST", target), serveOne(mux, "POST", target)
		if got.Code != want.Code || got.Body.String() != want.Body.String() || got.Header().Get("Location") != want.Header().Get("Location") {
			t.Errorf("POST %s: %d %q, the mux answers %d %q", target, got.Code, got.Body, want.Code, want.Body)
		}
	}
	// The prefix pattern of the authorization server's mux.
	front := http.NewServeMux()
	front.Handle("GET /.well-known/oauth-authorization-server", namedHandler("metadata"))
	front.Handle("/", h)
	fh := httpx.FastPath(front, "/mcp", "/")
	if w := serveOne(fh, "POST", "/mcp"); w.Body.String() != "mcp" || w.Header().Get("X-Pattern") != "" {
		t.Errorf("through the front: %q, pattern %q", w.Body, w.Header().Get("X-Pattern"))
	}
	if w := serveOne(fh, "GET", "/.well-known/oauth-authorization-server"); w.Body.String() != "metadata" {
		t.Errorf("the front's own route: %d %q", w.Code, w.Body)
	}
}

// Where one method of the path goes to another handler, or the pattern is
// not the one the mux uses, the mux is kept as it is.
func TestFastPathDeclines(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.Handle("/mcp", namedHandler("mcp"))
	mux.Handle("DELETE /mcp", namedHandler("delete"))
	if h := httpx.FastPath(mux, "/mcp", "/mcp"); h != http.Handler(mux) {
		t.Fatal("a method routed elsewhere should keep the mux")
	}
	if w := serveOne(httpx.FastPath(mux, "/mcp", "/mcp"), "DELETE", "/mcp"); w.Body.String() != "delete" {
		t.Fatalf("DELETE /mcp: %q", w.Body)
	}
	wild := http.NewServeMux()
	wild.Handle("/{p}", namedHandler("p"))
	if h := httpx.FastPath(wild, "/mcp", "/{p}"); h != http.Handler(wild) {
		t.Fatal("a wildcard pattern should keep the mux")
	}
	if h := httpx.FastPath(http.NewServeMux(), "/mcp", "/mcp"); h == nil {
		t.Fatal("nil handler")
	}
}

// The point of it: the MCP endpoint's requests skip the mux's matching.
func TestFastPathAllocations(t *testing.T) {
	// Not parallel: testing.AllocsPerRun counts every goroutine's
	// allocations and sets GOMAXPROCS to 1 while it measures.
	mux := http.NewServeMux()
	mux.Handle("/mcp", http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	mux.Handle("/api/v1/", http.NotFoundHandler())
	front := http.NewServeMux()
	front.Handle("GET /.well-known/jwks.json", http.NotFoundHandler())
	front.Handle("/", mux)
	fast := httpx.FastPath(front, "/mcp", "/")
	r := httptest.NewRequest("POST", "/mcp", nil)
	var w http.ResponseWriter = httptest.NewRecorder()
	viaMux := testing.AllocsPerRun(200, func() { front.ServeHTTP(w, r) })
	viaFast := testing.AllocsPerRun(200, func() { fast.ServeHTTP(w, r) })
	if viaFast != 0 || viaMux == 0 {
		t.Fatalf("allocations per request: %v through the muxes, %v on the fast path", viaMux, viaFast)
	}
}
