package client

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// RPCError is a JSON-RPC error the server answered, with the HTTP status
// it came with.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
	Status  int             `json:"-"`
}

func (e *RPCError) Error() string {
	s := fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message)
	if len(e.Data) > 0 && string(e.Data) != "null" {
		s += " (data: " + string(e.Data) + ")"
	}
	return s
}

// HTTPError is an answer that is not a JSON-RPC message: what an
// authorization layer in front of the endpoint says (401 with a Bearer
// challenge, 403 for a missing scope, RFC 6750), a proxy's error page.
type HTTPError struct {
	Status int
	// Challenge is the WWW-Authenticate header, when there is one.
	Challenge string
	// OAuthError and Description are the body's error and
	// error_description, when it is an OAuth error document.
	OAuthError, Description string
	// Body is the start of the body otherwise.
	Body string
}

func (e *HTTPError) Error() string {
	s := fmt.Sprintf("HTTP %d %s", e.Status, http.StatusText(e.Status))
	switch {
	case e.OAuthError != "" && e.Description != "":
		s += ": " + e.OAuthError + ": " + e.Description
	case e.OAuthError != "":
		s += ": " + e.OAuthError
	case e.Body != "":
		s += ": " + e.Body
	}
	return s
}

// httpError reads a non-JSON-RPC answer.
func httpError(resp *http.Response, body []byte) *HTTPError {
	e := &HTTPError{Status: resp.StatusCode, Challenge: resp.Header.Get("WWW-Authenticate")}
	var doc struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if json.Unmarshal(body, &doc) == nil && doc.Error != "" {
		e.OAuthError, e.Description = doc.Error, doc.Description
		return e
	}
	text := strings.TrimSpace(string(body))
	if len(text) > 500 {
		text = text[:500] + "…"
	}
	e.Body = text
	return e
}
