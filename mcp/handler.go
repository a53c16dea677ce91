package mcp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
)

// Options configure one MCP endpoint. The zero value of each field is a
// sensible default, except Name and Version, which are required.
type Options struct {
	// Name, Title and Version identify the server (serverInfo).
	Name    string
	Title   string
	Version string
	// Instructions are returned by initialize and server/discover.
	Instructions string
	// MaxBodyBytes caps the request body, by declared Content-Length and by
	// what actually arrives (default 1 MiB). Above it: 413 with -32600.
	MaxBodyBytes int64
	// AllowOrigin decides whether a request that carries an Origin header
	// (a browser) may proceed; refused ones get 403. Nil accepts loopback
	// origins on a loopback endpoint only ([LoopbackOrigins]). See also
	// [AllowOrigins] and [AnyOrigin].
	AllowOrigin OriginPolicy
	// TextIndent, when set, indents the JSON that [Request.JSONText] puts
	// in tool results ("  " for two spaces); spaces and tabs only.
	TextIndent string
	// PageSize is how many entries a list page holds (default 100).
	PageSize int
	// Authorizer authenticates requests and decides what each caller sees;
	// nil lets everyone see and run everything.
	Authorizer Authorizer
	// RateLimiter, when set, runs after authentication on every request.
	RateLimiter RateLimiter
	// States seals the requestState of input_required results; nil makes a
	// random key, which only works with a single process.
	States *StateSealer
	// Confirm configures the confirmation of destructive tools (see
	// [ConfirmOptions]); the zero value asks 2026 clients that can answer a
	// form, refuses the others, and remembers used confirmations in memory.
	Confirm ConfirmOptions
	// Logger receives internal errors (never sent to clients); nil
	// discards them.
	Logger *slog.Logger
	// Tracer, when set, is told where each request starts and ends
	// ([Tracer]); nil traces nothing and costs nothing.
	Tracer Tracer
}

// Catalog is everything an endpoint offers. Lists come back in the order
// given here.
type Catalog struct {
	Tools             []Tool
	Resources         []Resource
	ResourceTemplates []ResourceTemplate
	Prompts           []Prompt
}

// Handler is the MCP endpoint: an http.Handler that answers one JSON-RPC
// message per POST. It is safe for concurrent use and keeps no state
// between requests.
type Handler struct {
	opts    Options
	auth    Authorizer
	log     *slog.Logger
	catalog *compiledCatalog

	serverInfoModern []byte // the _meta member of every 2026 result
	capsModern       []byte
	initResult       map[string][]byte // by negotiated version
	discoverResult   []byte
	discover         *result // discoverResult as served; never written
	// opLimiter is the rate limiter when it takes the operation directly.
	opLimiter OperationLimiter
	// toolLists are tools/list answers by caller class (listcache.go).
	toolLists listCache
}

// NewHandler checks and compiles a catalog: schemas are resolved and every
// definition is serialised once, per era, so listing costs no encoding.
func NewHandler(opts Options, catalog Catalog) (*Handler, error) {
	if opts.Name == "" || opts.Version == "" {
		return nil, fmt.Errorf("mcp: Options.Name and Options.Version are required")
	}
	if strings.Trim(opts.TextIndent, " \t") != "" {
		return nil, fmt.Errorf("mcp: Options.TextIndent %q: spaces and tabs only", opts.TextIndent)
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = 1 << 20
	}
	if opts.PageSize <= 0 {
		opts.PageSize = 100
	}
	if opts.AllowOrigin == nil {
		opts.AllowOrigin = LoopbackOrigins()
	}
	if opts.States == nil {
		opts.States = NewRandomStateSealer()
	}
	if opts.Confirm.Nonces == nil {
		opts.Confirm.Nonces = NewMemoryNonceStore(nil)
	}
	h := &Handler{opts: opts, auth: opts.Authorizer, log: opts.Logger}
	h.opLimiter, _ = opts.RateLimiter.(OperationLimiter)
	if h.auth == nil {
		h.auth = openAccess{}
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	cc, err := compileCatalog(catalog)
	if err != nil {
		return nil, err
	}
	h.catalog = cc
	h.buildStaticResults()
	return h, nil
}

// MustNewHandler is NewHandler for catalogs known to be valid at build time.
func MustNewHandler(opts Options, catalog Catalog) *Handler {
	h, err := NewHandler(opts, catalog)
	if err != nil {
		panic(err)
	}
	return h
}

// readBody reads at most limit bytes of body. The body gets its own
// buffer, sized by Content-Length when declared: decoded members are slices
// of it and may outlive the request in a handler's hands.
func readBody(r *http.Request, limit int64) (body []byte, tooLarge bool, err error) {
	size := int64(512)
	if r.ContentLength >= 0 {
		size = r.ContentLength + 1
	}
	body = make([]byte, 0, min(size, limit+1))
	for {
		if int64(len(body)) > limit {
			return nil, true, nil
		}
		if len(body) == cap(body) {
			body = append(body, 0)[:len(body)]
		}
		n, err := r.Body.Read(body[len(body):min(int64(cap(body)), limit+1)])
		body = body[:len(body)+n]
		if err == io.EOF {
			if int64(len(body)) > limit {
				return nil, true, nil
			}
			return body, false, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
}

// ServeHTTP runs the gates in the order the specification and our product
// decisions fix: verb, Origin, body cap, authentication, rate limit, JSON
// parsing, envelope, era and header checks, then the method.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	// obs, when middleware asked for one, learns what this request was.
	obs := ObservationFrom(r.Context())
	// c, once the body is decoded, is the call; a traced call records the
	// error it answers.
	var c *call
	fail := func(id []byte, e *Error) {
		if obs != nil && e != errAlreadyWritten {
			obs.ErrorCode = e.Code
		}
		if c != nil && c.trace != nil && e != errAlreadyWritten {
			c.trace.ErrorCode, c.trace.ErrorMessage = e.Code, e.Message
		}
		h.writeError(w, id, e)
	}
	hdr["Cache-Control"] = noStore
	hdr[canonicalProtocolVersion] = versionHeaders[guessVersion(r)]

	origin, hasOrigin := r.Header["Origin"]
	if hasOrigin && r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		// A CORS preflight: the browser asks before it POSTs.
		if len(origin) != 1 || !h.opts.AllowOrigin(origin[0], r) {
			fail(nil, &Error{Code: CodeInvalidRequest, Message: "Forbidden: Origin not allowed", Status: http.StatusForbidden})
			return
		}
		setCORSHeaders(hdr, origin[0])
		hdr.Set("Access-Control-Allow-Methods", "POST")
		hdr.Set("Access-Control-Allow-Headers", corsAllowHeaders)
		hdr.Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if r.Method != http.MethodPost {
		hdr.Set("Allow", http.MethodPost)
		fail(nil, &Error{Code: CodeInvalidRequest, Message: "Method not allowed: the MCP endpoint accepts POST only", Status: http.StatusMethodNotAllowed})
		return
	}
	if hasOrigin {
		if len(origin) != 1 || !h.opts.AllowOrigin(origin[0], r) {
			fail(nil, &Error{Code: CodeInvalidRequest, Message: "Forbidden: Origin not allowed", Status: http.StatusForbidden})
			return
		}
		setCORSHeaders(hdr, origin[0])
	}

	limit := h.opts.MaxBodyBytes
	if r.ContentLength > limit {
		fail(nil, errBodyTooLarge(limit))
		return
	}
	body, tooLarge, err := readBody(r, limit)
	if tooLarge {
		fail(nil, errBodyTooLarge(limit))
		return
	}
	if err != nil {
		fail(nil, errInvalidRequest("the request body could not be read"))
		return
	}

	ctx, ok := h.auth.Authenticate(w, r)
	if !ok {
		return
	}
	// The body is parsed before the rate limit so the limiter can tell
	// reads from writes (OperationOf, ratelimit.go); its errors are still
	// answered after the limit.
	// The call holds the message, so one allocation serves both.
	c = &call{h: h, w: w, r: r, ctx: ctx}
	var msg *message
	hasMsg, perr := c.msg.decode(body)
	if hasMsg {
		msg = &c.msg
	}
	if obs != nil && msg != nil {
		obs.Method = msg.method
	}
	if h.opts.RateLimiter != nil {
		d := h.limit(ctx, r, h.operation(ctx, msg, perr))
		if d.Limit > 0 {
			setRateHeaders(hdr, d)
		}
		if !d.Allowed {
			hdr.Set("Retry-After", strconv.Itoa(max(d.RetryAfterSeconds, 1)))
			fail(nil, &Error{Code: CodeRateLimited, Message: "Rate limit exceeded; retry after the time in Retry-After", Status: http.StatusTooManyRequests})
			return
		}
	}

	// Notifications and posted responses have no header requirements
	// (docs/decisions.md "Notifications"); every request must declare JSON.
	if msg == nil || !(msg.response || msg.id == nil) {
		if e := checkContentType(r.Header); e != nil {
			fail(nil, e)
			return
		}
	}
	if perr != nil {
		var id []byte
		if msg != nil {
			id = msg.id
		}
		fail(id, perr)
		return
	}
	if msg.response || msg.id == nil {
		// A notification, or a response to a request this server never
		// sends: accepted and ignored, with no header requirements.
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if t := h.opts.Tracer; t != nil {
		c.startTrace(t)
		defer c.endTrace(t)
	}
	defer func() {
		if p := recover(); p != nil {
			h.log.ErrorContext(ctx, "mcp: panic while serving", "method", msg.method, "panic", p)
			fail(msg.id, errInternal())
		}
	}()
	if e := c.detectEra(); e != nil {
		fail(msg.id, e)
		return
	}
	hdr[canonicalProtocolVersion] = versionHeaders[c.version]
	if c.trace != nil {
		c.trace.Era, c.trace.Version = c.era.String(), c.version
	}
	if obs != nil {
		obs.Era, obs.Version = c.era.String(), c.version
		if msg.method == "tools/call" {
			obs.Tool, _, _ = h.calledTool(msg)
		}
	}
	result, e := c.dispatch()
	if e != nil {
		fail(msg.id, e)
		return
	}
	c.writeResult(msg.id, result)
}

// guessVersion is the version written on answers sent before the era is
// known: the client's header when we speak it, else the default.
func guessVersion(r *http.Request) string {
	if v := r.Header[canonicalProtocolVersion]; len(v) == 1 && isSupportedVersion(v[0]) {
		return v[0]
	}
	return DefaultLegacyVersion
}

// call is one request on its way through the handler.
type call struct {
	h   *Handler
	w   http.ResponseWriter
	r   *http.Request
	ctx context.Context
	msg message
	era Era
	// res is the answer of the methods that build one per request, kept
	// here to spare it an allocation of its own.
	res     result
	version string
	caps    ClientCapabilities
	// trace is what a Tracer is told of this call; nil when untraced, so
	// an endpoint without a Tracer makes no room for it.
	trace *Trace
}

func (c *call) request() Request {
	return Request{Version: c.version, Era: c.era, Capabilities: c.caps, clientInfo: c.msg.params.metaClient, Header: c.r.Header, textIndent: c.h.opts.TextIndent}
}
