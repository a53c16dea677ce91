package runtime

import (
	"context"
	"errors"

	"github.com/riverqueue/river"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/tracing"
)

// startRun begins the span of one run of e (docs/operating.md "Traces"):
// a child of the trace context stored with the execution when it was
// created, so the first run, a resume after an approval or an answer and
// a retry are all one trace, the execution's; the job span that carries
// this run (whose own trace is whatever enqueued it: the approval page's
// request, say) is linked. Tool calls, model calls and deliveries made
// by the run hang under it. Outside a trace (tracing off) it returns ctx
// and a span that records nothing.
func startRun(ctx context.Context, jobID int64, e *records.Execution) (context.Context, trace.Span) {
	if !tracing.Recording(ctx) {
		return ctx, trace.SpanFromContext(ctx)
	}
	return tracing.Continue(ctx, deref(e.TraceParent), deref(e.TraceState), "kadu.execution.run",
		attribute.String("kadu.execution.id", e.ID),
		attribute.String("kadu.task.id", e.TaskID),
		attribute.String("kadu.execution.status", e.Status),
		attribute.Int64("kadu.job.id", jobID))
}

// endRun ends a run's span: a snooze (the plan's executions at once are
// running) is flow control, not an error.
func endRun(span trace.Span, err error) {
	if !span.IsRecording() {
		return
	}
	var snooze *river.JobSnoozeError
	if errors.As(err, &snooze) {
		span.SetAttributes(attribute.Bool("kadu.run.snoozed", true))
		err = nil
	}
	tracing.End(span, err, "")
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
