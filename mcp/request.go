package mcp

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/go-json-experiment/json/jsontext"
)

// Request is what every handler (tool, prompt, resource, completion) learns
// about the request besides its own parameters.
type Request struct {
	// Version is the protocol revision in use for this request.
	Version string
	// Era is EraModern for 2026-07-28, EraLegacy for the 2025 revisions.
	Era Era
	// Capabilities are the client's, as declared in this very request (2026
	// era). 2025 clients declared theirs once in initialize, which a
	// stateless server never sees again, so they have none here.
	Capabilities ClientCapabilities
	// ClientInfo is the client's self-description, for display and logs only.
	ClientInfo *Implementation
	// Header is the HTTP request's header, for handlers that forward
	// product headers (a workspace id, a language) to an in-process API.
	Header http.Header
	// InputResponses are the client's answers to an earlier input_required
	// result, keyed as that result asked; only keys it asked are kept.
	InputResponses map[string]InputResponse
	// State is the opened requestState of an earlier input_required result,
	// nil on a first call.
	State *State

	textIndent string
}

// JSONText returns a text block holding a JSON document, compact or indented
// as the server is configured. A body that is not JSON is sent as it is.
func (r *Request) JSONText(body []byte) Content {
	if r.textIndent == "" {
		return TextContent(string(body))
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, body, "", r.textIndent); err != nil {
		return TextContent(string(body))
	}
	return TextContent(buf.String())
}

// Implementation names a client or a server.
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// ClientCapabilities is the capability object a 2026-07-28 client sends in
// every request's _meta.
type ClientCapabilities struct {
	members map[string]jsontext.Value
}

// Has reports whether the client declared the named capability.
func (c ClientCapabilities) Has(name string) bool {
	_, ok := c.members[name]
	return ok
}

// ElicitForm reports whether the client accepts form-mode elicitation:
// "elicitation" declared with "form", or with neither "form" nor "url" (the
// older shape). {"elicitation":{"url":{}}} alone does not allow forms.
func (c ClientCapabilities) ElicitForm() bool {
	e, ok := c.elicitation()
	if !ok {
		return false
	}
	_, form := e["form"]
	_, url := e["url"]
	return form || !url
}

// ElicitURL reports whether the client accepts URL-mode elicitation.
func (c ClientCapabilities) ElicitURL() bool {
	e, ok := c.elicitation()
	if !ok {
		return false
	}
	_, url := e["url"]
	return url
}

func (c ClientCapabilities) elicitation() (map[string]jsontext.Value, bool) {
	v, ok := c.members["elicitation"]
	if !ok {
		return nil, false
	}
	m, ok := metaMembers(v)
	if !ok || v == nil {
		return nil, false
	}
	if m == nil {
		m = map[string]jsontext.Value{}
	}
	return m, true
}
