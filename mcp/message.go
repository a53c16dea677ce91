package mcp

import (
	"bytes"
	"errors"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// message is one decoded JSON-RPC message. Fields stay raw until the method
// that needs them reads them, so nothing is decoded twice.
type message struct {
	id       jsontext.Value // validated string or integer; nil for a notification
	method   string
	params   params
	response bool // a JSON-RPC response or error posted by the client
}

// wireMessage mirrors the envelope with every member raw, so type errors are
// ours to report (as -32600) rather than the decoder's.
type wireMessage struct {
	JSONRPC jsontext.Value `json:"jsonrpc"`
	ID      jsontext.Value `json:"id"`
	Method  jsontext.Value `json:"method"`
	Params  jsontext.Value `json:"params"`
	Result  jsontext.Value `json:"result"`
	Error   jsontext.Value `json:"error"`
}

// params holds every member of params that any method reads.
type params struct {
	present         bool
	Meta            jsontext.Value `json:"_meta"`
	Name            jsontext.Value `json:"name"`
	URI             jsontext.Value `json:"uri"`
	Arguments       jsontext.Value `json:"arguments"`
	Cursor          jsontext.Value `json:"cursor"`
	ProtocolVersion jsontext.Value `json:"protocolVersion"`
	Capabilities    jsontext.Value `json:"capabilities"`
	ClientInfo      jsontext.Value `json:"clientInfo"`
	InputResponses  jsontext.Value `json:"inputResponses"`
	RequestState    jsontext.Value `json:"requestState"`
	Ref             jsontext.Value `json:"ref"`
	Argument        jsontext.Value `json:"argument"`
	Context         jsontext.Value `json:"context"`
}

var strictJSON = json.JoinOptions(jsontext.AllowDuplicateNames(false), jsontext.AllowInvalidUTF8(false))

// decodeMessage turns a body into one message, or into the error the body
// deserves: -32700 for text that is not JSON, -32600 for JSON that is not
// one request (arrays, wrong member types, duplicate keys, bad ids).
func decodeMessage(body []byte) (*message, *Error) {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 {
		return nil, errParse("empty body")
	}
	if trimmed[0] != '{' {
		var v jsontext.Value
		if err := json.Unmarshal(trimmed, &v, strictJSON); err != nil {
			return nil, jsonError(err)
		}
		if trimmed[0] == '[' {
			return nil, errInvalidRequest("batch requests are not supported; send one JSON-RPC message per POST")
		}
		return nil, errInvalidRequest("the body must be a JSON-RPC request object")
	}
	var w wireMessage
	if err := json.Unmarshal(body, &w, strictJSON); err != nil {
		return nil, jsonError(err)
	}
	if string(w.JSONRPC) != `"2.0"` {
		return nil, errInvalidRequest(`"jsonrpc" must be "2.0"`)
	}
	m := &message{}
	if w.ID != nil {
		if !validID(w.ID) {
			return nil, errInvalidRequest(`"id" must be a string or an integer`)
		}
		m.id = w.ID
	}
	if w.Method == nil {
		if m.id != nil && (w.Result != nil || w.Error != nil) {
			m.response = true
			return m, nil
		}
		return m, errInvalidRequest(`"method" is required`)
	}
	if w.Method.Kind() != '"' {
		return m, errInvalidRequest(`"method" must be a string`)
	}
	if err := json.Unmarshal(w.Method, &m.method); err != nil {
		return m, errInvalidRequest(`"method" must be a string`)
	}
	if w.Params != nil && string(w.Params) != "null" {
		if w.Params.Kind() != '{' {
			return m, errInvalidRequest(`"params" must be an object`)
		}
		if err := json.Unmarshal(w.Params, &m.params, strictJSON); err != nil {
			return m, jsonError(err)
		}
		m.params.present = true
	}
	return m, nil
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
	if v.Kind() != '"' {
		return "", false
	}
	if err := json.Unmarshal(v, &s); err != nil {
		return "", false
	}
	return s, true
}

// metaMembers splits params._meta into its members. A _meta that is present
// but not an object reports ok=false.
func metaMembers(v jsontext.Value) (members map[string]jsontext.Value, ok bool) {
	if v == nil {
		return nil, true
	}
	if v.Kind() != '{' {
		return nil, false
	}
	if err := json.Unmarshal(v, &members); err != nil {
		return nil, false
	}
	return members, true
}
