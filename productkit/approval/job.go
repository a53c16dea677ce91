package approval

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
)

// RunKind is the job kind that runs an approved call (Options.Jobs).
const RunKind = "approval.run"

// runArgs is the job of one approved call: Continuar enqueues it in the
// transaction that moves the approval to approved.
type runArgs struct {
	ApprovalID string `json:"approval_id"`
}

// Kind implements river.JobArgs.
func (runArgs) Kind() string { return RunKind }

// runWorker runs approved calls from the queue (Policy.RunApproved).
type runWorker struct {
	river.WorkerDefaults[runArgs]
	p *Policy
}

// Timeout is RunTimeout with room to record the outcome: fixed per
// policy, as platform/jobs requires.
func (w *runWorker) Timeout(*river.Job[runArgs]) time.Duration {
	return w.p.opts.RunTimeout + 30*time.Second
}

// Work claims and runs the approved call, once. A job that runs again (a
// retry, or River's rescue of the job of a process that died mid-call)
// finds the approval already running or finished, so the call is never
// made twice; a run abandoned by a dead process is marked failed, its
// outcome unknown, once twice RunTimeout has passed (settle).
func (w *runWorker) Work(ctx context.Context, job *river.Job[runArgs]) error {
	id := job.Args.ApprovalID
	if err := w.p.RunApproved(ctx, id); err != nil {
		return err
	}
	a, err := w.p.store.Get(ctx, id)
	if err != nil {
		return err
	}
	if a.Status == StatusRunning && a.StartedAt != nil && w.p.store.clock().Sub(*a.StartedAt) > 2*w.p.opts.RunTimeout {
		_, err = w.p.settle(ctx, a)
	}
	return err
}

// approveAndEnqueue is Continuar with a queue: the move to approved and
// the job that runs the call commit together, so an approved call always
// has a job that any replica's worker may run. False when the approval
// was not pending.
func (p *Policy) approveAndEnqueue(ctx context.Context, id, userID string) (bool, error) {
	var approved bool
	err := p.opts.DB.WithTx(ctx, func(tx *store.Tx) error {
		ok, err := NewStore(tx, p.opts.Now).Approve(ctx, id, userID)
		if err != nil || !ok {
			return err
		}
		approved = true
		if _, err := p.opts.Jobs.EnqueueTx(ctx, tx, runArgs{ApprovalID: id}, nil); err != nil {
			return fmt.Errorf("approval: enqueuing the run: %w", err)
		}
		return nil
	})
	return approved && err == nil, err
}

// enqueue gives the queue an approved call whose job is missing (an
// approval left approved by a process of before the queue ran them, or
// whose runner died before claiming it); one job per approval waits at a
// time.
func (p *Policy) enqueue(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := p.opts.Jobs.Enqueue(ctx, runArgs{ApprovalID: id}, &river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}}); err != nil {
		p.log.Error("approval: enqueuing an approved call", "approval", id, "error", err)
	}
}

// registerJobs adds the run worker to the queue.
func (p *Policy) registerJobs(q *jobs.Queue) { jobs.AddWorker(q, &runWorker{p: p}) }
