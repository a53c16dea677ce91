package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
)

// cancelGrace is how long Stop waits, once its context has ended, for the
// jobs it cancelled to return, so that River can put them back as
// available (without spending an attempt) before the process exits.
const cancelGrace = 5 * time.Second

// eventBuffer holds job events between River and the counters. River
// drops events (and logs a warning) when it is full, so it is sized for a
// burst of completions far beyond Concurrency.
const eventBuffer = 10_000

// Start starts working (when Config.Work) and allows Enqueue. (Enqueue
// works before Start too: the job waits in the database.)
//
// Jobs run with contexts that carry ctx's values but not its deadline or
// cancellation: only their timeout and Stop end them. A working queue
// refuses to start when a registered kind has no timeout, or one that is
// not shorter than Config.RescueAfter (see AddWorker). Starting a working
// queue with no worker registered logs a warning and works nothing (River
// refuses to start without one). Start after Stop is an error; a second
// Start does nothing.
func (q *Queue) Start(ctx context.Context) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	switch q.state {
	case started:
		return nil
	case stopping, stopped:
		return errors.New("jobs: Start after Stop")
	}
	if q.cfg.Work && len(q.kinds) == 0 {
		q.log.Warn("jobs: no worker is registered: this process works no jobs")
	} else if q.cfg.Work {
		longest, err := q.checkTimeouts()
		if err != nil {
			return err
		}
		events, cancel := q.client.SubscribeConfig(&river.SubscribeConfig{
			ChanSize: eventBuffer,
			Kinds:    []river.EventKind{river.EventKindJobCompleted, river.EventKindJobFailed, river.EventKindJobCancelled},
		})
		if err := q.client.Start(context.WithoutCancel(ctx)); err != nil {
			cancel()
			return fmt.Errorf("jobs: start: %w", err)
		}
		q.counted = make(chan struct{})
		go q.stats.count(events, q.counted)
		q.working = true
		q.log.Info("jobs: working", "concurrency", q.cfg.Concurrency, "poll_interval", q.cfg.PollInterval,
			"rescue_after", q.cfg.RescueAfter, "longest_job_timeout", longest, "kinds", q.kinds, "client_id", q.client.ID())
	}
	q.state = started
	return nil
}

// Stop stops fetching new jobs and waits for running ones until ctx ends:
// the process's shutdown grace is the time in-flight jobs get to finish.
//
// When ctx ends first, the running jobs' contexts are cancelled (River's
// StopAndCancel) and Stop waits a few more seconds (cancelGrace) for them
// to return. A job that returns its context's error is put back as
// available without spending an attempt, and runs again on the next
// worker — from the start, so a worker must leave nothing half-done: what
// it did before is found again by its idempotency checks, and an outbound
// call it had in flight is, for the next run, a call with an unknown
// outcome (Queue.Call). A job that ignores its context stays running in
// the database when the process exits, and is rescued after
// Config.RescueAfter like the jobs of a process that died. Stop then
// reports ctx's error. It is safe to call before Start and more than
// once; a call while another is stopping waits for it (or for its own
// ctx).
func (q *Queue) Stop(ctx context.Context) error {
	q.mu.Lock()
	switch q.state {
	case created:
		q.state = stopped
		q.mu.Unlock()
		q.closeListen()
		return nil
	case stopped:
		q.mu.Unlock()
		return nil
	case stopping:
		done := q.stopDone
		q.mu.Unlock()
		select {
		case <-done:
			return nil
		case <-ctx.Done():
			return fmt.Errorf("jobs: stop: %w", ctx.Err())
		}
	}
	q.state = stopping
	q.stopDone = make(chan struct{})
	working := q.working
	q.mu.Unlock()

	var err error
	if working {
		err = q.stopClient(ctx)
	}
	q.closeListen()

	q.mu.Lock()
	q.state = stopped
	close(q.stopDone)
	q.mu.Unlock()
	return err
}

// stopClient stops River gracefully, then by cancelling the jobs once ctx
// has ended.
func (q *Queue) stopClient(ctx context.Context) error {
	err := q.client.Stop(ctx)
	if err == nil {
		// River closed the event subscription as it stopped: wait until
		// the last events are counted.
		<-q.counted
		return nil
	}
	q.log.Warn("jobs: running jobs did not finish in time: cancelling them", "err", err)
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelGrace)
	defer cancel()
	if cerr := q.client.StopAndCancel(cctx); cerr != nil {
		return fmt.Errorf("jobs: stop: %w; running jobs were cancelled but did not return within %s", err, cancelGrace)
	}
	<-q.counted
	return fmt.Errorf("jobs: stop: %w; running jobs were cancelled", err)
}
