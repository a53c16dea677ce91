package jobs

import (
	"context"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// lockingArgs is a job whose one call, once made, takes SQLite's write
// lock in another transaction and holds it for HoldMS: longer than the
// busy timeout, so the first write of the call's outcome fails.
type lockingArgs struct {
	HoldMS int `json:"hold_ms"`
}

func (lockingArgs) Kind() string { return "jobs_test.locking" }

type lockingWorker struct {
	river.WorkerDefaults[lockingArgs]
	q     *Queue
	db    *store.DB
	ended chan error
}

func (w *lockingWorker) Work(ctx context.Context, job *river.Job[lockingArgs]) error {
	_, err := w.q.Call(ctx, job.JobRow, "notify", NeverResendUnknown, func(ctx context.Context, _ int) error {
		locked := make(chan struct{})
		go func() {
			_ = w.db.WithTx(context.Background(), func(tx *store.Tx) error {
				// BEGIN IMMEDIATE took the write lock; a write makes it
				// certain.
				if _, err := tx.Exec(context.Background(), `UPDATE river_job SET tags = tags WHERE id = ?`, job.ID); err != nil {
					return err
				}
				close(locked)
				time.Sleep(time.Duration(job.Args.HoldMS) * time.Millisecond)
				return nil
			})
		}()
		<-locked
		return nil // the other side acted
	})
	w.ended <- err
	return err
}

// A call that happened is recorded as succeeded even when the database
// refuses the first write of its outcome: a write lock held past SQLite's
// 5 s busy timeout (another worker's long transaction) fails that write,
// and the record is written again once the lock is gone — not left
// "started", which the next run would read as an unknown outcome (a sent
// message nobody may resend).
func TestCallOutcomeOutlastsALockedDatabase(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("holds SQLite's write lock past its 5 s busy timeout")
	}
	db := storetest.Open(t, store.SQLite)
	q := newQueue(t, db, true)
	w := &lockingWorker{q: q, db: db, ended: make(chan error, 1)}
	AddWorker(q, w)
	start(t, q)
	id, err := q.Enqueue(context.Background(), lockingArgs{HoldMS: 6500}, nil)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-w.ended:
		if err != nil {
			t.Fatalf("the call's run: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the call's run did not end")
	}
	rec, _ := callRecord(t, q, id)
	if rec.State != CallSucceeded || rec.Attempts != 1 || rec.Unknown != 0 {
		t.Fatalf("record %+v, want succeeded after 1 attempt, nothing unknown", rec)
	}
}
