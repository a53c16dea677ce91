package mcp

import (
	"encoding/base64"
	"net/http"
	"strings"
	"unicode/utf8"
)

// Header names of the MCP Streamable HTTP transport.
const (
	HeaderProtocolVersion = "MCP-Protocol-Version"
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
	// HeaderParamPrefix starts the headers that mirror tool arguments
	// declared with "x-mcp-header" in the tool's input schema.
	HeaderParamPrefix = "Mcp-Param-"
)

// headerValue reads a header that must appear at most once, trimmed of
// optional white space. Repeated headers are ambiguous, so they are an
// error: an intermediary might route on one value and we would check another.
func headerValue(h http.Header, name string) (value string, present bool, repeated bool) {
	vs := h.Values(name)
	switch len(vs) {
	case 0:
		return "", false, false
	case 1:
		return strings.Trim(vs[0], " \t"), true, false
	}
	return strings.Join(vs, ", "), true, true
}

// decodeHeaderText undoes the =?base64?…?= sentinel MCP clients use for
// values that are not plain header text. Only the exact lowercase prefix
// and the suffix mark the sentinel; anything else is taken literally. The
// decoded value must be UTF-8; a literal value must be visible ASCII.
func decodeHeaderText(v string) (string, bool) {
	const prefix, suffix = "=?base64?", "?="
	if strings.HasPrefix(v, prefix) && strings.HasSuffix(v, suffix) && len(v) >= len(prefix)+len(suffix) {
		inner := v[len(prefix) : len(v)-len(suffix)]
		// The decoder skips CR and LF; a header value must not carry them.
		if strings.ContainsAny(inner, "\r\n") {
			return "", false
		}
		b, err := base64.StdEncoding.Strict().DecodeString(inner)
		if err != nil || !utf8.Valid(b) {
			return "", false
		}
		return string(b), true
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 && c != '\t' || c >= 0x7f {
			return "", false
		}
	}
	return v, true
}

// canonicalProtocolVersion is HeaderProtocolVersion as http.Header keys it,
// so that Get and Set by any middleware find the one value we write.
var canonicalProtocolVersion = http.CanonicalHeaderKey(HeaderProtocolVersion)
