package approval

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/platform/store"
)

// RunKind is the job kind that runs an approved call (Options.Jobs). A
// queue has one worker of it, Runners', whichever products share the
// queue.
const RunKind = "approval.run"

// runArgs is the job of one approved call: Continuar enqueues it in the
// transaction that moves the approval to approved.
type runArgs struct {
	ApprovalID string `json:"approval_id"`
}

// Kind implements river.JobArgs.
func (runArgs) Kind() string { return RunKind }

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
