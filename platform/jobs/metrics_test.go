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

func TestCollectorReportsDepthByState(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		q := newQueue(t, db, false)
		AddWorker(q, newRecordWorker())
		AddWorker(q, newBlockWorker())
		for range 2 {
			if _, err := q.Enqueue(ctx, recordArgs{}, nil); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := q.Enqueue(ctx, recordArgs{}, &river.InsertOpts{ScheduledAt: time.Now().Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		c := q.Collector()
		for _, want := range []struct {
			state, kind string
			n           float64
		}{
			{"available", "jobs_test.record", 2},
			{"scheduled", "jobs_test.record", 1},
			{"retryable", "jobs_test.record", 0},
			{"running", "jobs_test.record", 0},
			{"available", "jobs_test.block", 0}, // registered, no job: reported as 0
		} {
			got, ok := metric(t, c, "kobana_jobs_depth", map[string]string{"state": want.state, "kind": want.kind})
			if !ok || got != want.n {
				t.Errorf("depth %s %s = %v (reported %v), want %v", want.state, want.kind, got, ok, want.n)
			}
		}

		// A working replica: its running job shows, for every replica.
		worker := newQueue(t, db, true)
		w := newBlockWorker()
		AddWorker(worker, w)
		start(t, worker)
		if _, err := q.Enqueue(ctx, blockArgs{}, nil); err != nil {
			t.Fatal(err)
		}
		recv(t, w.started, "the job to start")
		if got, _ := metric(t, c, "kobana_jobs_depth", map[string]string{"state": "running", "kind": "jobs_test.block"}); got != 1 {
			t.Errorf("running block jobs = %v, want 1", got)
		}
		close(w.release)
		if errs, _ := metric(t, c, "kobana_jobs_depth_errors_total", map[string]string{}); errs != 0 {
			t.Errorf("%v depth queries failed", errs)
		}
	})
}

// A database that stops answering: not ready, and the scrape goes on
// without the depth.
func TestClosedDatabase(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		q := newQueue(t, db, false)
		AddWorker(q, newRecordWorker())
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		if err := q.Ready(context.Background()); err == nil || !strings.Contains(err.Error(), "does not answer") {
			t.Errorf("Ready on a closed database = %v, want does not answer", err)
		}
		c := q.Collector()
		if _, ok := metric(t, c, "kobana_jobs_depth", map[string]string{"state": "available", "kind": "jobs_test.record"}); ok {
			t.Error("depth reported from a closed database")
		}
		// The rest of the scrape still works, and says what went wrong.
		if errs, ok := metric(t, c, "kobana_jobs_depth_errors_total", map[string]string{}); !ok || errs < 1 {
			t.Errorf("depth errors = %v (reported %v), want at least 1", errs, ok)
		}
		if _, ok := metric(t, c, "kobana_jobs_completed_total", map[string]string{"kind": "jobs_test.record"}); !ok {
			t.Error("the completed counter of a registered kind is missing")
		}
	})
}
