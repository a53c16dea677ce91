package jobs

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

func TestPeriodicJobRunsOnTheLeader(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		q := newQueue(t, db, true)
		w := newRecordWorker()
		AddWorker(q, w)
		q.AddPeriodic(river.PeriodicInterval(time.Hour), func() (river.JobArgs, *river.InsertOpts) {
			return recordArgs{Token: "periodic"}, nil
		}, true)
		start(t, q)
		if got := recv(t, w.ran, "the periodic job"); got != "periodic" {
			t.Errorf("ran %q, want the periodic job", got)
		}
	})
}

func TestAddWorkerMistakesPanic(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		q := newQueue(t, db, true)
		AddWorker(q, newRecordWorker())
		mustPanic(t, "a second worker of a kind", func() { AddWorker(q, newRecordWorker()) })
		start(t, q)
		mustPanic(t, "AddWorker after Start", func() { AddWorker(q, newBlockWorker()) })
		// Nothing was half-registered: the queue still works its kind.
		if _, err := q.Enqueue(context.Background(), blockArgs{}, nil); err == nil {
			t.Error("the kind added after Start can be enqueued")
		}
	})
}

func mustPanic(t *testing.T, what string, fn func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", what)
		}
	}()
	fn()
}

// timedArgs is a job whose worker declares the timeout it is built with.
type timedArgs struct{}

func (timedArgs) Kind() string { return "jobs_test.timed" }

type timedWorker struct {
	river.WorkerDefaults[timedArgs]
	timeout time.Duration
}

func (w timedWorker) Timeout(*river.Job[timedArgs]) time.Duration { return w.timeout }

func (timedWorker) Work(context.Context, *river.Job[timedArgs]) error { return nil }

// A working queue starts only when every kind has a bound shorter than
// the rescue time: otherwise a job still working could be taken for the
// job of a dead process, or a dead process's job never be rescued.
func TestStartChecksEveryTimeoutAgainstTheRescueTime(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		for _, c := range []struct {
			timeout time.Duration
			want    string // in Start's error; "" when it starts
		}{
			{0, ""}, // JobTimeout
			{DefaultRescueAfter - time.Second, ""},
			{DefaultRescueAfter, "must be longer than the timeout of jobs_test.timed"},
			{time.Hour, "must be longer than the timeout of jobs_test.timed (1h0m0s)"},
			{-1, "jobs_test.timed has no timeout"},
		} {
			q := newQueue(t, db, true)
			AddWorker(q, newRecordWorker())
			AddWorker(q, timedWorker{timeout: c.timeout})
			err := q.Start(context.Background())
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Errorf("timeout %s: Start = %v, want %q", c.timeout, err, c.want)
			}
		}
		// An insert-only queue runs nothing, so it has nothing to check.
		api := newQueue(t, db, false)
		AddWorker(api, timedWorker{timeout: time.Hour})
		start(t, api)
	})
}
