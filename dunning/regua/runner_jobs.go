package regua

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/jobs"
)

// The step runner's job: every minute, and when a process becomes the
// leader, one run of the steps that are due (runner.go decides each
// step; runner_slices.go splits a large run).

// RunnerArgs is one run of the step runner.
type RunnerArgs struct{}

// Kind names the job in the queue.
func (RunnerArgs) Kind() string { return "dunning.step_runner" }

type runnerWorker struct {
	river.WorkerDefaults[RunnerArgs]
	n *Notifier
	q *jobs.Queue
}

// Timeout bounds one run; one that runs out of time stops between
// enrollments and the next minute's run goes on.
func (w *runnerWorker) Timeout(*river.Job[RunnerArgs]) time.Duration { return 2 * time.Minute }

// Work runs the due steps, or hands a large run to the slice jobs
// (runner_slices.go).
func (w *runnerWorker) Work(ctx context.Context, _ *river.Job[RunnerArgs]) error {
	return w.n.run(ctx, w.q)
}

// schedule adds the scheduler's periodic jobs: the step runner every
// minute and the sweep every hour, both also when a process becomes the
// leader (a restart catches up at once).
func (n *Notifier) schedule(q *jobs.Queue) {
	q.AddPeriodic(river.PeriodicInterval(time.Minute), func() (river.JobArgs, *river.InsertOpts) { return RunnerArgs{}, nil }, true)
	q.AddPeriodic(ledger.Hourly{Min: 1}, func() (river.JobArgs, *river.InsertOpts) { return sweepArgs{}, nil }, true)
}

// run is one minute's run of the step runner: the due steps of a
// smaller run decided here, in order, as RunDue does; a run that finds a
// full batch due hands the work to the slice jobs.
func (n *Notifier) run(ctx context.Context, q *jobs.Queue) error {
	ids, err := dueEnrollments(ctx, n.DB, n.Clock(), n.RunnerBatch)
	if err != nil {
		return err
	}
	if len(ids) < n.RunnerBatch || q == nil {
		_, err := n.RunDue(ctx)
		return err
	}
	of := n.slices()
	for i := 0; i < of; i++ {
		if _, err := q.Enqueue(ctx, SliceArgs{Slice: i, Of: of}, nil); err != nil {
			return fmt.Errorf("dunning: step runner, slice %d of %d: %w", i, of, err)
		}
	}
	return nil
}
