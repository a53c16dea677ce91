package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

func TestEnqueueTxRollbackNeverRunsCommitRunsOnce(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		q := newQueue(t, db, true)
		w := newRecordWorker()
		AddWorker(q, w)
		start(t, q)

		boom := errors.New("boom")
		err := db.WithTx(ctx, func(tx *store.Tx) error {
			if _, err := q.EnqueueTx(ctx, tx, recordArgs{Token: "rolled back"}, nil); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("WithTx = %v, want boom", err)
		}
		var committed int64
		if err := db.WithTx(ctx, func(tx *store.Tx) error {
			var err error
			committed, err = q.EnqueueTx(ctx, tx, recordArgs{Token: "committed"}, nil)
			return err
		}); err != nil {
			t.Fatal(err)
		}

		if got := recv(t, w.ran, "the committed job"); got != "committed" {
			t.Fatalf("ran %q first, want the committed job", got)
		}
		eventually(t, "the job to be completed", func() bool {
			st, _ := jobState(t, q, committed)
			return st == rivertype.JobStateCompleted
		})
		if _, attempt := jobState(t, q, committed); attempt != 1 {
			t.Errorf("committed job took %d attempts, want 1", attempt)
		}
		// SQLite may give the committed job the rolled-back one's id:
		// count the rows instead.
		var n int
		if err := db.Get(ctx, &n, "SELECT COUNT(*) FROM "+q.table("river_job")); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Errorf("%d jobs in the table, want only the committed one", n)
		}
		select {
		case got := <-w.ran:
			t.Errorf("a second run: %q", got)
		default:
		}
	})
}

// unmarshalable cannot be stored: encoding/json refuses channels.
type unmarshalable struct {
	C chan int `json:"c"`
}

func (unmarshalable) Kind() string { return "jobs_test.unmarshalable" }

type unmarshalableWorker struct {
	river.WorkerDefaults[unmarshalable]
}

func (unmarshalableWorker) Work(context.Context, *river.Job[unmarshalable]) error { return nil }

func TestEnqueueRejectsBadArgs(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		q := newQueue(t, db, false)
		AddWorker(q, unmarshalableWorker{})

		_, err := q.Enqueue(ctx, unmarshalable{C: make(chan int)}, nil)
		if err == nil || !strings.Contains(err.Error(), "jobs_test.unmarshalable") {
			t.Errorf("args that are not JSON: %v, want an error naming the kind", err)
		}
		if _, err := q.Enqueue(ctx, nil, nil); err == nil {
			t.Error("nil args: no error")
		}
		// A kind nobody registered is a wiring mistake, caught at insert.
		if _, err := q.Enqueue(ctx, recordArgs{}, nil); err == nil || !strings.Contains(err.Error(), "jobs_test.record") {
			t.Errorf("unregistered kind: %v, want an error naming it", err)
		}
		if err := db.WithTx(ctx, func(tx *store.Tx) error {
			_, err := q.EnqueueTx(ctx, nil, recordArgs{}, nil)
			return err
		}); err == nil {
			t.Error("EnqueueTx with a nil tx: no error")
		}
	})
}

// failWorker fails each job's first attempt and retries at once.
type failWorker struct {
	river.WorkerDefaults[failArgs]
	done chan int // the attempt that succeeded
}

type failArgs struct {
	Always bool `json:"always"`
}

func (failArgs) Kind() string { return "jobs_test.fail" }

func (w *failWorker) NextRetry(*river.Job[failArgs]) time.Time { return time.Now() }

func (w *failWorker) Work(_ context.Context, job *river.Job[failArgs]) error {
	if job.Args.Always || job.Attempt == 1 {
		return fmt.Errorf("attempt %d fails", job.Attempt)
	}
	w.done <- job.Attempt
	return nil
}

func TestFailedJobIsRetriedAndCounted(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		q := newQueue(t, db, true)
		w := &failWorker{done: make(chan int, 10)}
		AddWorker(q, w)
		start(t, q)

		if _, err := q.Enqueue(ctx, failArgs{}, nil); err != nil {
			t.Fatal(err)
		}
		if attempt := recv(t, w.done, "the retry to succeed"); attempt != 2 {
			t.Errorf("succeeded on attempt %d, want 2", attempt)
		}
		// A job out of attempts is discarded.
		discarded, err := q.Enqueue(ctx, failArgs{Always: true}, &river.InsertOpts{MaxAttempts: 1})
		if err != nil {
			t.Fatal(err)
		}
		eventually(t, "the job to be discarded", func() bool {
			st, _ := jobState(t, q, discarded)
			return st == rivertype.JobStateDiscarded
		})

		kind := map[string]string{"kind": "jobs_test.fail"}
		eventually(t, "the counters", func() bool {
			failed, _ := metric(t, q.Collector(), "kobana_jobs_failed_total", kind)
			completed, _ := metric(t, q.Collector(), "kobana_jobs_completed_total", kind)
			gone, _ := metric(t, q.Collector(), "kobana_jobs_discarded_total", kind)
			return failed == 2 && completed == 1 && gone == 1
		})
	})
}

func TestInsertOnlyQueueLeavesJobsToAWorkingReplica(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		// The API replica: registers the same workers, but never runs them.
		api := newQueue(t, db, false)
		AddWorker(api, &failIfRun{t: t})
		start(t, api)
		if err := api.Ready(ctx); err != nil {
			t.Fatalf("insert-only queue not ready: %v", err)
		}

		plain, err := api.Enqueue(ctx, recordArgs{Token: "plain"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var inTx int64
		if err := db.WithTx(ctx, func(tx *store.Tx) error {
			inTx, err = api.EnqueueTx(ctx, tx, recordArgs{Token: "in tx"}, nil)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		for _, id := range []int64{plain, inTx} {
			if st, _ := jobState(t, api, id); st != rivertype.JobStateAvailable {
				t.Errorf("job %d is %s before any worker runs, want available", id, st)
			}
		}

		// The worker replica on the same database picks both up.
		worker := newQueue(t, db, true)
		w := newRecordWorker()
		AddWorker(worker, w)
		start(t, worker)
		got := map[string]bool{recv(t, w.ran, "the first job"): true, recv(t, w.ran, "the second job"): true}
		if !got["plain"] || !got["in tx"] {
			t.Errorf("the working replica ran %v, want both jobs", got)
		}
	})
}

// failIfRun is the worker of an insert-only queue: running it is a bug.
type failIfRun struct {
	river.WorkerDefaults[recordArgs]
	t *testing.T
}

func (w *failIfRun) Work(_ context.Context, job *river.Job[recordArgs]) error {
	w.t.Errorf("the insert-only queue ran job %d", job.ID)
	return nil
}
