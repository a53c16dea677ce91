package httpx

import (
	"net/http"
	"net/url"
	"strings"
)

// FastPath serves the requests for exactly path with the handler mux
// routes them to under pattern, without asking the mux each time, and
// every other request through mux. Pattern matching on every call of
// the MCP endpoint cost six allocations in each of the two muxes in front
// of it (docs/decisions.md, "The signed-in path, third round (issue 16)").
//
// The handler is looked up once, now, for every method; if any method
// goes elsewhere than pattern (a route for one method of path was added),
// mux is returned as it is. Patterns with wildcards are refused for the
// same reason (the mux would give the handler path values), and host
// patterns must not be used on mux: the muxes of this repository have
// none. A path with anything to clean ("//mcp", "/mcp/.") is not path and
// goes through mux, which cleans or redirects it as before.
func FastPath(mux *http.ServeMux, path, pattern string) http.Handler {
	if strings.ContainsRune(pattern, '{') {
		return mux
	}
	var h http.Handler
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodTrace} {
		got, p := mux.Handler(&http.Request{Method: m, Host: "fastpath.invalid", URL: &url.URL{Path: path}})
		if p != pattern {
			return mux
		}
		h = got
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == path && r.Method != http.MethodConnect {
			h.ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}
