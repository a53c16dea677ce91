package mcp

import (
	"net"
	"net/http"
	"net/url"
	"strings"
)

// The headers a browser client may send and read, for CORS.
const (
	corsAllowHeaders  = "Authorization, Content-Type, Accept, MCP-Protocol-Version, Mcp-Method, Mcp-Name, X-Workspace-Id, X-Idempotency-Key"
	corsExposeHeaders = "MCP-Protocol-Version, WWW-Authenticate, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Request-Id"
)

func setCORSHeaders(h http.Header, origin string) {
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
}

// AllowOrigins accepts exactly the listed origins ("https://app.example.com"),
// compared case-insensitively. Requests without an Origin are not affected.
func AllowOrigins(origins ...string) func(string, *http.Request) bool {
	set := make(map[string]bool, len(origins))
	for _, o := range origins {
		set[strings.ToLower(strings.TrimRight(o, "/"))] = true
	}
	return func(origin string, _ *http.Request) bool { return set[strings.ToLower(origin)] }
}

// SameOrigin accepts only the endpoint's own origin: the Origin's host and
// port equal the request's Host. Behind a TLS-terminating proxy the scheme
// is not visible, so it is checked only when the connection itself is TLS.
func SameOrigin() func(string, *http.Request) bool {
	return func(origin string, r *http.Request) bool {
		u, err := url.Parse(origin)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return false
		}
		if r.TLS != nil && u.Scheme != "https" {
			return false
		}
		return strings.EqualFold(u.Host, r.Host)
	}
}

// SameOriginOrLocalhost accepts the endpoint's own origin and any origin on
// a loopback host (localhost, 127.0.0.0/8, [::1]), for local tools.
func SameOriginOrLocalhost() func(string, *http.Request) bool {
	same := SameOrigin()
	return func(origin string, r *http.Request) bool {
		if same(origin, r) {
			return true
		}
		u, err := url.Parse(origin)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			return false
		}
		host := u.Hostname()
		if strings.EqualFold(host, "localhost") {
			return true
		}
		ip := net.ParseIP(host)
		return ip != nil && ip.IsLoopback()
	}
}
