package jobs

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/kobana/kobana-mcp/platform/store"
)

// wait is the generous bound every test waits for an event with: long
// enough for a loaded CI machine, reached only when something is broken.
const wait = 60 * time.Second

// quiet keeps River's info logs out of test output; warnings still show.
var quiet = slog.New(slog.NewTextHandler(testWriter{}, &slog.HandlerOptions{Level: slog.LevelWarn}))

type testWriter struct{}

func (testWriter) Write(p []byte) (int, error) { return len(p), nil }

// newQueue opens a queue with a short poll interval and stops it when the
// test ends (before the database closes).
func newQueue(t *testing.T, db *store.DB, work bool) *Queue {
	t.Helper()
	return newQueueWith(t, db, Config{Work: work})
}

// newQueueWith is newQueue with cfg's other fields (its poll interval and
// logger are the tests').
func newQueueWith(t *testing.T, db *store.DB, cfg Config) *Queue {
	t.Helper()
	cfg.PollInterval, cfg.Logger = 50*time.Millisecond, quiet
	q, err := New(context.Background(), db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := q.Stop(ctx); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	return q
}

func start(t *testing.T, q *Queue) {
	t.Helper()
	if err := q.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// recordArgs is a job that reports its token to the worker's channel.
type recordArgs struct {
	Token string `json:"token"`
}

func (recordArgs) Kind() string { return "jobs_test.record" }

type recordWorker struct {
	river.WorkerDefaults[recordArgs]
	ran chan string
}

func newRecordWorker() *recordWorker { return &recordWorker{ran: make(chan string, 100)} }

func (w *recordWorker) Work(_ context.Context, job *river.Job[recordArgs]) error {
	w.ran <- job.Args.Token
	return nil
}

// blockArgs is a job that runs until released or cancelled.
type blockArgs struct{}

func (blockArgs) Kind() string { return "jobs_test.block" }

type blockWorker struct {
	river.WorkerDefaults[blockArgs]
	started   chan int64    // the job's id, when it starts
	release   chan struct{} // closed to let it finish
	cancelled chan error    // the context's error, when cancelled instead
	finished  chan struct{} // closed when released work returns
}

func newBlockWorker() *blockWorker {
	return &blockWorker{started: make(chan int64, 10), release: make(chan struct{}), cancelled: make(chan error, 10), finished: make(chan struct{})}
}

func (w *blockWorker) Work(ctx context.Context, job *river.Job[blockArgs]) error {
	w.started <- job.ID
	select {
	case <-w.release:
		close(w.finished)
		return nil
	case <-ctx.Done():
		w.cancelled <- ctx.Err()
		return ctx.Err()
	}
}

// recv waits for one value on ch, failing the test after wait.
func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(wait):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}

// eventually polls cond until it holds, failing the test after wait.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// jobState reads a job's row as River sees it.
func jobState(t *testing.T, q *Queue, id int64) (rivertype.JobState, int) {
	t.Helper()
	job, err := q.client.JobGet(context.Background(), id)
	if err != nil {
		t.Fatalf("get job %d: %v", id, err)
	}
	return job.State, job.Attempt
}

// metric is the value of the series of name with exactly labels, and
// whether the collector reported it.
func metric(t *testing.T, c prometheus.Collector, name string, labels map[string]string) (float64, bool) {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(c); err != nil {
		t.Fatal(err)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if sameLabels(m.GetLabel(), labels) {
				switch {
				case m.Gauge != nil:
					return m.Gauge.GetValue(), true
				case m.Counter != nil:
					return m.Counter.GetValue(), true
				}
			}
		}
	}
	return 0, false
}

func sameLabels(got []*dto.LabelPair, want map[string]string) bool {
	if len(got) != len(want) {
		return false
	}
	for _, l := range got {
		if want[l.GetName()] != l.GetValue() {
			return false
		}
	}
	return true
}
