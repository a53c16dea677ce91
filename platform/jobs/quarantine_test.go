package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/kobana/kobana-mcp/internal/childproc"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// The poison test's times: a job is stuck once it has run for
// poisonRescueAfter, which must exceed its timeout.
const (
	poisonJobTimeout  = time.Second
	poisonRescueAfter = 2 * time.Second
	poisonQueue       = "jobs_test_poison"
	idleQueue         = "jobs_test_idle"
)

// poisonArgs is a job whose work kills the process that runs it, like the
// Kadu expression that exhausted its process's memory.
type poisonArgs struct {
	Token string `json:"token"`
}

func (poisonArgs) Kind() string     { return "jobs_test.poison" }
func (poisonArgs) JobQueue() string { return poisonQueue }

type poisonWorker struct {
	river.WorkerDefaults[poisonArgs]
	crash       func()      // what Work does: kill the process (child), or report (parent)
	quarantined chan string // the reasons Quarantined was called with
	ran         chan int    // attempts Work ran in this process
}

func newPoisonWorker(crash func()) *poisonWorker {
	return &poisonWorker{crash: crash, quarantined: make(chan string, 10), ran: make(chan int, 10)}
}

func (w *poisonWorker) Work(_ context.Context, job *river.Job[poisonArgs]) error {
	w.ran <- job.Attempt
	w.crash()
	return nil
}

// NextRetry makes a rescued job due at once (River's backoff would make
// the test wait).
func (w *poisonWorker) NextRetry(*river.Job[poisonArgs]) time.Time { return time.Now() }

func (w *poisonWorker) Quarantined(_ context.Context, job *river.Job[poisonArgs], reason string) error {
	w.quarantined <- job.Args.Token + ":" + reason
	return nil
}

// poisonConfig is the configuration of every queue of the poison test.
func poisonConfig(log *slog.Logger) Config {
	return Config{Work: true, PollInterval: 50 * time.Millisecond, JobTimeout: poisonJobTimeout, RescueAfter: poisonRescueAfter,
		QueueWorkers: map[string]int{poisonQueue: 1, idleQueue: 1}, Logger: log}
}

// runPoisonChild is a worker process whose poison jobs kill it with
// SIGKILL, as the kernel's OOM killer would.
func runPoisonChild(ctx context.Context, db *store.DB) int {
	cfg := poisonConfig(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	cfg.leaderless = true
	q, err := New(ctx, db, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	AddWorker(q, newPoisonWorker(func() {
		fmt.Println("poisoned: killing myself")
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}))
	if err := q.Start(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	fmt.Println("working")
	select {}
}

// A job that kills every process that runs it: two worker processes pick
// it up and die (SIGKILL, from the job itself); each time the leader
// rescues it. The third process — the service — does not run it: it
// quarantines it (the kind's hook fails its object, the job is cancelled
// with the reason, counted), and keeps running its other jobs.
func TestPoisonJobIsQuarantinedAfterTwoCrashes(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dbURL := storetest.URL(t, engine)
			db, err := store.Open(ctx, dbURL)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = db.Close() })
			if _, err := db.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			api := newQueue(t, db, false)
			AddWorker(api, newPoisonWorker(func() {}))
			id, err := api.Enqueue(ctx, poisonArgs{Token: "p"}, nil)
			if err != nil {
				t.Fatal(err)
			}

			for attempt := 1; attempt <= 2; attempt++ {
				child := childproc.Start(t, childEnv, childConfig{DatabaseURL: dbURL, Mode: "poison"})
				eventually(t, fmt.Sprintf("a worker process to die in attempt %d", attempt), func() bool {
					return strings.Contains(child.Output(), "poisoned")
				})
				child.Kill(t) // reaps the process the job killed
				if st, a := jobState(t, api, id); st != rivertype.JobStateRunning || a != attempt {
					t.Fatalf("after crash %d the job is %s at attempt %d, want running at %d", attempt, st, a, attempt)
				}
				if attempt == 2 {
					break
				}
				// A leader that works none of the poison queue rescues it
				// once it is stuck (its rescuer looks when it starts).
				time.Sleep(poisonRescueAfter)
				cfg := poisonConfig(quiet)
				cfg.onlyQueues = []string{idleQueue}
				leader, err := New(ctx, db, cfg)
				if err != nil {
					t.Fatal(err)
				}
				AddWorker(leader, newPoisonWorker(func() { t.Error("the rescuing leader ran the poison job") }))
				start(t, leader)
				eventually(t, "the first rescue", func() bool {
					st, _ := jobState(t, api, id)
					return st == rivertype.JobStateAvailable
				})
				sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				if err := leader.Stop(sctx); err != nil {
					t.Fatal(err)
				}
				cancel()
			}

			// The service: it leads (so it rescues the job a second time),
			// works every queue, and must not run the poison job.
			time.Sleep(poisonRescueAfter)
			svc, err := New(ctx, db, poisonConfig(quiet))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				_ = svc.Stop(sctx)
			})
			poison := newPoisonWorker(func() { t.Error("the service ran the poison job a third time") })
			AddWorker(svc, poison)
			rec := newRecordWorker()
			AddWorker(svc, rec)
			start(t, svc)

			if got := recv(t, poison.quarantined, "the quarantine hook"); got != "p:"+QuarantineReason {
				t.Errorf("hook called with %q, want p:%s", got, QuarantineReason)
			}
			eventually(t, "the job to be cancelled", func() bool {
				st, _ := jobState(t, api, id)
				return st == rivertype.JobStateCancelled
			})
			job, err := api.client.JobGet(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if n := rescues(job); n != 2 || job.Attempt != 3 {
				t.Errorf("job at attempt %d after %d rescues, want attempt 3 after 2", job.Attempt, n)
			}
			if last := job.Errors[len(job.Errors)-1]; !strings.Contains(last.Error, QuarantineReason) || last.Attempt != 3 {
				t.Errorf("the job's last error %+v, want the quarantine's on attempt 3", last)
			}
			select {
			case a := <-poison.ran:
				t.Errorf("the service ran the poison job (attempt %d)", a)
			default:
			}
			kind := map[string]string{"kind": "jobs_test.poison"}
			if n, _ := metric(t, svc.Collector(), "kobana_jobs_quarantined_total", kind); n != 1 {
				t.Errorf("kobana_jobs_quarantined_total %v, want 1", n)
			}

			// The service is up and works its other jobs.
			for _, tok := range []string{"a", "b"} {
				if _, err := svc.Enqueue(ctx, recordArgs{Token: tok}, nil); err != nil {
					t.Fatal(err)
				}
			}
			recv(t, rec.ran, "the service's next job")
			recv(t, rec.ran, "the service's second job")
		})
	}
}
