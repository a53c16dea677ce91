package regua

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// The step runner at scale (docs/decisions.md "The step runner at
// scale"): one minute's run that finds more due steps than one batch does
// not work through them alone in one job of one process. It hands them
// to RunnerSlices slice jobs, each taking the due enrollments whose id
// ends in its share of the hexadecimal digits (the random tail of a UUID
// v7), so every worker process takes slices and no two slices ever read
// the same enrollment. Each step is still decided in its own transaction
// with the locks and the unique (enrollment, step) row of runner.go, so a
// slice that overlaps another run (the next minute's, a second replica's)
// cannot send a step twice.

// SliceArgs is one slice of the step runner's work: the due enrollments
// whose id's last digit d has d mod Of == Slice.
type SliceArgs struct {
	Slice int `json:"slice"`
	Of    int `json:"of"`
}

// Kind names the job in the queue.
func (SliceArgs) Kind() string { return "dunning.step_runner_slice" }

// InsertOpts keeps one pending job per slice: the next minute's run
// finding a slice still queued, running or snoozed adds nothing. A slice
// comes after the sends (and the webhooks) of the same queue
// (slicePriority).
func (SliceArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Priority: slicePriority, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: []rivertype.JobState{
		rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
		rivertype.JobStateRetryable, rivertype.JobStateScheduled}}}
}

type sliceWorker struct {
	river.WorkerDefaults[SliceArgs]
	n *Notifier
}

// sliceBudget is how long one run of a slice job works before it snoozes
// and goes back to the queue: short, so that the sends its steps queued
// (ahead of it by slicePriority) take its worker before it runs again —
// the slices share QueueDefault's few workers of each process with the
// sends, and a million steps written before the first send would leave a
// million messages waiting in the outbox — and so a stop of the process
// (a deploy) waits for little.
const sliceBudget = 5 * time.Second

// slicePriority is River's priority of the slice jobs: after the sends,
// webhooks and schedules (priority 1) waiting in the same queue.
const slicePriority = 2

// Timeout bounds one run; sliceBudget ends it well before.
func (w *sliceWorker) Timeout(*river.Job[SliceArgs]) time.Duration { return 2 * time.Minute }

// Work runs the slice's due steps for sliceBudget, then snoozes (River
// runs it again without spending an attempt) if some are left.
func (w *sliceWorker) Work(ctx context.Context, job *river.Job[SliceArgs]) error {
	more, err := w.n.runSlice(ctx, job.Args, time.Now().Add(sliceBudget))
	if err != nil || !more {
		return err
	}
	return river.JobSnooze(0)
}

// defaultRunnerSlices is how many slice jobs a large run is split into:
// a divisor of 16, and more than the worker processes a deployment runs,
// so each of them takes some.
const defaultRunnerSlices = 8

// slices is the notifier's slice count, a divisor of 16.
func (n *Notifier) slices() int {
	switch n.RunnerSlices {
	case 1, 2, 4, 8, 16:
		return n.RunnerSlices
	}
	return defaultRunnerSlices
}

// runSlice decides the due steps of one slice until none is left (false)
// or until deadline passes with some left (true).
func (n *Notifier) runSlice(ctx context.Context, s SliceArgs, deadline time.Time) (bool, error) {
	digits := sliceDigits(s.Slice, s.Of)
	var after dueCursor
	for {
		_, read, err := n.runDueBatch(ctx, digits, &after)
		if err != nil {
			return true, fmt.Errorf("dunning: step runner slice %d/%d: %w", s.Slice, s.Of, err)
		}
		if read == 0 {
			return false, nil
		}
		if time.Now().After(deadline) {
			return true, nil
		}
	}
}

// sliceDigits are the lower-case hexadecimal digits d with d mod of ==
// slice: the last characters of the enrollment ids the slice takes.
func sliceDigits(slice, of int) []string {
	const hex = "0123456789abcdef"
	var out []string
	for d := slice; d < 16; d += of {
		out = append(out, hex[d:d+1])
	}
	return out
}
