package catalogtest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/productkit"
)

// UnknownPaths checks that a product listener answers the paths no route
// serves — `/`, `/mcp/`, `/favicon.ico` and the extra ones given — with a
// JSON 404 in its API's error shape (code spelled notFound) naming the MCP
// endpoint and the API base with their URLs, built from the spec alone.
func UnknownPaths(t *testing.T, spec *productkit.Spec, notFound string, extra ...string) {
	t.Helper()
	const public = "https://product.example.com"
	p, err := productkit.Assemble(spec, productkit.Deps{PublicURL: public})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range append([]string{"/", "/mcp/", "/favicon.ico"}, extra...) {
		w := httptest.NewRecorder()
		p.Handler.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		want := `{"error":{"code":"` + notFound + `","message":"no such path \"` + path + `\"; this is the ` + spec.Title +
			` listener: its MCP endpoint is POST ` + public + `/mcp (JSON-RPC) and its REST API is under ` + public + spec.APIBase + `"}}`
		if w.Code != http.StatusNotFound || w.Header().Get("Content-Type") != "application/json" || strings.TrimSuffix(w.Body.String(), "\n") != want {
			t.Errorf("%s: %d %q %s\nwant %s", path, w.Code, w.Header().Get("Content-Type"), w.Body, want)
		}
	}
}
