package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/kobana/kobana-mcp/platform/tracing"
)

// traceFlags turn OpenTelemetry traces on (platform/tracing,
// docs/operating.md "Traces"): the flag, or the SDK's own
// OTEL_TRACES_EXPORTER=otlp; the exporter's endpoint and the sampler come
// from the SDK's OTEL_* variables.
type traceFlags struct{ on *string }

func addTraceFlags(s *settings) traceFlags {
	return traceFlags{
		on: s.Add("otel-traces", "KOBANA_OTEL_TRACES", "false", "send OpenTelemetry traces over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT (also on with OTEL_TRACES_EXPORTER=otlp; OTEL_SDK_DISABLED=true turns it off)"),
	}
}

// start builds the process's tracer provider, nil when tracing is off.
func (f traceFlags) start(ctx context.Context, process string) (*tracing.Provider, error) {
	var on bool
	switch *f.on {
	case "true":
		on = true
	case "false", "":
	default:
		return nil, fmt.Errorf("--otel-traces must be true or false, not %q", *f.on)
	}
	return tracing.New(ctx, tracing.Settings{On: on, Process: process, Version: version})
}

// traceFlushTimeout bounds the last send of buffered spans at exit, apart
// from the shutdown grace, which the requests and jobs may have spent.
const traceFlushTimeout = 5 * time.Second

// flushTraces sends the spans still buffered, as the process exits.
func flushTraces(p *tracing.Provider, log *slog.Logger) {
	if p == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), traceFlushTimeout)
	defer cancel()
	if err := p.Shutdown(ctx); err != nil {
		log.Error("shutdown: traces not flushed", "error", err)
	}
}
