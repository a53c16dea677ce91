package jobs

import (
	"context"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

func TestPeriodicJobRunsOnTheLeader(t *testing.T) {
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
