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

	// What params.name names, looked up once for the rate limiter, the
	// observation and tools/call (Handler.calledTool).
	named    bool
	nameOK   bool
	toolName string
	tool     *compiledTool
}

// params holds every member of params that any method reads, raw, and the
// members of params._meta the envelope is made of.
type params struct {
	present         bool
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
	// The W3C trace context a client propagates in _meta (unprefixed
	// keys, as the MCP specification allows for them), for a Tracer.
	metaTraceParent jsontext.Value
	metaTraceState  jsontext.Value
}

// decodeMessage turns a body into one message, or into the error the body
// deserves: -32700 for text that is not JSON, -32600 for JSON that is not
// one request (arrays, wrong member types, duplicate keys, bad ids). The
// message is nil when not even an id could be read for the error answer.
func decodeMessage(body []byte) (*message, *Error) {
	m := &message{}
	ok, e := m.decode(body)
	if !ok {
		return nil, e
	}
	return m, e
}

// decode is decodeMessage into m, which the handler keeps inside its call
// so that a request costs one allocation for both. ok is false when the
// answer must not echo an id (decodeMessage's nil message).
func (m *message) decode(body []byte) (ok bool, e *Error) {
	if firstByte(body) == 0 {
		return false, errParse("empty body")
	}
	s := jsonscan.Get()
	defer jsonscan.Put(s)
	if err := s.Start(body); err != nil {
		if errors.Is(err, jsonscan.ErrNotObject) {
			if firstByte(body) == '[' {
				return false, errInvalidRequest("batch requests are not supported; send one JSON-RPC message per POST")
			}
			return false, errInvalidRequest("the body must be a JSON-RPC request object")
		}
		return false, jsonError(err)
	}
	var jsonrpc, id, method, result, rpcErr jsontext.Value
	// params is walked into in the same pass, so its members (and those of
	// its _meta) are read once; paramsKind is the kind of its value, 0
	// when it is absent.
	var paramsKind jsontext.Kind
	for {
		ok, err := m.member(s, &jsonrpc, &id, &method, &result, &rpcErr, &paramsKind)
		if err != nil {
			if readableID(id, err) {
				m.id = id
				return true, jsonError(err)
			}
			return false, jsonError(err)
		}
		if !ok {
			break
		}
	}
	if err := s.Finish(); err != nil {
		return false, jsonError(err)
	}
	if id != nil {
		if !validID(id) {
			return false, errInvalidRequest(`"id" must be a string or an integer`)
		}
		m.id = id
	}
	if string(jsonrpc) != `"2.0"` {
		return true, errInvalidRequest(`"jsonrpc" must be "2.0"`)
	}
	if method == nil {
		if m.id != nil && (result != nil || rpcErr != nil) {
			m.response = true
			return true, nil
		}
		return true, errInvalidRequest(`"method" is required`)
	}
	name, ok := jsonscan.Unquoted(method)
	if !ok {
		return true, errInvalidRequest(`"method" must be a string`)
	}
	m.method = internMethod(name)
	if paramsKind != 0 && paramsKind != 'n' && paramsKind != '{' {
		return true, errInvalidRequest(`"params" must be an object`)
	}
	return true, nil
}

// member reads one member of the envelope into its variable, walking into
// params when it is an object. ok is false after the last member.
func (m *message) member(s *jsonscan.Scanner, jsonrpc, id, method, result, rpcErr *jsontext.Value, paramsKind *jsontext.Kind) (ok bool, err error) {
	name, ok, err := s.Name()
	if !ok || err != nil {
		return false, err
	}
	if string(name) == "params" {
		entered, err := s.Enter()
		if err != nil {
			return false, err
		}
		if entered {
			*paramsKind = '{'
			return true, m.params.decode(s)
		}
		v, err := s.Value()
		*paramsKind = v.Kind()
		return true, err
	}
	v, err := s.Value()
	if err != nil {
		return false, err
	}
	switch string(name) {
	case "jsonrpc":
		*jsonrpc = v
	case "id":
		*id = v
	case "method":
		*method = v
	case "result":
		*result = v
	case "error":
		*rpcErr = v
	}
	return true, nil
}

// readableID tells whether the id read before the body turned out to be
// invalid is kept for the error answer: not when the id itself is what is
// ambiguous (a duplicate "id" key).
func readableID(id jsontext.Value, err error) bool {
	var se *jsontext.SyntacticError
	return id != nil && validID(id) && !(errors.As(err, &se) && se.JSONPointer == "/id")
}

// knownMethods maps each method the handler routes to its name, so that a
// decoded method is a shared constant string instead of a copy of the
// body: the name outlives the request in observations and rate limits.
var knownMethods = func() map[string]string {
	known := map[string]string{}
	for _, table := range []map[string]methodFunc{modernMethods, legacyMethods} {
		for name := range table {
			known[name] = name
		}
	}
	return known
}()

// internMethod is the method's name as a string, shared when it is known.
func internMethod(name []byte) string {
	if s, ok := knownMethods[string(name)]; ok {
		return s
	}
	return string(name)
}

func firstByte(b []byte) byte {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c
		}
	}
	return 0
}

// decode reads the members of params, the scanner having just walked into
// it, and of params._meta.
func (p *params) decode(s *jsonscan.Scanner) error {
	p.present = true
	p.metaOK = true
	for {
		name, ok, err := s.Name()
		if !ok || err != nil {
			return err
		}
		if string(name) == "_meta" {
			entered, err := s.Enter()
			if err != nil {
				return err
			}
			if entered {
				if err := p.decodeMeta(s); err != nil {
					return err
				}
				continue
			}
			v, err := s.Value()
			if err != nil {
				return err
			}
			// null is as good as no _meta; anything else is not an object.
			p.metaOK = v.Kind() == 'n'
			continue
		}
		value, err := s.Value()
		if err != nil {
			return err
		}
		switch string(name) {
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
}

// decodeMeta reads the members of params._meta, the scanner having just
// walked into it.
func (p *params) decodeMeta(s *jsonscan.Scanner) error {
	for {
		name, value, ok, err := s.Next()
		if !ok || err != nil {
			return err
		}
		switch string(name) {
		case MetaProtocolVersion:
			p.hasVersion, p.metaVersion = true, value
		case MetaClientCapabilities:
			p.hasCaps, p.metaCaps = true, value
		case MetaClientInfo:
			p.metaClient = value
		case "traceparent":
			p.metaTraceParent = value
		case "tracestate":
			p.metaTraceState = value
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
