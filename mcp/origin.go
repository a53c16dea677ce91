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

// An origin policy decides whether a browser request (one that carries an
// Origin header) may proceed. Requests without Origin are not browsers and
// are not affected. The policy never trusts the Host header alone: under a
// DNS-rebinding attack the browser sends Host and Origin of the attacker's
// name, so "Origin equals Host" would let the attack through.
type OriginPolicy = func(origin string, r *http.Request) bool

// AllowOrigins accepts exactly the listed origins ("https://app.example.com"),
// compared case-insensitively; a full URL is reduced to its origin.
func AllowOrigins(origins ...string) OriginPolicy {
	set := make(map[string]bool, len(origins))
	for _, o := range origins {
		if n := normaliseOrigin(o); n != "" {
			set[n] = true
		}
	}
	return func(origin string, _ *http.Request) bool { return set[normaliseOrigin(origin)] }
}

// LoopbackOrigins accepts origins on a loopback host (localhost,
// 127.0.0.0/8, [::1]) when the request itself was addressed to a loopback
// host: the local tools of the person running the server.
func LoopbackOrigins() OriginPolicy {
	return func(origin string, r *http.Request) bool {
		u, err := url.Parse(origin)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			return false
		}
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		return isLoopbackHost(u.Hostname()) && isLoopbackHost(strings.Trim(host, "[]"))
	}
}

// AnyOrigin combines policies: an origin passes when one of them accepts it.
func AnyOrigin(policies ...OriginPolicy) OriginPolicy {
	return func(origin string, r *http.Request) bool {
		for _, p := range policies {
			if p(origin, r) {
				return true
			}
		}
		return false
	}
}

func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// normaliseOrigin reduces an origin or URL to lowercase scheme://host[:port],
// dropping default ports.
func normaliseOrigin(o string) string {
	u, err := url.Parse(strings.TrimSpace(o))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return ""
	}
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	port := u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host
}
