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
// tool (docs/decisions.md, "Performance of the signed-in path").
func BenchmarkInstrument(b *testing.B) {
	m := observe.NewMetrics()
	log := slog.New(observe.LogHandler{Handler: slog.NewJSONHandler(io.Discard, nil)})
	h := observe.Instrument("inbox", m, log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := mcp.ObservationFrom(r.Context()); o != nil {
			o.Method, o.Era, o.Tool = "tools/call", "2026-07-28", "emails_list"
		}
		w.WriteHeader(http.StatusOK)
	}))
	r := httptest.NewRequest("POST", "/mcp", nil)
	r.Header.Set(observe.RequestIDHeader, "abc-123")
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
