package dunning

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kobana/kobana-mcp/productkit"
)

// A path the listener does not serve answers a JSON 404 in Dunning's error
// shape (NOT_FOUND) naming the MCP endpoint and the API base; a path under
// the API base is the API's own 404.
func TestUnknownPathNamesTheDoors(t *testing.T) {
	t.Parallel()
	p, err := productkit.Assemble(Spec(), productkit.Deps{PublicURL: "https://dunning.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/", "/mcp/", "/api/v1/charges"} {
		w := httptest.NewRecorder()
		p.Handler.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		want := `{"error":{"code":"NOT_FOUND","message":"no such path \"` + path + `\"; this is the Kobana Dunning listener: its MCP endpoint is POST https://dunning.example.com/mcp (JSON-RPC) and its REST API is under https://dunning.example.com/v1"}}`
		if w.Code != 404 || w.Body.String() != want+"\n" && w.Body.String() != want {
			t.Errorf("%s: %d %s", path, w.Code, w.Body)
		}
	}
	w := httptest.NewRecorder()
	p.Handler.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/v1/nowhere", nil))
	if c, _ := errorOf(w.Body.String()); w.Code != 404 || c != "NOT_FOUND" {
		t.Errorf("/v1/nowhere: %d %s", w.Code, w.Body)
	}
}
