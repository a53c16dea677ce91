package runtime

import (
	"context"
	"errors"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
)

// JobQueue implements jobs.Queued: executions run in a queue of their
// own, so a burst of them never holds the workers of messages, webhooks
// and sends (platform/jobs, queues.go). Fairness between organizations
// is the plan's limit of executions at once (mayStart).
func (RunExecutionArgs) JobQueue() string { return jobs.QueueExecutions }

// quarantinedMessage is the error message of an execution whose job was
// quarantined (platform/jobs, Config.MaxRescues).
const quarantinedMessage = "the worker running this execution stopped twice before finishing (its process died, for example out of memory); it was not run again. Check the workflow's steps and inputs before running it again."

// Quarantined fails the execution whose job kept killing its process,
// with error code worker_crashed, through the runtime's one write path
// (fail), which emits the execution's failure like any other.
func (w *runWorker) Quarantined(ctx context.Context, job *river.Job[RunExecutionArgs], reason string) error {
	e, err := records.ExecutionByID(ctx, w.s.db, job.Args.ExecutionID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if records.IsTerminal(e.Status) {
		return nil
	}
	if err := w.s.fail(ctx, e, reason, quarantinedMessage); err != nil && !errors.Is(err, errStop) {
		return err
	}
	return nil
}

// The runtime's worker fails its execution when quarantined.
var _ jobs.Quarantiner[RunExecutionArgs] = (*runWorker)(nil)
