package tracing

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Start begins a span under the span in ctx, with that span's provider:
// what a foundation does for a step worth seeing (an SMTP send, a model
// call) without being handed a provider. With no recording span in ctx —
// tracing off, or a step outside any trace — it returns ctx and that
// non-recording span at once, allocating nothing.
func Start(ctx context.Context, name string, kind trace.SpanKind, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return ctx, parent
	}
	return parent.TracerProvider().Tracer(Scope).Start(ctx, name, trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
}

// Recording tells whether ctx is inside a recorded trace.
func Recording(ctx context.Context) bool {
	return trace.SpanFromContext(ctx).IsRecording()
}

// End ends span, recording err (nil: success) as the span's error:
// error.type is the error's class when the caller gives one, and the
// status carries the message.
func End(span trace.Span, err error, errorType string) {
	if err != nil && span.IsRecording() {
		if errorType == "" {
			errorType = "_OTHER"
		}
		span.SetAttributes(attribute.String("error.type", errorType))
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// Carrier is the W3C trace context of ctx's span, for storing with what
// outlives the request (a Kadu execution's row): "" and "" outside a
// trace.
func Carrier(ctx context.Context) (traceparent, tracestate string) {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return "", ""
	}
	c := propagation.MapCarrier{}
	propagator.Inject(ctx, c)
	return c["traceparent"], c["tracestate"]
}

// Remote is the span context a stored traceparent and tracestate name
// (Carrier's), invalid when traceparent is empty or malformed.
func Remote(traceparent, tracestate string) trace.SpanContext {
	if traceparent == "" {
		return trace.SpanContext{}
	}
	c := propagation.MapCarrier{"traceparent": traceparent}
	if tracestate != "" {
		c["tracestate"] = tracestate
	}
	return trace.SpanContextFromContext(propagator.Extract(context.Background(), c))
}

// Continue begins, under the stored trace context (traceparent,
// tracestate), a span of a long-lived unit of work that spans several
// jobs — a Kadu execution run after run — so that each run is part of the
// trace the unit began in; the span in ctx (the job that carries this
// run) is linked. Without a stored context, or with no recording span in
// ctx, it is Start.
func Continue(ctx context.Context, traceparent, tracestate, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	current := trace.SpanFromContext(ctx)
	if !current.IsRecording() {
		return ctx, current
	}
	stored := Remote(traceparent, tracestate)
	if !stored.IsValid() || stored.TraceID() == current.SpanContext().TraceID() {
		return Start(ctx, name, trace.SpanKindInternal, attrs...)
	}
	parent := trace.ContextWithRemoteSpanContext(ctx, stored)
	return current.TracerProvider().Tracer(Scope).Start(parent, name,
		trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithLinks(trace.Link{SpanContext: current.SpanContext(), Attributes: []attribute.KeyValue{attribute.String("kobana.link", "job")}}),
		trace.WithAttributes(attrs...))
}
