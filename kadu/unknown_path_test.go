package kadu

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kobana/kobana-mcp/productkit"
)

// A path the listener does not serve answers a JSON 404 in the API's error
// shape that names the MCP endpoint and the API base, not net/http's bare
// "404 page not found".
func TestUnknownPathNamesTheDoors(t *testing.T) {
	t.Parallel()
	p, err := productkit.Assemble(Spec(), productkit.Deps{PublicURL: "https://kadu.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/", "/mcp/", "/v1/mcp", "/favicon.ico"} {
		w := httptest.NewRecorder()
		p.Handler.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		want := `{"error":{"code":"not_found","message":"no such path \"` + path + `\"; this is the Kadu listener: its MCP endpoint is POST https://kadu.example.com/mcp (JSON-RPC) and its REST API is under https://kadu.example.com/api/v1"}}`
		if w.Code != 404 || w.Header().Get("Content-Type") != "application/json" || w.Body.String() != want+"\n" && w.Body.String() != want {
			t.Errorf("%s: %d %q %s", path, w.Code, w.Header().Get("Content-Type"), w.Body)
		}
	}
}
