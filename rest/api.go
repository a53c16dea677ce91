package rest

import (
	"bytes"
	"context"
	encjson "encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"sync"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
)

// Operation is the one declaration of an API operation.
type Operation struct {
	// ID is the operationId and the MCP tool's name ("emails_list").
	ID string
	// Method and Path place the route; Path is relative to the API's
	// BasePath and uses {name} path parameters ("/emails/{id}").
	Method string
	Path   string
	// Title is the short display name; Summary and Description explain the
	// operation to people reading the OpenAPI document and to models.
	Title       string
	Summary     string
	Description string
	Tags        []string
	// Requires names the scopes and the permission the caller needs. The
	// API checks it on every request (Authorize); the MCP catalog uses it to
	// list and guard the tool.
	Requires mcp.Requirement
	// Annotations are the tool's behaviour hints. All four hints must be
	// set: a missing one would fall back to the spec's pessimistic default
	// silently.
	Annotations mcp.ToolAnnotations
	// RESTOnly keeps the operation out of the MCP catalog (a raw file
	// download, say: files never travel through MCP).
	RESTOnly bool
	// ConsumesConfirmation says the handler of this destructive operation
	// consumes the MCP confirmation's nonce (mcp.ConfirmationFrom) in the
	// same database transaction as its write, and calls Replayed when the
	// nonce was used (mcp.Tool.ConsumesConfirmation). Without it the MCP
	// endpoint consumes the nonce just before dispatching.
	ConsumesConfirmation bool
}

// Config configures an API.
type Config struct {
	// Title and Version describe the API in its OpenAPI document.
	Title   string
	Version string
	// BasePath prefixes every route ("/api/v1").
	BasePath string
	// Errors shapes error bodies (default DefaultErrors).
	Errors ErrorRenderer
	// Authorize checks a request against an operation's requirement before
	// its handler runs, and may return the request with the caller's
	// identity in its context; nil allows everything. Return an *Error
	// (401, 403 or 404) to refuse.
	Authorize func(r *http.Request, op *Operation) (*http.Request, *Error)
	// MaxBodyBytes caps request bodies (default 1 MiB).
	MaxBodyBytes int64
	// Logger receives handler failures (never sent to clients).
	Logger *slog.Logger
	// Idempotency, when set, keeps the first response to a POST, PUT or
	// PATCH that carries X-Idempotency-Key (or Idempotency-Key) and replays
	// it to retries (see Idempotency); nil ignores the header.
	Idempotency Idempotency
}

// API is a set of operations served as REST and mirrored as MCP tools.
type API struct {
	cfg Config
	mux *http.ServeMux
	ops []*registered
}

type registered struct {
	op    Operation
	input *inputSpec // nil for raw operations
	// describes: declared with HandleConfirmed, so the MCP tool asks the
	// operation itself what a call will do.
	describes bool
}

// New returns an empty API. Its OpenAPI document is served at
// BasePath + "/openapi.json".
func New(cfg Config) *API {
	if cfg.Errors == nil {
		cfg.Errors = DefaultErrors
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 1 << 20
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	a := &API{cfg: cfg, mux: http.NewServeMux()}
	a.mux.HandleFunc("GET "+cfg.BasePath+"/openapi.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(a.OpenAPI())
	})
	a.mux.HandleFunc(cfg.BasePath+"/", func(w http.ResponseWriter, r *http.Request) {
		a.WriteError(w, &Error{Status: http.StatusNotFound, Code: CodeNotFound, Message: "no such route"})
	})
	return a
}

// ServeHTTP routes to the operation's handler. Unknown routes and methods
// answer in the API's own error shape.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) { a.mux.ServeHTTP(w, r) }

// Handler is an operation's typed handler: it receives the validated input
// and answers a Response or an error (an *Error is shown to the caller,
// anything else is logged and answered 500).
type Handler[In any] func(ctx context.Context, in *In) (*Response, error)

// Describe says what a call of a destructive operation is about to do, for
// the person to confirm it, naming the target: "Delete workspace 'Billing'
// (external id billing)? … This cannot be undone." It receives the
// validated input with the caller's identity in ctx, exactly as the handler
// would, and looks the target up. It returns the error the handler would
// (NotFound for a target the caller cannot see, Validation, Conflict) when
// the call cannot go ahead; the MCP tool then answers that error, asks
// nothing and runs nothing.
type Describe[In any] func(ctx context.Context, in *In) (string, error)

// Handle declares an operation with a typed, validated input.
func Handle[In any](a *API, op Operation, fn Handler[In]) {
	handle(a, op, nil, fn)
}

// HandleConfirmed declares a destructive operation whose MCP tool asks the
// person to confirm with describe's message (mcp.Tool.Confirm). Over REST it
// is Handle: an API client answers for its own confirmation.
func HandleConfirmed[In any](a *API, op Operation, describe Describe[In], fn Handler[In]) {
	if describe == nil {
		panic(fmt.Sprintf("rest: operation %s: HandleConfirmed needs a Describe", op.ID))
	}
	handle(a, op, describe, fn)
}

func handle[In any](a *API, op Operation, describe Describe[In], fn Handler[In]) {
	typ := reflect.TypeFor[In]()
	spec, err := analyseInput(typ, op.Method)
	if err != nil {
		panic(fmt.Sprintf("rest: operation %s: %v", op.ID, err))
	}
	reg := a.register(op, spec)
	reg.describes = describe != nil
	hasBody := op.Method == http.MethodPost || op.Method == http.MethodPut || op.Method == http.MethodPatch
	a.mux.HandleFunc(op.Method+" "+a.cfg.BasePath+op.Path, func(w http.ResponseWriter, r *http.Request) {
		r, e := a.authorize(r, &reg.op)
		if e != nil {
			a.WriteError(w, e)
			return
		}
		// A tool call through the bridge hands over its arguments object,
		// read once by decodeArguments; any other request is decoded from
		// its path, query string and body.
		args := restbridge.ArgumentsFrom(r)
		if hasBody && args == nil {
			r.Body = http.MaxBytesReader(w, r.Body, a.cfg.MaxBodyBytes)
		}
		serve := func(w http.ResponseWriter, r *http.Request) {
			in := new(In)
			var e *Error
			if args != nil {
				if hasBody && int64(len(args.Object)) > a.cfg.MaxBodyBytes {
					e = errTooLarge(a.cfg.MaxBodyBytes)
				} else {
					e = spec.decodeArguments(r, args, hasBody, in)
				}
			} else {
				e = spec.decode(r, hasBody, in)
			}
			if e != nil {
				a.WriteError(w, e)
				return
			}
			r = r.WithContext(withRequest(r.Context(), r))
			if restbridge.Describing(r.Context()) {
				describeCall(a, w, r, &reg.op, describe, in)
				return
			}
			res, err := fn(r.Context(), in)
			if err != nil {
				a.fail(w, r, &reg.op, err)
				return
			}
			a.WriteResponse(w, res)
		}
		// A describing request runs nothing, so it stores nothing either.
		if hasBody && a.cfg.Idempotency != nil && !restbridge.Describing(r.Context()) {
			a.serveIdempotent(w, r, args, serve)
			return
		}
		serve(w, r)
	})
}

// HandleRaw declares an operation whose handler reads the request itself
// (a file download). It is REST-only and has no input schema.
func HandleRaw(a *API, op Operation, fn http.HandlerFunc) {
	op.RESTOnly = true
	reg := a.register(op, nil)
	a.mux.HandleFunc(op.Method+" "+a.cfg.BasePath+op.Path, func(w http.ResponseWriter, r *http.Request) {
		if restbridge.Describing(r.Context()) {
			a.WriteError(w, errCannotDescribe(&reg.op))
			return
		}
		r, e := a.authorize(r, &reg.op)
		if e != nil {
			a.WriteError(w, e)
			return
		}
		fn(w, r)
	})
}

// describeCall answers a describing request (restbridge.Describer) without
// running the operation: {"confirm_message": "…"}, or the error describe
// returned. An operation declared without a Describe refuses: running it
// would do what the person has not confirmed yet.
func describeCall[In any](a *API, w http.ResponseWriter, r *http.Request, op *Operation, fn Describe[In], in *In) {
	if fn == nil {
		a.WriteError(w, errCannotDescribe(op))
		return
	}
	msg, err := fn(r.Context(), in)
	if err != nil {
		a.fail(w, r, op, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{restbridge.DescribeMessageMember: msg})
}

func errCannotDescribe(op *Operation) *Error {
	return &Error{Status: http.StatusInternalServerError, Code: CodeInternal, Message: "operation " + op.ID + " cannot describe a call"}
}

func (a *API) register(op Operation, spec *inputSpec) *registered {
	if op.ID == "" || op.Method == "" || !strings.HasPrefix(op.Path, "/") {
		panic(fmt.Sprintf("rest: operation %q needs an ID, a method and a path starting with /", op.ID))
	}
	if !op.RESTOnly {
		an := op.Annotations
		if an.ReadOnlyHint == nil || an.DestructiveHint == nil || an.IdempotentHint == nil || an.OpenWorldHint == nil {
			panic(fmt.Sprintf("rest: operation %s must set all four annotations explicitly", op.ID))
		}
	}
	for _, r := range a.ops {
		if r.op.ID == op.ID {
			panic(fmt.Sprintf("rest: operation %s is declared twice", op.ID))
		}
	}
	reg := &registered{op: op, input: spec}
	a.ops = append(a.ops, reg)
	return reg
}

func (a *API) authorize(r *http.Request, op *Operation) (*http.Request, *Error) {
	if a.cfg.Authorize == nil {
		return r, nil
	}
	return a.cfg.Authorize(r, op)
}

func (a *API) fail(w http.ResponseWriter, r *http.Request, op *Operation, err error) {
	if e, ok := err.(*Error); ok {
		a.WriteError(w, e)
		return
	}
	a.cfg.Logger.ErrorContext(r.Context(), "rest: operation failed", "operation", op.ID, "error", err)
	a.WriteError(w, &Error{Status: http.StatusInternalServerError, Code: CodeInternal, Message: "internal error"})
}

// WriteError writes e in the API's error shape, with its headers.
func (a *API) WriteError(w http.ResponseWriter, e *Error) {
	for k, v := range e.Header {
		w.Header()[k] = v
	}
	writeJSON(w, e.Status, a.cfg.Errors(e))
}

// WriteResponse writes a successful answer.
func (a *API) WriteResponse(w http.ResponseWriter, res *Response) {
	if res == nil {
		res = NoContent()
	}
	for k, v := range res.Header {
		w.Header()[k] = v
	}
	if res.Status == http.StatusNoContent || res.Body == nil {
		w.WriteHeader(res.Status)
		return
	}
	writeJSON(w, res.Status, res.Body)
}

// jsonWriter is a pooled buffer and the encoder writing into it.
type jsonWriter struct {
	buf bytes.Buffer
	enc *encjson.Encoder
}

var jsonWriters = sync.Pool{New: func() any {
	jw := &jsonWriter{}
	jw.enc = encjson.NewEncoder(&jw.buf)
	jw.enc.SetEscapeHTML(false)
	return jw
}}

func writeJSON(w http.ResponseWriter, status int, body any) {
	jw := jsonWriters.Get().(*jsonWriter)
	defer func() {
		if jw.buf.Cap() <= 1<<20 {
			jw.buf.Reset()
			jsonWriters.Put(jw)
		}
	}()
	if err := jw.enc.Encode(body); err != nil {
		status = http.StatusInternalServerError
		jw.buf.Reset()
		jw.buf.WriteString(`{"error":{"code":"internal_error","message":"internal error"}}`)
	}
	b := bytes.TrimRight(jw.buf.Bytes(), "\n")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
