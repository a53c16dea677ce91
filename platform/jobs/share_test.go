package jobs

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// docArgs is a slow job of an organization in the documents queue, like
// a statement PDF.
type docArgs struct {
	Org   string `json:"org"`
	Token string `json:"token"`
}

func (docArgs) Kind() string              { return "jobs_test.document" }
func (docArgs) JobQueue() string          { return QueueDocuments }
func (a docArgs) OrganizationKey() string { return a.Org }

// docWorker records when each job started and ended, and how many of
// each organization ran at once.
type docWorker struct {
	river.WorkerDefaults[docArgs]
	work time.Duration

	mu      sync.Mutex
	started map[string]time.Time
	ended   map[string]time.Time
	running map[string]int
	most    map[string]int
	// starts is every start in order: the job's token and how many of
	// its organization's jobs ran then, itself included.
	starts []docStart
}

type docStart struct {
	token   string
	running int
}

func newDocWorker(work time.Duration) *docWorker {
	return &docWorker{work: work, started: map[string]time.Time{}, ended: map[string]time.Time{}, running: map[string]int{}, most: map[string]int{}}
}

func (w *docWorker) Work(ctx context.Context, job *river.Job[docArgs]) error {
	w.mu.Lock()
	w.started[job.Args.Token] = time.Now()
	w.running[job.Args.Org]++
	w.most[job.Args.Org] = max(w.most[job.Args.Org], w.running[job.Args.Org])
	w.starts = append(w.starts, docStart{job.Args.Token, w.running[job.Args.Org]})
	w.mu.Unlock()
	time.Sleep(w.work)
	w.mu.Lock()
	w.running[job.Args.Org]--
	w.ended[job.Args.Token] = time.Now()
	w.mu.Unlock()
	return nil
}

// endedBefore counts the jobs of org that ended before t.
func (w *docWorker) endedBefore(org string, n int, t time.Time) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := 0
	for i := range n {
		if e, ok := w.ended[fmt.Sprintf("%s%d", org, i)]; ok && e.Before(t) {
			c++
		}
	}
	return c
}

// Organization A floods the documents queue with slow jobs; B then asks
// for one document and one short job. B's short job runs at once (it is
// in the default queue, whose workers A's documents cannot take), and
// B's document starts before A's burst is through: once B's document
// waits, A's jobs over its share (half of the queue's two workers) are
// snoozed without spending attempts, and all of them still end. (That A
// then starts no job over its share is TestOrganizationShareYieldsToAWaitingOrganization;
// A alone may use both workers, TestOrganizationShareIsWorkConserving.)
func TestOrganizationShareKeepsAWorkerForOthers(t *testing.T) {
	t.Parallel()
	const flood, work = 20, 200 * time.Millisecond
	for _, engine := range storetest.Engines {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := storetest.Open(t, engine)
			q := newQueue(t, db, true)
			docs := newDocWorker(work)
			AddWorker(q, docs)
			rec := newRecordWorker()
			AddWorker(q, rec)
			if got := q.queueWorkers[QueueDocuments]; got != 2 {
				t.Fatalf("the documents queue has %d workers, want 2 of the default 10", got)
			}
			var aIDs []int64
			for i := range flood {
				id, err := q.Enqueue(ctx, docArgs{Org: "A", Token: fmt.Sprintf("A%d", i)}, nil)
				if err != nil {
					t.Fatal(err)
				}
				aIDs = append(aIDs, id)
			}
			start(t, q)
			bAsked := time.Now()
			if _, err := q.Enqueue(ctx, recordArgs{Token: "B-sms"}, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := q.Enqueue(ctx, docArgs{Org: "B", Token: "B0"}, nil); err != nil {
				t.Fatal(err)
			}
			recv(t, rec.ran, "B's short job")
			if d := time.Since(bAsked); d > 5*time.Second {
				t.Errorf("B's short job waited %s behind A's documents", d)
			}
			eventually(t, "every document to end", func() bool {
				docs.mu.Lock()
				defer docs.mu.Unlock()
				return len(docs.ended) == flood+1
			})
			docs.mu.Lock()
			bStarted := docs.started["B0"]
			docs.mu.Unlock()
			if n := docs.endedBefore("A", flood, bStarted); n > flood/2 {
				t.Errorf("B's document started after %d of A's %d had ended, want it before most of them", n, flood)
			}
			for _, id := range aIDs {
				if _, attempt := jobState(t, q, id); attempt != 1 {
					t.Errorf("job %d ended at attempt %d: a snooze spent an attempt", id, attempt)
				}
			}
		})
	}
}
