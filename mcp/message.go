package mcp

import (
	"errors"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/kobana/kobana-mcp/internal/jsonscan"
)

// message is one decoded JSON-RPC message. Members stay raw slices of the
// body until the method that needs them reads them, so nothing is decoded
// twice and nothing unused is decoded at all.
type message struct {
	id       jsontext.Value // validated string or integer; nil for a notification
	method   string
	params   params
	response bool // a JSON-RPC response or error posted by the client
}

// params holds every member of params that any method reads, raw, and the
// members of params._meta the envelope is made of.
type params struct {
	present         bool
	Meta            jsontext.Value
	Name            jsontext.Value
	URI             jsontext.Value
	Arguments       jsontext.Value
	Cursor          jsontext.Value
	ProtocolVersion jsontext.Value
	InputResponses  jsontext.Value
	RequestState    jsontext.Value
	Ref             jsontext.Value
	Argument        jsontext.Value
	Context         jsontext.Value

	// From params._meta: metaOK is false when _meta is present but not an
	// object; hasVersion tells whether the 2026 version key is present.
	metaOK       bool
	hasVersion   bool
	metaVersion  jsontext.Value
	metaCaps     jsontext.Value
	hasCaps      bool
	metaClient   jsontext.Value
	otherMetaLen int
}

// decodeMessage turns a body into one message, or into the error the body
// deserves: -32700 for text that is not JSON, -32600 for JSON that is not
// one request (arrays, wrong member types, duplicate keys, bad ids).
func decodeMessage(body []byte) (*message, *Error) {
	if firstByte(body) == 0 {
		return nil, errParse("empty body")
	}
	s := jsonscan.Get()
	defer jsonscan.Put(s)
	if err := s.Start(body); err != nil {
		if errors.Is(err, jsonscan.ErrNotObject) {
			if firstByte(body) == '[' {
				return nil, errInvalidRequest("batch requests are not supported; send one JSON-RPC message per POST")
			}
			return nil, errInvalidRequest("the body must be a JSON-RPC request object")
		}
		return nil, jsonError(err)
	}
	var jsonrpc, id, method, rawParams, result, rpcErr jsontext.Value
	for {
		name, value, ok, err := s.Next()
		if err != nil {
			return withReadableID(id, err), jsonError(err)
		}
		if !ok {
			break
		}
		switch string(name) {
		case "jsonrpc":
			jsonrpc = value
		case "id":
			id = value
		case "method":
			method = value
		case "params":
			rawParams = value
		case "result":
			result = value
		case "error":
			rpcErr = value
		}
	}
	if err := s.Finish(); err != nil {
		return nil, jsonError(err)
	}
	m := &message{}
	if id != nil {
		if !validID(id) {
			return nil, errInvalidRequest(`"id" must be a string or an integer`)
		}
		m.id = id
	}
	if string(jsonrpc) != `"2.0"` {
		return m, errInvalidRequest(`"jsonrpc" must be "2.0"`)
	}
	if method == nil {
		if m.id != nil && (result != nil || rpcErr != nil) {
			m.response = true
			return m, nil
		}
		return m, errInvalidRequest(`"method" is required`)
	}
	var ok bool
	if m.method, ok = jsonscan.String(method); !ok {
		return m, errInvalidRequest(`"method" must be a string`)
	}
	if rawParams != nil && string(rawParams) != "null" {
		if rawParams.Kind() != '{' {
			return m, errInvalidRequest(`"params" must be an object`)
		}
		if e := m.params.decode(s, rawParams); e != nil {
			return m, e
		}
	}
	return m, nil
}

// withReadableID keeps the id for the error answer when it was read before
// the body turned out to be invalid, unless the id itself is what is
// ambiguous (a duplicate "id" key).
func withReadableID(id jsontext.Value, err error) *message {
	var se *jsontext.SyntacticError
	if id == nil || !validID(id) || (errors.As(err, &se) && se.JSONPointer == "/id") {
		return nil
	}
	return &message{id: id}
}

func firstByte(b []byte) byte {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c
		}
	}
	return 0
}

// decode reads the members of params, and of params._meta.
func (p *params) decode(s *jsonscan.Scanner, raw jsontext.Value) *Error {
	p.present = true
	if err := s.Start(raw); err != nil {
		return jsonError(err)
	}
	for {
		name, value, ok, err := s.Next()
		if err != nil {
			return jsonError(err)
		}
		if !ok {
			break
		}
		switch string(name) {
		case "_meta":
			p.Meta = value
		case "name":
			p.Name = value
		case "uri":
			p.URI = value
		case "arguments":
			p.Arguments = value
		case "cursor":
			p.Cursor = value
		case "protocolVersion":
			p.ProtocolVersion = value
		case "inputResponses":
			p.InputResponses = value
		case "requestState":
			p.RequestState = value
		case "ref":
			p.Ref = value
		case "argument":
			p.Argument = value
		case "context":
			p.Context = value
		}
	}
	p.metaOK = true
	if p.Meta == nil || string(p.Meta) == "null" {
		return nil
	}
	if p.Meta.Kind() != '{' {
		p.metaOK = false
		return nil
	}
	if err := s.Start(p.Meta); err != nil {
		return jsonError(err)
	}
	for {
		name, value, ok, err := s.Next()
		if err != nil {
			return jsonError(err)
		}
		if !ok {
			return nil
		}
		switch string(name) {
		case MetaProtocolVersion:
			p.hasVersion, p.metaVersion = true, value
		case MetaClientCapabilities:
			p.hasCaps, p.metaCaps = true, value
		case MetaClientInfo:
			p.metaClient = value
		default:
			p.otherMetaLen++
		}
	}
}

func jsonError(err error) *Error {
	if errors.Is(err, jsontext.ErrDuplicateName) {
		var se *jsontext.SyntacticError
		where := ""
		if errors.As(err, &se) && se.JSONPointer != "" {
			where = " at " + string(se.JSONPointer)
		}
		return errInvalidRequest("duplicate object key" + where)
	}
	return errParse("the body is not valid JSON")
}

// validID accepts what MCP allows as a request id: a string or an integer.
func validID(v jsontext.Value) bool {
	switch v.Kind() {
	case '"':
		return true
	case '0':
		for _, c := range v {
			if c == '.' || c == 'e' || c == 'E' {
				return false
			}
		}
		return true
	}
	return false
}

// stringMember reads a raw member that must be a JSON string. ok is false when
// the member is absent or of another type.
func stringMember(v jsontext.Value) (s string, ok bool) {
	return jsonscan.String(v)
}
