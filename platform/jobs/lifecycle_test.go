package jobs

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

func TestStopWaitsForARunningJob(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		q := newQueue(t, db, true)
		w := newBlockWorker()
		AddWorker(q, w)
		start(t, q)
		if _, err := q.Enqueue(ctx, blockArgs{}, nil); err != nil {
			t.Fatal(err)
		}
		recv(t, w.started, "the job to start")

		type result struct {
			err      error
			finished bool // whether the job had returned when Stop did
		}
		stopped := make(chan result, 1)
		go func() {
			err := q.Stop(ctx)
			select {
			case <-w.finished:
				stopped <- result{err, true}
			default:
				stopped <- result{err, false}
			}
		}()
		// Stop has begun once the queue stops being ready; the job is
		// still blocked, so Stop must still be waiting.
		eventually(t, "Stop to begin", func() bool { return q.Ready(ctx) != nil })
		select {
		case r := <-stopped:
			t.Fatalf("Stop returned (%v) while the job was running", r.err)
		default:
		}
		close(w.release)
		r := recv(t, stopped, "Stop to return")
		if r.err != nil || !r.finished {
			t.Errorf("Stop = %v with the job finished %v, want nil after the job", r.err, r.finished)
		}
		select {
		case err := <-w.cancelled:
			t.Errorf("a graceful stop cancelled the job: %v", err)
		default:
		}
		// Idempotent.
		if err := q.Stop(ctx); err != nil {
			t.Errorf("second Stop: %v", err)
		}
		if err := q.Start(ctx); err == nil {
			t.Error("Start after Stop: no error")
		}
	})
}

// A hard stop (the shutdown grace ran out) cancels a running job's
// context; the job, which honours it, goes back to the queue untouched and
// is finished by another worker.
func TestStopCancelsJobsWhenItsContextEnds(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		q := newQueue(t, db, true)
		w := newBlockWorker()
		AddWorker(q, w)
		start(t, q)
		id, err := q.Enqueue(ctx, blockArgs{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		recv(t, w.started, "the job to start")

		sctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		if err := q.Stop(sctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Stop = %v, want the context's deadline", err)
		}
		if err := recv(t, w.cancelled, "the job's context to be cancelled"); !errors.Is(err, context.Canceled) {
			t.Errorf("job context ended with %v, want cancelled", err)
		}
		// Interrupted by the shutdown, the job goes back to the queue
		// without spending an attempt.
		st, attempt := jobState(t, q, id)
		if st != rivertype.JobStateAvailable || attempt != 0 {
			t.Errorf("interrupted job is %s after %d attempts, want available after 0", st, attempt)
		}

		// Another replica picks it up and finishes it.
		other := newQueue(t, db, true)
		w2 := newBlockWorker()
		close(w2.release)
		AddWorker(other, w2)
		start(t, other)
		if got := recv(t, w2.started, "the job to run on the other queue"); got != id {
			t.Fatalf("the other queue ran job %d, want %d", got, id)
		}
		eventually(t, "the job to be completed", func() bool {
			st, _ := jobState(t, other, id)
			return st == rivertype.JobStateCompleted
		})
		if _, attempt := jobState(t, other, id); attempt != 1 {
			t.Errorf("completed after %d attempts, want 1: the cut-off run does not count", attempt)
		}
	})
}

// Cases that must simply not fail, on one database: stopping a queue that
// never started, starting a working queue nobody registered a worker on
// (River itself refuses to), periodic jobs on an insert-only queue.
func TestQueueEdgeCases(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		never := newQueue(t, db, true)
		for i := range 2 {
			if err := never.Stop(ctx); err != nil {
				t.Errorf("Stop %d before Start: %v", i+1, err)
			}
		}

		idle := newQueue(t, db, true)
		start(t, idle)
		if err := idle.Ready(ctx); err != nil {
			t.Errorf("a working queue without workers is not ready: %v", err)
		}

		api := newQueue(t, db, false)
		AddWorker(api, newRecordWorker())
		api.AddPeriodic(river.PeriodicInterval(time.Hour), func() (river.JobArgs, *river.InsertOpts) {
			return recordArgs{}, nil
		}, true)
		start(t, api)
	})
}
