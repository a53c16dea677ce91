package mcp

import (
	"mime"
	"net/http"
	"strings"
)

// checkContentType refuses a POST whose body is not declared as JSON. Every
// product's transport chapter lists `Content-Type: application/json` as a
// required request header (docs/decisions.md "Content-Type"), in both eras:
// a request with none, text/plain or a form type is answered 415 with a
// JSON-RPC error naming the header, before its body is parsed, so a
// browser's "simple" cross-site form post (which cannot send
// application/json without a preflight) never reaches a method either.
//
// Parameters are allowed (application/json; charset=utf-8); a charset other
// than UTF-8 is refused, since JSON-RPC bodies are UTF-8 (RFC 8259 §8.1).
func checkContentType(h http.Header) *Error {
	v := h["Content-Type"]
	if len(v) == 1 && v[0] == "application/json" {
		return nil // the common case, without parsing
	}
	if len(v) == 0 {
		return errContentType("the request has no Content-Type header; send Content-Type: application/json")
	}
	if len(v) > 1 {
		return errContentType("the request has more than one Content-Type header; send one: Content-Type: application/json")
	}
	mt, params, err := mime.ParseMediaType(v[0])
	if err != nil || mt != "application/json" {
		return errContentType("Content-Type " + quoteHeader(v[0]) + " is not supported; send Content-Type: application/json")
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return errContentType("Content-Type charset " + quoteHeader(cs) + " is not supported; JSON-RPC bodies are UTF-8")
	}
	return nil
}

// quoteHeader shows a client's header value in an error, cut and with
// control characters replaced, so a hostile value cannot shape the answer.
func quoteHeader(s string) string {
	const most = 64
	if len(s) > most {
		s = strings.ToValidUTF8(s[:most], "") + "…"
	}
	return "\"" + strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '"' {
			return '?'
		}
		return r
	}, s) + "\""
}

func errContentType(detail string) *Error {
	return &Error{Code: CodeInvalidRequest, Message: "Unsupported Media Type: " + detail, Status: http.StatusUnsupportedMediaType}
}
