package dunning

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/productkit/catalogtest"
)

// A path the listener does not serve answers a JSON 404 in Dunning's error
// shape (NOT_FOUND) naming the MCP endpoint and the API base; a path under
// the API base is the API's own 404.
func TestUnknownPathNamesTheDoors(t *testing.T) {
	t.Parallel()
	catalogtest.UnknownPaths(t, Spec(), "NOT_FOUND", "/api/v1/charges")
	p, err := productkit.Assemble(Spec(), productkit.Deps{PublicURL: "https://dunning.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	p.Handler.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/v1/nowhere", nil))
	if c, _ := errorOf(w.Body.String()); w.Code != 404 || c != "NOT_FOUND" {
		t.Errorf("/v1/nowhere: %d %s", w.Code, w.Body)
	}
}
