package observe

import (
	"context"
	"encoding/json"
	"net/http"
	"path"
	"strings"
	"time"
)

// Check is one dependency readiness depends on.
type Check struct {
	Name string
	Ping func(ctx context.Context) error
}

// Health serves /healthz (the process answers) and /readyz (every
// dependency answers within two seconds) in front of next, outside any
// authentication: probes carry no token. Errors are named, never detailed,
// so the endpoint leaks no connection string.
func Health(checks []Check, next http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeHealth(w, http.StatusOK, map[string]any{"status": "ok"})
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		results := map[string]string{}
		status := http.StatusOK
		for _, c := range checks {
			if err := c.Ping(ctx); err != nil {
				results[c.Name] = "unavailable"
				status = http.StatusServiceUnavailable
			} else {
				results[c.Name] = "ok"
			}
		}
		word := "ok"
		if status != http.StatusOK {
			word = "unavailable"
		}
		writeHealth(w, status, map[string]any{"status": word, "checks": results})
	})
	mux.Handle("/", next)
	// Only the two paths are the mux's: every other request goes to next
	// as the mux would send it, without its pattern matching on every
	// call (docs/decisions.md, "The signed-in path, third round (issue 16)"). An
	// unclean path ("//healthz") still goes through the mux's redirect.
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; p == "/healthz" || p == "/readyz" || !cleanPath(p) || r.Method == http.MethodConnect {
			mux.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// cleanPath reports whether the mux would serve p as it is: rooted, no
// empty, "." or ".." element (path.Clean's rules).
func cleanPath(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	return path.Clean(p) == p || (strings.HasSuffix(p, "/") && path.Clean(p)+"/" == p)
}

func writeHealth(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}
