package observe_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/observe"
)

// BenchmarkInstrument is the access log line and the metrics of one MCP
// request, around a handler that does nothing but report its method and
// tool (docs/performance.md, "Identity read cache").
func BenchmarkInstrument(b *testing.B) {
	log := slog.New(observe.LogHandler{Handler: slog.NewJSONHandler(io.Discard, nil)})
	benchInstrument(b, log, "abc-123")
}

// BenchmarkInstrumentServe is the same request with the logger serve
// builds (cmd/kobana-mcp/serve.go): slog's JSON or text handler writing
// to a LogWriter, the LogHandler around it, and no incoming request id, so
// one is made.
func BenchmarkInstrumentServe(b *testing.B) {
	for _, format := range []string{"json", "text"} {
		b.Run(format, func(b *testing.B) {
			out := observe.NewLogWriter(io.Discard, 0)
			defer out.Close()
			var h slog.Handler = slog.NewTextHandler(out, nil)
			if format == "json" {
				h = slog.NewJSONHandler(out, nil)
			}
			benchInstrument(b, slog.New(observe.LogHandler{Handler: h, Buffer: out}), "")
		})
	}
}

func benchInstrument(b *testing.B, log *slog.Logger, requestID string) {
	m := observe.NewMetrics()
	h := observe.Instrument("inbox", m, log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := mcp.ObservationFrom(r.Context()); o != nil {
			o.Method, o.Era, o.Tool = "tools/call", "2026-07-28", "emails_list"
		}
		w.WriteHeader(http.StatusOK)
	}))
	r := httptest.NewRequest("POST", "/mcp", nil)
	if requestID != "" {
		r.Header.Set(observe.RequestIDHeader, requestID)
	}
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(w, r)
	}
}

type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardWriter) WriteHeader(int)             {}
