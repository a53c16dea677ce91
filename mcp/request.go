package mcp

import (
	"bytes"
	"net/http"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/kobana/kobana-mcp/internal/jsonscan"
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
	// clientInfo is the raw clientInfo of the envelope, read on demand.
	clientInfo jsontext.Value
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
	bp := indentPool.Get().(*[]byte)
	defer indentPool.Put(bp)
	out, ok := appendIndented((*bp)[:0], body, r.textIndent)
	*bp = out[:0]
	if !ok {
		return TextContent(string(body))
	}
	return TextContent(string(out))
}

// indentPool holds the buffers JSONText indents into before the text is
// copied out.
var indentPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// appendIndented appends body indented by indent to dst, byte for byte what
// encoding/json.Indent(dst, body, "", indent) writes: leading white space
// dropped, trailing white space kept, strings, numbers and duplicate names
// as they are. It is jsontext's formatter, about 2.7 times faster than
// encoding/json's on a page of charges (encoding/json's Indent was a sixth
// of an indented listing's CPU; docs/performance.md "Dunning listings,
// second round (issue 28)"); TestIndentedAsEncodingJSON and
// FuzzIndentedAsEncodingJSON hold the two to the same bytes. ok is false
// when body is not one JSON value.
func appendIndented(dst, body []byte, indent string) ([]byte, bool) {
	out, err := jsontext.AppendFormat(dst, body, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true),
		jsontext.PreserveRawStrings(true), jsontext.Multiline(true), jsontext.WithIndent(indent))
	if err != nil {
		return dst, false
	}
	return append(out, body[len(bytes.TrimRight(body, " \t\r\n")):]...), true
}

// ClientInfo is the client's self-description from the 2026 envelope, for
// display and logs only (it is self-reported); nil when absent or invalid.
func (r *Request) ClientInfo() *Implementation {
	if r.clientInfo.Kind() != '{' {
		return nil
	}
	var info Implementation
	if json.Unmarshal(r.clientInfo, &info) != nil {
		return nil
	}
	return &info
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
	raw jsontext.Value
}

// member returns one capability's raw value; it is read on demand because
// most requests never ask.
func (c ClientCapabilities) member(name string) (jsontext.Value, bool) {
	if c.raw == nil {
		return nil, false
	}
	s := jsonscan.Get()
	defer jsonscan.Put(s)
	if s.Start(c.raw) != nil {
		return nil, false
	}
	for {
		n, v, ok, err := s.Next()
		if err != nil || !ok {
			return nil, false
		}
		if string(n) == name {
			return v, true
		}
	}
}

// Has reports whether the client declared the named capability.
func (c ClientCapabilities) Has(name string) bool {
	_, ok := c.member(name)
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
	v, ok := c.member("elicitation")
	if !ok || v.Kind() != '{' {
		return nil, false
	}
	var m map[string]jsontext.Value
	if json.Unmarshal(v, &m) != nil {
		return nil, false
	}
	return m, true
}
