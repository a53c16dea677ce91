package tracing

import (
	"net/http"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Routes wraps a product's API as the MCP endpoint's tools reach it
// (in-process, mcp/restbridge): a request that arrives inside a recorded
// trace — a tools/call's span, a Kadu run calling another product's tool
// — gets an INTERNAL span named "{method} {route}" (the ServeMux pattern
// the API matched), with http.request.method, http.route and
// http.response.status_code; 5xx answers are errors. Anything else goes
// straight through. Nil tp returns api itself: tracing off adds nothing.
func Routes(tp trace.TracerProvider, api http.Handler) http.Handler {
	if tp == nil {
		return api
	}
	return routes{api}
}

type routes struct{ api http.Handler }

func (rt routes) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, span := Start(r.Context(), r.Method, trace.SpanKindInternal, attribute.String("http.request.method", r.Method))
	if !span.IsRecording() {
		rt.api.ServeHTTP(w, r)
		return
	}
	defer span.End()
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	r = r.WithContext(ctx)
	rt.api.ServeHTTP(sw, r)
	// The API's ServeMux records the pattern it matched on the request it
	// was handed, which is r.
	if r.Pattern != "" {
		route := r.Pattern
		if i := indexSpace(route); i >= 0 {
			route = route[i+1:]
		}
		span.SetName(r.Method + " " + route)
		span.SetAttributes(attribute.String("http.route", route))
	}
	span.SetAttributes(attribute.Int("http.response.status_code", sw.status))
	if sw.status >= 500 {
		span.SetAttributes(attribute.String("error.type", strconv.Itoa(sw.status)))
		span.SetStatus(codes.Error, http.StatusText(sw.status))
	}
}

// indexSpace is where a "METHOD /path" pattern's path begins, less one.
func indexSpace(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' {
			return i
		}
		if s[i] == '/' {
			return -1
		}
	}
	return -1
}

// statusWriter remembers the status the API answered.
type statusWriter struct {
	http.ResponseWriter
	status  int
	written bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.written {
		w.status, w.written = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.written = true
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the writer underneath.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
