package kadu

import (
	"net/http"
	"net/url"
	"strings"
)

// localhostOrigins accepts any origin on localhost, 127.0.0.0/8 or [::1],
// whatever host the request was addressed to: the seed lets local tools
// (a desktop client's web view, the Inspector) reach Kadu.
func localhostOrigins(origin string, _ *http.Request) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	h := u.Hostname()
	return strings.EqualFold(h, "localhost") || h == "::1" || strings.HasPrefix(h, "127.")
}
