package inbox

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/kobana/kobana-mcp/platform/tracing"
)

// An e-mail received over SMTP is one trace (docs/operating.md "Traces"):
// the session's DATA is its SERVER span, and everything after hangs under
// it — the rows written, the processing job enqueued in the same
// transaction (platform/jobs carries the trace context in the job's
// metadata), the agent's run, the webhook deliveries it emits and their
// HTTP requests.

// startIntake begins the span of one message handed over by SMTP DATA,
// or returns ctx unchanged when tracing is off.
func (s *service) startIntake(ctx context.Context, recipients int) (context.Context, trace.Span) {
	if s.tracer == nil {
		return ctx, trace.SpanFromContext(ctx)
	}
	return s.tracer.Start(ctx, "SMTP DATA", trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
		attribute.String("network.protocol.name", "smtp"),
		attribute.String("network.transport", "tcp"),
		attribute.Int("smtp.to.count", recipients)))
}

// endIntake records what the message became: the e-mails stored (ids),
// or the error that made the session answer a temporary failure.
func endIntake(span trace.Span, got []receivedEmail, err error) {
	if !span.IsRecording() {
		return
	}
	ids := make([]string, 0, len(got))
	duplicates := 0
	for _, r := range got {
		ids = append(ids, r.ID)
		if r.Duplicate {
			duplicates++
		}
	}
	if len(ids) > 0 {
		span.SetAttributes(attribute.StringSlice("inbox.email.ids", ids), attribute.String("inbox.email.id", ids[0]), attribute.Int("inbox.duplicates", duplicates))
	}
	if err != nil {
		span.SetAttributes(attribute.String("error.type", intakeErrorType(err)))
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// intakeErrorType is the class of an intake's failure, for error.type.
func intakeErrorType(err error) string {
	if err == errNoRecipient {
		return "no_recipient"
	}
	return "_OTHER"
}

// tracerOf is the Inbox's tracer, nil when tracing is off.
func tracerOf(tp trace.TracerProvider) trace.Tracer {
	if tp == nil {
		return nil
	}
	return tp.Tracer(tracing.Scope)
}
