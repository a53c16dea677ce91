package jobs

import (
	"context"
	"encoding/json"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/riverqueue/rivercontrib/otelriver"
	"go.opentelemetry.io/otel/trace"

	"github.com/kobana/kobana-mcp/platform/tracing"
)

// Jobs are traced by River's own OpenTelemetry middleware (otelriver): a
// river.insert_many PRODUCER span where a job is enqueued, which writes
// its W3C trace context (traceparent, tracestate) into the job's
// metadata, committed with the job; a river.work/<kind> CONSUMER span per
// attempt, which links to it. otelriver starts each attempt as a trace of
// its own; the project wants one request, one e-mail, one execution to be
// one trace across its jobs (docs/decisions.md "Traces"), so workParent,
// outside it, makes the enqueuer's context the attempt's parent. The
// metadata travels with the row, so the trace crosses processes: a job
// enqueued by serve --jobs=off and worked by `kobana-mcp worker` is in
// the trace that enqueued it, and so is every retry.

// middleware is the River middleware of q, outermost first.
func (q *Queue) middleware() []rivertype.Middleware {
	observe := river.WorkerMiddlewareFunc(q.observeAttempt)
	stamp := river.JobInsertMiddlewareFunc(stampOrganizations)
	if q.cfg.Tracer == nil {
		return []rivertype.Middleware{stamp, observe}
	}
	return []rivertype.Middleware{
		stamp,
		river.WorkerMiddlewareFunc(workParent),
		otelriver.NewMiddleware(&otelriver.MiddlewareConfig{
			TracerProvider:              q.cfg.Tracer,
			EnableTracePropagation:      true,
			EnableWorkSpanJobKindSuffix: true,
		}),
		observe,
	}
}

// traceMetadata is the trace context otelriver leaves in a job's metadata.
type traceMetadata struct {
	TraceParent string `json:"traceparent"`
	TraceState  string `json:"tracestate"`
}

// workParent works job under the trace context in its metadata, so the
// attempt's span is a child of the span that enqueued it.
func workParent(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	var m traceMetadata
	if len(job.Metadata) == 0 || json.Unmarshal(job.Metadata, &m) != nil || m.TraceParent == "" {
		return doInner(ctx)
	}
	if sc := tracing.Remote(m.TraceParent, m.TraceState); sc.IsValid() {
		ctx = trace.ContextWithRemoteSpanContext(ctx, sc)
	}
	return doInner(ctx)
}
