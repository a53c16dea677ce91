// Package restbridge turns REST routes into MCP tools that run in-process:
// a tools/call becomes an *http.Request for the route the tool mirrors,
// served by the very http.Handler REST clients reach, and the response
// becomes the tool result. Nothing is implemented twice, so a tool cannot
// drift from its endpoint.
//
// The request carries the caller's context (and so the identity the MCP
// endpoint verified), never the MCP token: the API must authorise the
// in-process request from the context, as it would any request.
//
// The arguments reach the route either as the query string and JSON body
// a REST client would send, which any API can read, or, for a route with
// PassArguments, as the arguments object itself (ArgumentsFrom), which an
// API that knows the route's input (package rest) reads in one pass
// instead of parsing what the bridge took apart.
package restbridge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/kobana/kobana-mcp/internal/jsonscan"
	"github.com/kobana/kobana-mcp/mcp"
)

// Route is the REST operation a tool mirrors.
type Route struct {
	// Method is the HTTP method.
	Method string
	// Path is the route pattern with {name} path parameters, as an
	// http.ServeMux pattern writes them: "/api/v1/emails/{id}".
	Path string
	// Query names the arguments sent in the query string of a request with a
	// body. For GET, HEAD and DELETE every argument that is not a path
	// parameter goes to the query string.
	Query []string
	// PassArguments hands the API the tools/call arguments object itself
	// (ArgumentsFrom) instead of a query string and a JSON body built from
	// it, so the API parses the arguments once rather than the bridge
	// taking them apart and the API parsing the parts again. Path
	// parameters still go into the path and the idempotency key into its
	// header. Only for an API that reads ArgumentsFrom, as package rest
	// does for the routes its Tools mirror: any other would see a request
	// without its query and body.
	PassArguments bool
}

// Options configure a Bridge.
type Options struct {
	// IdempotencyArgument is the tool argument that carries an idempotency
	// key (default "idempotency_key"); it travels as IdempotencyHeader
	// (default "X-Idempotency-Key"), never in the body.
	IdempotencyArgument string
	IdempotencyHeader   string
	// ForwardHeaders are copied from the MCP request to the in-process one
	// (for example a workspace selector or Accept-Language). Authorization
	// is never forwarded.
	ForwardHeaders []string
	// Logger receives the details of 5xx answers, which the model never sees.
	Logger *slog.Logger
}

// Bridge dispatches tools to one API handler.
type Bridge struct {
	api               http.Handler
	opts              Options
	idempotencyHeader string
	idempotencyName   []byte // the argument's name, to look for it cheaply
}

// New returns a Bridge to api.
func New(api http.Handler, opts Options) *Bridge {
	if opts.IdempotencyArgument == "" {
		opts.IdempotencyArgument = "idempotency_key"
	}
	if opts.IdempotencyHeader == "" {
		opts.IdempotencyHeader = "X-Idempotency-Key"
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	opts.ForwardHeaders = slices.DeleteFunc(slices.Clone(opts.ForwardHeaders), func(h string) bool {
		return strings.EqualFold(h, "Authorization") || strings.EqualFold(h, "Cookie")
	})
	return &Bridge{api: api, opts: opts, idempotencyHeader: http.CanonicalHeaderKey(opts.IdempotencyHeader), idempotencyName: []byte(opts.IdempotencyArgument)}
}

type (
	inProcessKey  struct{}
	describingKey struct{}
	argumentsKey  struct{}
)

// InProcess reports whether a request reached the API through the bridge
// rather than over the network.
func InProcess(ctx context.Context) bool {
	v, _ := ctx.Value(inProcessKey{}).(bool)
	return v
}

// callContext is the context of an in-process request: the caller's,
// marked in-process (and describing, for a Describer or when the caller's
// context already was), holding the
// request's Arguments when its route passes them. One allocation carries
// all of it.
type callContext struct {
	context.Context
	describing bool
	args       *Arguments
	own        Arguments
	// The request's URL and body live here too, so that building the
	// request allocates the request itself and its header, nothing more.
	url  url.URL
	body body
}

func (c *callContext) Value(key any) any {
	switch key.(type) {
	case inProcessKey:
		return true
	case describingKey:
		// Settled when the request was made: asking walks no further.
		return c.describing
	case argumentsKey:
		// A request made inside this one with the same context (a
		// resource read by a handler, say) must not see these arguments:
		// ArgumentsFrom also checks the request they were made for.
		return c.args
	}
	return c.Context.Value(key)
}

// Arguments is the arguments object of a tools/call, handed to the API
// that serves a PassArguments route in-process in place of a query string
// and a body.
type Arguments struct {
	// Object is the arguments object as the client sent it.
	Object []byte

	bridge *Bridge
	route  *compiledRoute
	method string
	url    *url.URL
}

// ArgumentsFrom returns the arguments of r when r is the in-process
// request the bridge made for a PassArguments route, and nil for any other
// request: one from the network, or another request made with the same
// context. An API that honours PassArguments reads its input from them
// (and not from r's query string or body, which are empty) exactly as it
// would read the query string and body the bridge would otherwise build.
func ArgumentsFrom(r *http.Request) *Arguments {
	a, _ := r.Context().Value(argumentsKey{}).(*Arguments)
	if a == nil || r.Method != a.method {
		return nil
	}
	if r.URL != a.url && (r.URL == nil || r.URL.Path != a.url.Path || r.URL.RawPath != a.url.RawPath) {
		return nil
	}
	return a
}

// Routed reports whether the member named name travels in the request
// itself rather than as input: a path parameter of the route (its value is
// in the path) or the idempotency key (in its header). The API reads
// neither from Object, so none is read twice or refused as unknown.
func (a *Arguments) Routed(name []byte) bool {
	return a.route.paramIndex(name) >= 0 || string(name) == a.bridge.opts.IdempotencyArgument
}

// Wire returns the query string and JSON body the bridge sends for these
// arguments to a route without PassArguments. An API that fingerprints
// requests (idempotency keys) compares these, so a tool call and the same
// request over REST fingerprint alike.
func (a *Arguments) Wire() (query url.Values, body []byte, err error) {
	p, msg := a.bridge.split(a.route, a.Object)
	if msg != "" {
		return nil, nil, errors.New(msg)
	}
	return p.query, p.body, nil
}

// Describing reports whether an in-process request asks its operation to
// describe what it would do, for the person's confirmation, instead of
// doing it (see Describer). An API must never run the operation for such a
// request.
func Describing(ctx context.Context) bool {
	v, _ := ctx.Value(describingKey{}).(bool)
	return v
}

// DescribeMessageMember is the member of the JSON object an API answers a
// Describing request with: {"confirm_message": "Delete …?"}.
const DescribeMessageMember = "confirm_message"

// Describer returns the confirmation description (mcp.Tool.Confirm) of a
// destructive tool that mirrors route: the same in-process request as the
// tool's, marked Describing. The API authorises and validates it as usual,
// then answers 200 with {"confirm_message": "…"} naming the target, or the
// error the operation itself would give (a 404 for a target that does not
// exist): that error is the tool's answer, and nothing is asked or run.
//
// Only mirror with it a route whose API honours Describing; package rest
// does for operations declared with HandleConfirmed, and refuses
// describing requests to every other operation.
func (b *Bridge) Describer(route Route) (mcp.ConfirmFunc, error) {
	cr, err := compile(route)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, req *mcp.CallToolRequest) (string, *mcp.CallToolResult, error) {
		hreq, msg := b.buildRequest(ctx, true, cr, req)
		if msg != "" {
			return "", mcp.ErrorResult(msg), nil
		}
		rec := recorderPool.Get().(*recorder)
		rec.reset()
		defer recorderPool.Put(rec)
		b.api.ServeHTTP(rec, hreq)
		if rec.status < 300 {
			var body map[string]jsontext.Value
			if err := json.Unmarshal(rec.body.Bytes(), &body); err == nil {
				if text, ok := jsonscan.String(body[DescribeMessageMember]); ok && text != "" {
					return text, nil, nil
				}
			}
			return "", nil, fmt.Errorf("restbridge: %s %s answered a describing request without %q", cr.Method, cr.Path, DescribeMessageMember)
		}
		return "", b.toResult(ctx, cr, req, rec), nil
	}, nil
}

// MustDescriber is Describer for routes known to be valid.
func (b *Bridge) MustDescriber(route Route) mcp.ConfirmFunc {
	d, err := b.Describer(route)
	if err != nil {
		panic(err)
	}
	return d
}

// segment is a literal part or a {name} parameter of a route path.
type segment struct {
	literal string
	param   string
}

type compiledRoute struct {
	Route
	segments   []segment
	paramNames []string
	query      map[string]bool
	allQuery   bool
}

func compile(r Route) (*compiledRoute, error) {
	if r.Method == "" || !strings.HasPrefix(r.Path, "/") {
		return nil, fmt.Errorf("restbridge: route %q %q needs a method and an absolute path", r.Method, r.Path)
	}
	// The method is checked once here, as http.NewRequest would check it
	// on every call.
	if _, err := http.NewRequest(r.Method, "/", nil); err != nil {
		return nil, fmt.Errorf("restbridge: route %q %q: %w", r.Method, r.Path, err)
	}
	cr := &compiledRoute{Route: r, query: map[string]bool{}}
	for _, part := range strings.Split(r.Path[1:], "/") {
		if strings.HasPrefix(part, "{") && strings.HasSuffix(part, "}") {
			name := strings.TrimSuffix(part[1:len(part)-1], "...")
			cr.segments = append(cr.segments, segment{param: name})
			cr.paramNames = append(cr.paramNames, name)
		} else {
			cr.segments = append(cr.segments, segment{literal: part})
		}
	}
	if len(cr.paramNames) > 4 {
		return nil, fmt.Errorf("restbridge: route %q has more than 4 path parameters", r.Path)
	}
	for _, q := range r.Query {
		cr.query[q] = true
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodDelete:
		cr.allQuery = true
	}
	return cr, nil
}

// Handler returns the tool handler that runs route in-process.
func (b *Bridge) Handler(route Route) (mcp.ToolHandler, error) {
	cr, err := compile(route)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return b.call(ctx, cr, req)
	}, nil
}

// MustHandler is Handler for routes known to be valid.
func (b *Bridge) MustHandler(route Route) mcp.ToolHandler {
	h, err := b.Handler(route)
	if err != nil {
		panic(err)
	}
	return h
}

var recorderPool = sync.Pool{New: func() any { return &recorder{header: http.Header{}} }}

func (b *Bridge) call(ctx context.Context, cr *compiledRoute, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	hreq, msg := b.buildRequest(ctx, false, cr, req)
	if msg != "" {
		return mcp.ErrorResult(msg), nil
	}
	rec := recorderPool.Get().(*recorder)
	rec.reset()
	defer recorderPool.Put(rec)
	b.api.ServeHTTP(rec, hreq)
	return b.toResult(ctx, cr, req, rec), nil
}

// Header values set on every in-process request, shared read-only.
var (
	acceptJSON      = []string{"application/json"}
	contentTypeJSON = []string{"application/json"}
)

// parts is a request taken apart from a flat arguments object.
type parts struct {
	pathValues     [4]string // path parameters, in paramNames order
	query          url.Values
	body           []byte
	idempotencyKey string
}

// split maps the flat arguments object onto the route: path parameters,
// the idempotency key, and the rest into the query string or the JSON
// body. It returns a message for the model when the arguments cannot make
// a request.
func (b *Bridge) split(cr *compiledRoute, args []byte) (parts, string) {
	var p parts
	s := jsonscan.Get()
	defer jsonscan.Put(s)
	if err := s.Start(args); err != nil {
		return p, "Invalid arguments: expected an object"
	}
	for {
		rawName, val, ok, err := s.Next()
		if err != nil {
			return p, "Invalid arguments: " + err.Error()
		}
		if !ok {
			break
		}
		if i := cr.paramIndex(rawName); i >= 0 {
			v, ok := scalarText(val)
			if !ok {
				return p, fmt.Sprintf("Invalid arguments: %q must be a string or a number", rawName)
			}
			p.pathValues[i] = v
			continue
		}
		switch {
		case string(rawName) == b.opts.IdempotencyArgument:
			v, ok := scalarText(val)
			if !ok || val.Kind() != '"' {
				return p, fmt.Sprintf("Invalid arguments: %q must be a string", rawName)
			}
			p.idempotencyKey = v
		case cr.allQuery || cr.query[string(rawName)]:
			if p.query == nil {
				p.query = url.Values{}
			}
			addQuery(p.query, string(rawName), val)
		default:
			if p.body == nil {
				p.body = append(make([]byte, 0, len(args)), '{')
			} else {
				p.body = append(p.body, ',')
			}
			p.body, _ = jsontext.AppendQuote(p.body, rawName)
			p.body = append(p.body, ':')
			p.body = append(p.body, val...)
		}
	}
	if !cr.allQuery && p.body == nil {
		p.body = []byte("{}")
	} else if p.body != nil {
		p.body = append(p.body, '}')
	}
	return p, ""
}

// buildRequest makes the in-process request of a call: the route's path
// with its parameters, the idempotency key in its header, and either the
// arguments themselves (PassArguments) or the query string and body split
// from them. It returns a message for the model when the arguments cannot
// make a request.
func (b *Bridge) buildRequest(ctx context.Context, describing bool, cr *compiledRoute, req *mcp.CallToolRequest) (*http.Request, string) {
	c := &callContext{Context: ctx, describing: describing || Describing(ctx)}
	var p parts
	var msg string
	if cr.PassArguments {
		p, msg = b.locate(cr, req.Arguments)
	} else {
		p, msg = b.split(cr, req.Arguments)
	}
	if msg != "" {
		return nil, msg
	}
	if msg := cr.buildURL(&c.url, p.pathValues[:len(cr.paramNames)]); msg != "" {
		return nil, msg
	}
	if p.query != nil {
		c.url.RawQuery = p.query.Encode()
	}
	headers := 1 + len(b.opts.ForwardHeaders)
	if p.body != nil {
		headers++
	}
	if p.idempotencyKey != "" {
		headers++
	}
	hreq := newRequest(c, cr.Method, &c.url, headers)
	if cr.PassArguments {
		c.own = Arguments{Object: req.Arguments, bridge: b, route: cr, method: cr.Method, url: hreq.URL}
		c.args = &c.own
	}
	hreq.Header["Accept"] = acceptJSON
	if p.body != nil {
		c.body.Reset(p.body)
		hreq.Body = &c.body
		hreq.ContentLength = int64(len(p.body))
		hreq.Header["Content-Type"] = contentTypeJSON
	}
	if p.idempotencyKey != "" {
		hreq.Header[b.idempotencyHeader] = []string{p.idempotencyKey}
	}
	for _, h := range b.opts.ForwardHeaders {
		if vs := req.Header.Values(h); len(vs) > 0 {
			hreq.Header[http.CanonicalHeaderKey(h)] = vs
		}
	}
	return hreq, ""
}

// paramIndex returns the position of a path parameter, or -1.
func (cr *compiledRoute) paramIndex(name []byte) int {
	for i, p := range cr.paramNames {
		if p == string(name) {
			return i
		}
	}
	return -1
}

// buildURL escapes the path parameters into the route's path, in u. A
// value such as ".." or "a/../b" would be cleaned into another path and
// could reach another route: it is refused rather than left to routing.
func (cr *compiledRoute) buildURL(u *url.URL, values []string) string {
	if len(cr.paramNames) == 0 {
		u.Path = cr.Path
		return ""
	}
	var p, raw []byte
	escaped := false
	vi := 0
	for _, seg := range cr.segments {
		p = append(p, '/')
		if seg.param == "" {
			p = append(p, seg.literal...)
			raw = append(raw, '/')
			raw = append(raw, seg.literal...)
			continue
		}
		v := values[vi]
		vi++
		if v == "" {
			return fmt.Sprintf("Invalid arguments: %q is required", seg.param)
		}
		p = append(p, v...)
		e := url.PathEscape(v)
		escaped = escaped || e != v
		raw = append(raw, '/')
		raw = append(raw, e...)
	}
	u.Path = string(p)
	if path.Clean(u.Path) != u.Path {
		return "Invalid arguments: an identifier may not be a relative path segment such as \".\" or \"..\""
	}
	if escaped {
		u.RawPath = string(raw)
	}
	return ""
}

// scalarText renders a string or number argument as text.
func scalarText(v jsontext.Value) (string, bool) {
	switch v.Kind() {
	case '"':
		return jsonscan.String(v)
	case '0':
		return string(v), true
	}
	return "", false
}

func addQuery(q url.Values, name string, v jsontext.Value) {
	switch v.Kind() {
	case 'n':
	case '"', '0':
		s, _ := scalarText(v)
		q.Add(name, s)
	case 't', 'f':
		q.Add(name, string(v))
	case '[':
		dec := jsontext.NewDecoder(bytes.NewReader(v))
		_, _ = dec.ReadToken()
		for dec.PeekKind() != ']' {
			item, err := dec.ReadValue()
			if err != nil {
				return
			}
			addQuery(q, name, item)
		}
	default:
		q.Add(name, string(v))
	}
}

// toResult maps the API's answer onto a tool result: the JSON body on 2xx,
// {"status": 204} for 204, isError with the body on 4xx, and isError with
// a generic message on anything else (details logged, never shown).
func (b *Bridge) toResult(ctx context.Context, cr *compiledRoute, req *mcp.CallToolRequest, rec *recorder) *mcp.CallToolResult {
	status := rec.status
	if status == 0 {
		status = http.StatusOK
	}
	switch {
	case status == http.StatusNoContent:
		return oneBlock(req.JSONText([]byte(`{"status":204}`)), false)
	case status >= 200 && status < 300:
		return oneBlock(req.JSONText(rec.body.Bytes()), false)
	case status >= 400 && status < 500:
		return oneBlock(req.JSONText(rec.body.Bytes()), true)
	}
	b.opts.Logger.ErrorContext(ctx, "restbridge: API answered with a server error",
		"tool", req.Name, "method", cr.Method, "route", cr.Path, "status", status, "body", truncate(rec.body.String(), 2048))
	return mcp.ErrorResult(fmt.Sprintf("The operation failed on the server (HTTP %d). The details were logged; nothing in this message comes from the failure itself. Try again later.", status))
}

// oneBlock is a result of one content block, allocated together with its
// Content slice: a tool call's result costs one allocation, not two.
func oneBlock(c mcp.Content, isError bool) *mcp.CallToolResult {
	r := &struct {
		res     mcp.CallToolResult
		content [1]mcp.Content
	}{}
	r.content[0] = c
	r.res.Content = r.content[:]
	r.res.IsError = isError
	return &r.res
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
