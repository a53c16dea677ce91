// Package tracing follows one request, one job or one Kadu execution
// through the process — MCP request, in-process REST route, database,
// jobs, outbound calls — as OpenTelemetry traces sent to an OTLP/HTTP
// collector (docs/operating.md "Traces"). Tracing is off by default; off,
// nothing here is built and every helper returns at once.
//
// Nothing is set globally: the process's TracerProvider travels in the
// settings of what starts a trace (the MCP endpoints, the job queue, the
// Inbox's SMTP intake, the database), and everything below a span finds
// the provider in the span (Start, NewTransport). Tests run traced
// products side by side, each with its own provider.
package tracing

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Scope is the instrumentation scope of the spans this project makes.
const Scope = "github.com/kobana/kobana-mcp"

// DefaultServiceName is service.name when OTEL_SERVICE_NAME does not
// name one.
const DefaultServiceName = "kobana-mcp"

// Settings decide whether and how a process traces.
type Settings struct {
	// On is the --otel-traces setting: traces are exported even when
	// OTEL_TRACES_EXPORTER is unset.
	On bool
	// Process is the command ("serve", "worker"), recorded on every span's
	// resource as kobana.process.
	Process string
	// Version is the binary's version (service.version), when known.
	Version string
	// Getenv reads the environment (nil: os.Getenv); tests give their own.
	Getenv func(string) string
}

// Enabled tells whether s turns tracing on, by the OpenTelemetry SDK's
// environment conventions with --otel-traces beside them:
// OTEL_SDK_DISABLED=true turns it off whatever else is set;
// OTEL_TRACES_EXPORTER=none turns it off, =otlp on; otherwise On decides.
// Any other exporter, or an OTLP protocol other than http/protobuf, is an
// error: the binary carries only the OTLP/HTTP exporter, and a setting it
// would silently ignore is worse than a refusal to start.
func (s Settings) Enabled() (bool, error) {
	get := s.getenv()
	if strings.EqualFold(strings.TrimSpace(get("OTEL_SDK_DISABLED")), "true") {
		return false, nil
	}
	on := s.On
	for _, e := range strings.Split(get("OTEL_TRACES_EXPORTER"), ",") {
		switch e = strings.TrimSpace(e); e {
		case "":
		case "otlp":
			on = true
		case "none":
			return false, nil
		default:
			return false, fmt.Errorf("OTEL_TRACES_EXPORTER=%s is not supported: only otlp (OTLP over HTTP) or none", e)
		}
	}
	if !on {
		return false, nil
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if p := strings.TrimSpace(get(name)); p != "" {
			if p != "http/protobuf" {
				return false, fmt.Errorf("%s=%s is not supported: traces are sent as http/protobuf", name, p)
			}
			break
		}
	}
	return true, nil
}

func (s Settings) getenv() func(string) string {
	if s.Getenv != nil {
		return s.Getenv
	}
	return os.Getenv
}

// Provider is the process's tracer provider and its OTLP exporter. A nil
// *Provider is tracing turned off: its methods answer nil and do nothing.
type Provider struct {
	tp *sdktrace.TracerProvider
}

// New builds the provider s asks for, or returns nil when tracing is
// off. The exporter reads OTEL_EXPORTER_OTLP_ENDPOINT,
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, their headers, timeout and
// certificates itself; the sampler comes from OTEL_TRACES_SAMPLER and
// OTEL_TRACES_SAMPLER_ARG (default: parentbased_always_on); the resource
// from OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES.
func New(ctx context.Context, s Settings) (*Provider, error) {
	on, err := s.Enabled()
	if err != nil || !on {
		return nil, err
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("tracing: the OTLP exporter: %w", err)
	}
	return &Provider{tp: sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(s.resource(ctx)))}, nil
}

// resource describes the process: ours first, so the environment's
// (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) override it.
func (s Settings) resource(ctx context.Context) *resource.Resource {
	attrs := []attribute.KeyValue{attribute.String("service.name", DefaultServiceName)}
	if s.Version != "" {
		attrs = append(attrs, attribute.String("service.version", s.Version))
	}
	if s.Process != "" {
		attrs = append(attrs, attribute.String("kobana.process", s.Process))
	}
	res, err := resource.New(ctx, resource.WithAttributes(attrs...), resource.WithTelemetrySDK(), resource.WithFromEnv())
	if err != nil && res == nil {
		// A malformed OTEL_RESOURCE_ATTRIBUTES: keep ours.
		return resource.NewSchemaless(attrs...)
	}
	return res
}

// TracerProvider is what the traced parts are given; nil when p is nil.
func (p *Provider) TracerProvider() trace.TracerProvider {
	if p == nil {
		return nil
	}
	return p.tp
}

// Shutdown sends the spans still buffered and stops the exporter, within
// ctx: the last thing a process does before it exits.
func (p *Provider) Shutdown(ctx context.Context) error {
	if p == nil {
		return nil
	}
	err := p.tp.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("tracing: spans still unsent when the shutdown grace ended: %w", err)
	}
	return err
}

// propagator reads and writes W3C trace context (traceparent,
// tracestate): in HTTP headers, in MCP's params._meta, in a job's
// metadata and in a Kadu execution's row.
var propagator = propagation.TraceContext{}
