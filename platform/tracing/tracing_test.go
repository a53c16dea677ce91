package tracing_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/kobana/kobana-mcp/platform/tracing"
	"github.com/kobana/kobana-mcp/platform/tracing/tracingtest"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// TestEnabled: traces are off unless --otel-traces or
// OTEL_TRACES_EXPORTER=otlp asks for them; OTEL_SDK_DISABLED and
// OTEL_TRACES_EXPORTER=none win over the flag; what the binary cannot
// send (another exporter, another protocol) is refused, not ignored.
func TestEnabled(t *testing.T) {
	t.Parallel()
	cases := []struct {
		on   bool
		env  map[string]string
		want bool
		err  string
	}{
		{false, nil, false, ""},
		{true, nil, true, ""},
		{false, map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true, ""},
		{false, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, false, ""},
		{true, map[string]string{"OTEL_SDK_DISABLED": "true"}, false, ""},
		{false, map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_SDK_DISABLED": "TRUE"}, false, ""},
		{true, map[string]string{"OTEL_TRACES_EXPORTER": "none"}, false, ""},
		{true, map[string]string{"OTEL_SDK_DISABLED": "false"}, true, ""},
		{false, map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, false, "OTEL_TRACES_EXPORTER=zipkin is not supported"},
		{true, map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, false, "OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported"},
		{true, map[string]string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, true, ""},
		{false, map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, false, ""},
	}
	for _, c := range cases {
		got, err := tracing.Settings{On: c.on, Getenv: envOf(c.env)}.Enabled()
		if got != c.want || (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("On=%v %v: got %v, %v; want %v, %q", c.on, c.env, got, err, c.want, c.err)
		}
	}
}

// TestOffBuildsNothing: with tracing off New builds no provider (so no
// exporter: nothing is ever sent), and the helpers add nothing — the
// MCP endpoint gets no tracer, the API no wrapper, a span started
// outside a trace records nothing.
func TestOffBuildsNothing(t *testing.T) {
	t.Parallel()
	p, err := tracing.New(context.Background(), tracing.Settings{Getenv: envOf(nil)})
	if err != nil || p != nil || p.TracerProvider() != nil || p.Shutdown(context.Background()) != nil {
		t.Fatalf("off: provider %v, %v", p, err)
	}
	if tracing.MCP(nil) != nil {
		t.Fatal("an MCP tracer without a provider")
	}
	api := http.NotFoundHandler()
	if _, same := tracing.Routes(nil, api).(http.HandlerFunc); !same {
		t.Fatal("Routes(nil) must be the API itself")
	}
	ctx, span := tracing.Start(context.Background(), "x", trace.SpanKindClient)
	if span.IsRecording() || ctx != context.Background() || tracing.Recording(ctx) {
		t.Fatal("a span outside any trace records")
	}
	if a, b := tracing.Carrier(ctx); a != "" || b != "" {
		t.Fatalf("carrier outside a trace: %q %q", a, b)
	}
}

// TestNewExportsOverOTLP: turned on, New's provider sends its spans over
// OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT, named by OTEL_SERVICE_NAME,
// and Shutdown flushes what is buffered; turned off with the same
// endpoint set, nothing arrives.
//
// Not parallel: the exporter reads its endpoint from the process
// environment (t.Setenv).
func TestNewExportsOverOTLP(t *testing.T) {
	// Not parallel: the OpenTelemetry SDK reads its endpoint from the
	// process's environment (t.Setenv).
	col := tracingtest.NewCollector(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", col.URL)
	t.Setenv("OTEL_SERVICE_NAME", "kobana-test")
	ctx := context.Background()

	off, err := tracing.New(ctx, tracing.Settings{})
	if err != nil || off != nil {
		t.Fatalf("off: %v %v", off, err)
	}
	p, err := tracing.New(ctx, tracing.Settings{On: true, Process: "serve", Version: "1.2.3"})
	if err != nil || p == nil {
		t.Fatalf("on: %v %v", p, err)
	}
	_, span := p.TracerProvider().Tracer("test").Start(ctx, "flushed at shutdown")
	span.End()
	if n := col.Requests(); n != 0 {
		t.Fatalf("%d exports before the batch was due", n)
	}
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := p.Shutdown(sctx); err != nil {
		t.Fatal(err)
	}
	spans := col.Spans(t)
	if len(spans) != 1 || spans[0].Name != "flushed at shutdown" || spans[0].Service != "kobana-test" {
		t.Fatalf("received %+v", spans)
	}
	t.Logf("received:\n%s", tracingtest.Tree(spans))
}
