package productkit_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kobana/kobana-mcp/productkit"
)

// named answers with its name and the pattern the mux matched ("" when
// no mux routed the request).
func named(name string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Pattern", r.Pattern)
		_, _ = w.Write([]byte(name))
	})
}

func serve(h http.Handler, method, target string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(method, target, nil))
	return w
}

func TestFastPath(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle(productkit.MCPPath, named("mcp"))
	mux.Handle("/api/v1/", named("api"))
	h := productkit.FastPath(mux, productkit.MCPPath, productkit.MCPPath)
	for _, m := range []string{"POST", "GET", "DELETE", "OPTIONS"} {
		if w := serve(h, m, "/mcp"); w.Body.String() != "mcp" || w.Header().Get("X-Pattern") != "" {
			t.Errorf("%s /mcp: %d %q, pattern %q: want the MCP handler without the mux", m, w.Code, w.Body, w.Header().Get("X-Pattern"))
		}
	}
	for _, target := range []string{"/api/v1/emails", "/mcp?x=1", "//mcp", "/mcp/", "/mcp/.", "/other"} {
		got, want := serve(h, "POST", target), serve(mux, "POST", target)
		if got.Code != want.Code || got.Body.String() != want.Body.String() || got.Header().Get("Location") != want.Header().Get("Location") {
			t.Errorf("POST %s: %d %q, the mux answers %d %q", target, got.Code, got.Body, want.Code, want.Body)
		}
	}
	// The prefix pattern of the authorization server's mux.
	front := http.NewServeMux()
	front.Handle("GET /.well-known/oauth-authorization-server", named("metadata"))
	front.Handle("/", h)
	fh := productkit.FastPath(front, productkit.MCPPath, "/")
	if w := serve(fh, "POST", "/mcp"); w.Body.String() != "mcp" || w.Header().Get("X-Pattern") != "" {
		t.Errorf("through the front: %q, pattern %q", w.Body, w.Header().Get("X-Pattern"))
	}
	if w := serve(fh, "GET", "/.well-known/oauth-authorization-server"); w.Body.String() != "metadata" {
		t.Errorf("the front's own route: %d %q", w.Code, w.Body)
	}
}

// Where one method of the path goes to another handler, or the pattern is
// not the one the mux uses, the mux is kept as it is.
func TestFastPathDeclines(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle(productkit.MCPPath, named("mcp"))
	mux.Handle("DELETE /mcp", named("delete"))
	if h := productkit.FastPath(mux, productkit.MCPPath, productkit.MCPPath); h != http.Handler(mux) {
		t.Fatal("a method routed elsewhere should keep the mux")
	}
	if w := serve(productkit.FastPath(mux, productkit.MCPPath, productkit.MCPPath), "DELETE", "/mcp"); w.Body.String() != "delete" {
		t.Fatalf("DELETE /mcp: %q", w.Body)
	}
	wild := http.NewServeMux()
	wild.Handle("/{p}", named("p"))
	if h := productkit.FastPath(wild, "/mcp", "/{p}"); h != http.Handler(wild) {
		t.Fatal("a wildcard pattern should keep the mux")
	}
	if h := productkit.FastPath(http.NewServeMux(), "/mcp", "/mcp"); h == nil {
		t.Fatal("nil handler")
	}
}

// The point of it: the MCP endpoint's requests skip the mux's matching.
func TestFastPathAllocations(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle(productkit.MCPPath, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	mux.Handle("/api/v1/", http.NotFoundHandler())
	front := http.NewServeMux()
	front.Handle("GET /.well-known/jwks.json", http.NotFoundHandler())
	front.Handle("/", mux)
	fast := productkit.FastPath(front, productkit.MCPPath, "/")
	r := httptest.NewRequest("POST", "/mcp", nil)
	var w http.ResponseWriter = httptest.NewRecorder()
	viaMux := testing.AllocsPerRun(200, func() { front.ServeHTTP(w, r) })
	viaFast := testing.AllocsPerRun(200, func() { fast.ServeHTTP(w, r) })
	if viaFast != 0 || viaMux == 0 {
		t.Fatalf("allocations per request: %v through the muxes, %v on the fast path", viaMux, viaFast)
	}
}
