package productkit

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/kobana/kobana-mcp/rest"
)

// unknownPath answers every path of a product listener that nothing else
// serves — `/`, `/mcp/`, `/v1/mcp` — with a JSON 404 in the API's error
// shape naming where the product's two doors are, instead of net/http's
// bare "404 page not found" (docs/decisions.md "Unknown paths"). Paths
// under the API base are the API's own (its 404 names the route).
func unknownPath(api *rest.API, publicURL, title, apiBase string) http.Handler {
	base := strings.TrimRight(publicURL, "/")
	where := fmt.Sprintf("this is the %s listener: its MCP endpoint is POST %s%s (JSON-RPC) and its REST API is under %s%s", title, base, MCPPath, base, apiBase)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := r.URL.Path
		if len(path) > 120 {
			path = path[:120] + "…"
		}
		api.WriteError(w, &rest.Error{Status: http.StatusNotFound, Code: rest.CodeNotFound,
			Message: fmt.Sprintf("no such path %q; %s", strings.ToValidUTF8(path, ""), where)})
	})
}
