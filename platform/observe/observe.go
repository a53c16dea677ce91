// Package observe makes the servers operable: a request id on every
// request and response, an access log line per request that never holds a
// secret, Prometheus metrics (served on their own listener) and the health
// endpoints load balancers and orchestrators probe.
package observe

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/httpx"
)

// RequestIDHeader carries the request id, in and out.
const RequestIDHeader = "X-Request-Id"

type requestIDKey struct{}

// RequestID returns the id of the request ctx belongs to, or "".
func RequestID(ctx context.Context) string {
	if st, ok := ctx.Value(requestIDKey{}).(*requestState); ok {
		return st.id
	}
	return ""
}

// requestState is what Instrument keeps for one request, in one
// allocation: the request's context (requestState is the context the
// request goes on with, answering RequestID itself, so no context.WithValue
// is made for it), the id and the header value holding it, the MCP
// observation and the status writer.
type requestState struct {
	context.Context
	id       string
	idHeader [1]string
	obs      mcp.Observation
	sw       httpx.StatusWriter
}

// Value implements context.Context.
func (st *requestState) Value(key any) any {
	if key == (requestIDKey{}) {
		return st
	}
	return st.Context.Value(key)
}

// validRequestID accepts an incoming id a proxy set, when it is short and
// plain; anything else is replaced, so a log line cannot be forged through
// the header.
func validRequestID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// LogHandler adds the request id of the record's context to every log
// line, so a line from deep inside a request can be found from the id a
// client reports.
//
// With a Buffer (the LogWriter the handler writes to), a line at Warn or
// above is written at once, with every line before it.
type LogHandler struct {
	slog.Handler
	Buffer *LogWriter
}

// Handle implements slog.Handler.
func (h LogHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := RequestID(ctx); id != "" && !hasRequestID(r) {
		r.AddAttrs(slog.String("request_id", id))
	}
	err := h.Handler.Handle(ctx, r)
	if h.Buffer != nil && r.Level >= slog.LevelWarn {
		if ferr := h.Buffer.Flush(); err == nil {
			err = ferr
		}
	}
	return err
}

// hasRequestID reports whether the record carries its request id already
// (the access line adds it among its own attributes, saving the record a
// second allocation).
func hasRequestID(r slog.Record) bool {
	found := false
	r.Attrs(func(a slog.Attr) bool {
		found = a.Key == "request_id"
		return !found
	})
	return found
}

// WithAttrs implements slog.Handler.
func (h LogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return LogHandler{h.Handler.WithAttrs(attrs), h.Buffer}
}

// WithGroup implements slog.Handler.
func (h LogHandler) WithGroup(name string) slog.Handler {
	return LogHandler{h.Handler.WithGroup(name), h.Buffer}
}

// Instrument wraps one product listener: it assigns the request id, asks
// the MCP endpoint what each request was (mcp.Observation), records the
// metrics and writes one access log line. The line holds method, path,
// status, duration and the MCP method and tool — never headers, query
// strings or bodies, so no token, password, secret or e-mail body reaches
// a log.
//
// With a logger serve builds (--log-format json or text), the line is
// encoded by observe itself, to the same bytes (accessline.go,
// textline.go); any other logger gets it through slog.
func Instrument(product string, m *Metrics, log *slog.Logger, next http.Handler) http.Handler {
	direct := lineOut(log)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		st := &requestState{Context: r.Context()}
		// The header's key is canonical: read and set it as Header.Get
		// and Header.Set would, without a slice made for the value.
		if v := r.Header[RequestIDHeader]; len(v) > 0 && validRequestID(v[0]) {
			st.id = v[0]
		} else {
			st.id = newRequestID()
		}
		st.idHeader[0] = st.id
		w.Header()[RequestIDHeader] = st.idHeader[:]
		var ctx context.Context = st
		var obs *mcp.Observation
		if r.URL.Path == "/mcp" {
			obs = &st.obs
			ctx = mcp.WithObservation(ctx, obs)
		}
		sw := &st.sw
		sw.ResponseWriter = w
		next.ServeHTTP(sw, r.WithContext(ctx))
		end := time.Now()
		status := sw.Status
		if status == 0 {
			status = http.StatusOK
		}
		elapsed := end.Sub(start)
		route := routeOf(r.URL.Path)
		if m != nil {
			m.observeHTTP(product, route, status, elapsed)
			if obs != nil {
				m.observeMCP(product, obs, status, elapsed)
			}
		}
		level := slog.LevelInfo
		if status >= 500 {
			level = slog.LevelError
		}
		if !log.Enabled(ctx, level) {
			return // nothing formatted for a line no one keeps
		}
		// At most eleven attributes, in an array on the stack.
		var buf [11]slog.Attr
		attrs := append(buf[:0],
			slog.String("product", product), slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", status), slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000),
		)
		if obs != nil && obs.Method != "" {
			attrs = append(attrs, slog.String("mcp_method", obs.Method), slog.String("mcp_era", obs.Era), slog.String("outcome", obs.Outcome()))
			if obs.Tool != "" {
				attrs = append(attrs, slog.String("tool", obs.Tool))
			}
			if obs.ErrorCode != 0 {
				attrs = append(attrs, slog.Int("rpc_error", obs.ErrorCode))
			}
		}
		attrs = append(attrs, slog.String("request_id", st.id))
		if direct != nil && direct.write(end, level, "request", attrs) {
			// What LogHandler.Handle does after a line at Warn or above.
			if level >= slog.LevelWarn {
				_ = direct.out.Flush()
			}
			return
		}
		log.LogAttrs(ctx, level, "request", attrs...)
	})
}

// routeOf reduces a path to a few route families, so metric labels stay
// few whatever ids the paths carry.
func routeOf(path string) string {
	switch {
	case path == "/mcp":
		return "mcp"
	case strings.HasPrefix(path, "/api/") || strings.HasPrefix(path, "/v1/"):
		return "api"
	case strings.HasPrefix(path, "/.well-known/"):
		return "well-known"
	case path == "/authorize" || path == "/token" || path == "/revoke" || path == "/register" || strings.HasPrefix(path, "/oauth/"):
		return "oauth"
	case path == "/healthz" || path == "/readyz":
		return "health"
	}
	return "other"
}

var statusClasses = [...]string{"0xx", "1xx", "2xx", "3xx", "4xx", "5xx"}

func statusClass(status int) string {
	if c := status / 100; c >= 0 && c < len(statusClasses) {
		return statusClasses[c]
	}
	return strconv.Itoa(status/100) + "xx"
}
