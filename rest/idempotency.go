package rest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	encjson "encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/kobana/kobana-mcp/mcp/restbridge"
)

// Idempotency keeps the first response to a write that carries an
// idempotency key and replays it to retries of the same request, so a
// client that lost an answer (a timeout, a dropped connection, a model
// retrying a tool call) can send the write again without doing it twice.
// Set Config.Idempotency to turn it on; package rest stays unaware of
// databases and identities: the implementation names the key space of a
// request (Scope) and stores claims and responses.
//
// A request with a key runs as: Begin claims (scope, key) for the
// request's fingerprint; the operation runs with the context Begin
// returned; Complete stores its response, or Abort releases the claim when
// the response must not be kept. An implementation on a database makes the
// claim, the operation's own writes and the stored response one
// transaction (platform/idempotency): then a write that happened and a
// key that knows it are one fact, whatever crashes in between.
type Idempotency interface {
	// Scope names whose keys a request uses: an organization, say, so two
	// tenants may use the same key independently. "" turns idempotency off
	// for the request (no caller known).
	Scope(r *http.Request) string
	// Begin claims key in scope for a request with fingerprint. It returns
	// a non-nil response to replay when the key's first request finished,
	// or a claim token to pass to Complete or Abort when this request is
	// the first, with the context the operation runs in. A key used with
	// another fingerprint is ErrIdempotencyKeyReused; a key whose first
	// request is still running is ErrIdempotencyKeyInUse.
	Begin(ctx context.Context, scope, key, fingerprint string) (run context.Context, replay *StoredResponse, claim string, err error)
	// Complete stores the response of the claimed request (ctx is Begin's
	// run context). An error means nothing was kept, and with a
	// transactional implementation that the operation's writes did not
	// commit either: the API then answers 503 so the client retries.
	Complete(ctx context.Context, scope, key, claim string, res StoredResponse) error
	// Abort releases the claim and stores nothing: a retry runs afresh. A
	// transactional implementation rolls the operation's writes back too.
	Abort(ctx context.Context, scope, key, claim string) error
}

// IdempotencyVary is implemented by an Idempotency whose requests differ
// by more than method, path, query string and body: the values of these
// headers (a workspace selector, say) are part of every fingerprint, so
// the same key sent for another workspace is a reused key, not a replay.
type IdempotencyVary interface {
	// VaryHeaders names the headers, canonical or not.
	VaryHeaders() []string
}

// StoredResponse is a response kept for replay.
type StoredResponse struct {
	Status int
	Header http.Header
	Body   []byte
}

// Errors an Idempotency's Begin returns; the API answers both 409.
var (
	ErrIdempotencyKeyReused = errors.New("rest: idempotency key already used for another request")
	ErrIdempotencyKeyInUse  = errors.New("rest: idempotency key in use by a request still running")
)

// Idempotency headers and error codes.
const (
	// IdempotencyHeader carries the key; IdempotencyHeaderAlt is the
	// spelling some Kobana documents use, accepted too.
	IdempotencyHeader    = "X-Idempotency-Key"
	IdempotencyHeaderAlt = "Idempotency-Key"
	// ReplayedHeader marks a replayed response ("true").
	ReplayedHeader = "Idempotent-Replayed"
	// MaxIdempotencyKey is the longest key accepted, in bytes.
	MaxIdempotencyKey = 255

	// CodeIdempotencyKeyReused answers a key sent again with another
	// request: the client mixed up its keys, and replaying would hide it.
	CodeIdempotencyKeyReused = "idempotency_key_reused"
	// CodeIdempotencyKeyInUse answers a key whose first request is still
	// running: retrying later gets its response.
	CodeIdempotencyKeyInUse = "idempotency_key_in_use"
)

// replayedHeaders are the response headers kept with a response; the rest
// (rate limits, request ids, dates) belong to each answer.
var replayedHeaders = []string{"Content-Type", "Location", "Etag", "Last-Modified"}

// storable reports whether a response is kept for replay. Successes and
// client errors are (a retry of the same request would get the same
// answer); 401, 403 and 429 are not, since they depend on the credential
// or the moment rather than on the request, and neither is any 5xx, so a
// retry after a server failure can succeed. (Kobana's banking API keeps
// even a 500; we prefer a retry that can work.)
func storable(status int) bool {
	switch {
	case status >= 200 && status < 300:
		return true
	case status == http.StatusUnauthorized, status == http.StatusForbidden, status == http.StatusTooManyRequests:
		return false
	case status >= 400 && status < 500:
		return true
	}
	return false
}

// idempotencyKey reads the request's key: "" when it has none, an error
// when it is unusable.
func idempotencyKey(r *http.Request) (string, *Error) {
	primary, hasPrimary := r.Header[http.CanonicalHeaderKey(IdempotencyHeader)]
	alt, hasAlt := r.Header[http.CanonicalHeaderKey(IdempotencyHeaderAlt)]
	var key, name string
	switch {
	case hasPrimary:
		key, name = strings.Join(primary, ","), IdempotencyHeader
		if hasAlt && strings.Join(alt, ",") != key {
			return "", badKey(IdempotencyHeaderAlt, "differs from "+IdempotencyHeader+": send one of them")
		}
	case hasAlt:
		key, name = strings.Join(alt, ","), IdempotencyHeaderAlt
	default:
		return "", nil
	}
	if key == "" {
		return "", badKey(name, "must not be empty")
	}
	if len(key) > MaxIdempotencyKey {
		return "", badKey(name, "must have at most 255 characters")
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return "", badKey(name, "must be printable ASCII")
		}
	}
	return key, nil
}

func badKey(header, msg string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeValidationFailed, Message: "the idempotency key is invalid",
		Details: []FieldError{{Field: header, Message: msg}}}
}

// fingerprint identifies what a request asks for: the same key may only
// be replayed to the same method, path, query string, body (compared as
// JSON, so key order and spacing do not matter) and selector headers. A
// tool call through the bridge is fingerprinted by the query and body it
// stands for (restbridge.Arguments.Wire), so it and the same request over
// REST share their keys.
func fingerprint(r *http.Request, query string, body []byte, vary []string) string {
	h := sha256.New()
	write := func(parts ...string) {
		for _, p := range parts {
			_, _ = io.WriteString(h, p)
			_, _ = h.Write([]byte{0})
		}
	}
	write(r.Method, r.URL.EscapedPath(), query)
	for _, name := range vary {
		write(name, strings.Join(r.Header.Values(name), ","))
	}
	var v any
	dec := encjson.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if len(bytes.TrimSpace(body)) > 0 && dec.Decode(&v) == nil {
		if canon, err := encjson.Marshal(v); err == nil {
			body = canon
		}
	}
	_, _ = h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// serveIdempotent runs serve for a write under the request's idempotency
// key, if it has one: the first response is stored, a retry gets it back
// with Idempotent-Replayed: true, and a conflicting or concurrent use of
// the key is refused without running anything.
func (a *API) serveIdempotent(w http.ResponseWriter, r *http.Request, args *restbridge.Arguments, serve func(http.ResponseWriter, *http.Request)) {
	idem := a.cfg.Idempotency
	key, e := idempotencyKey(r)
	if e != nil {
		a.WriteError(w, e)
		return
	}
	scope := ""
	if key != "" {
		scope = idem.Scope(r)
	}
	if scope == "" {
		serve(w, r)
		return
	}
	query, body, e := requestParts(r, args, a.cfg.MaxBodyBytes)
	if e != nil {
		a.WriteError(w, e)
		return
	}
	var vary []string
	if v, ok := idem.(IdempotencyVary); ok {
		vary = v.VaryHeaders()
	}
	ctx := r.Context()
	run, replay, claim, err := idem.Begin(ctx, scope, key, fingerprint(r, query, body, vary))
	switch {
	case errors.Is(err, ErrIdempotencyKeyReused):
		a.WriteError(w, &Error{Status: http.StatusConflict, Code: CodeIdempotencyKeyReused,
			Message: "this idempotency key was already used for a different request: use a new key for a new request"})
		return
	case errors.Is(err, ErrIdempotencyKeyInUse):
		a.WriteError(w, &Error{Status: http.StatusConflict, Code: CodeIdempotencyKeyInUse,
			Message: "a request with this idempotency key is still running: retry later to get its response"})
		return
	case err != nil:
		a.fail(ctx, w, &Operation{ID: r.Method + " " + r.URL.Path}, err)
		return
	case replay != nil:
		for k, v := range replay.Header {
			w.Header()[k] = v
		}
		w.Header().Set(ReplayedHeader, "true")
		w.WriteHeader(replay.Status)
		_, _ = w.Write(replay.Body)
		return
	}
	// This request holds the claim: run it into a buffer, keep the answer,
	// then send it, so a client that saw an answer can count on its replay.
	rec := &bufferedResponse{header: http.Header{}}
	done := false
	bg := context.WithoutCancel(run)
	defer func() {
		if !done {
			// serve panicked: free the key for a retry, and let the panic go on.
			_ = idem.Abort(bg, scope, key, claim)
		}
	}()
	serve(rec, r.WithContext(run))
	done = true
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	if storable(rec.status) {
		kept := http.Header{}
		for _, name := range replayedHeaders {
			if v := rec.header.Values(name); len(v) > 0 {
				kept[http.CanonicalHeaderKey(name)] = slices.Clone(v)
			}
		}
		if err := idem.Complete(bg, scope, key, claim, StoredResponse{Status: rec.status, Header: kept, Body: rec.body.Bytes()}); err != nil {
			// Nothing was kept, and the write went with it: say so rather
			// than answer a success that did not commit.
			a.cfg.Logger.ErrorContext(ctx, "rest: committing an idempotent write", "path", r.URL.Path, "error", err)
			a.WriteError(w, &Error{Status: http.StatusServiceUnavailable, Code: CodeUnavailable,
				Message: "the write could not be committed; retry it with the same idempotency key", Header: http.Header{"Retry-After": {"1"}}})
			return
		}
	} else if err := idem.Abort(bg, scope, key, claim); err != nil {
		a.cfg.Logger.ErrorContext(ctx, "rest: releasing an idempotency key", "path", r.URL.Path, "error", err)
	}
	for k, v := range rec.header {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.status)
	_, _ = w.Write(rec.body.Bytes())
}

// requestParts reads what a write's fingerprint covers besides its method
// and path: its query string and body, or for a tool call the query and
// body its arguments stand for. A body read is put back for the handler.
func requestParts(r *http.Request, args *restbridge.Arguments, limit int64) (string, []byte, *Error) {
	if args != nil {
		if int64(len(args.Object)) > limit {
			return "", nil, &Error{Status: http.StatusRequestEntityTooLarge, Code: CodePayloadTooLarge, Message: "the request body is too large"}
		}
		query, body, err := args.Wire()
		if err != nil {
			// Arguments the bridge cannot split are refused by decoding
			// anyway; fingerprint them as they are.
			return "", args.Object, nil
		}
		return query.Encode(), body, nil
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return "", nil, &Error{Status: http.StatusRequestEntityTooLarge, Code: CodePayloadTooLarge, Message: "the request body is too large"}
		}
		return "", nil, &Error{Status: http.StatusBadRequest, Code: CodeBadRequest, Message: "the request body could not be read"}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return r.URL.Query().Encode(), body, nil
}

// bufferedResponse holds a response until it has been stored.
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedResponse) Header() http.Header { return b.header }

func (b *bufferedResponse) WriteHeader(status int) {
	if b.status == 0 {
		b.status = status
	}
}

func (b *bufferedResponse) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}

// idempotencyParameters documents the idempotency headers of a write in
// the OpenAPI document (none for reads, deletes, or an API without
// Idempotency).
func (a *API) idempotencyParameters(method string) []map[string]any {
	if a.cfg.Idempotency == nil || (method != http.MethodPost && method != http.MethodPut && method != http.MethodPatch) {
		return nil
	}
	return []map[string]any{{
		"name": IdempotencyHeader, "in": "header", "required": false,
		"description": "Makes the write safe to retry: the first response (except 401, 403, 429 and 5xx) is kept for 24 hours per organization and key and replayed with Idempotent-Replayed: true; the same key with another request is 409 idempotency_key_reused, and while the first request runs 409 idempotency_key_in_use. Idempotency-Key is accepted too.",
		"schema":      map[string]any{"type": "string", "maxLength": MaxIdempotencyKey, "pattern": "^[\\x20-\\x7E]+$"},
	}}
}
