package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"

	"github.com/kobana/kobana-mcp/internal/childproc"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// The rescue tests' times: short, so that a test waits seconds, and in
// the order the queue requires (RescueAfter longer than every timeout).
// The job timeout is what a killed worker's calls have before they would
// time out on their own, so it must comfortably exceed the moment between
// the target seeing the calls and the kill.
const (
	killJobTimeout  = 3 * time.Second
	killRescueAfter = 4 * time.Second
)

// childEnv, when set, makes the test binary a worker process instead of
// running tests: it holds the JSON of a childConfig.
const childEnv = "KOBANA_JOBS_TEST_CHILD"

type childConfig struct {
	DatabaseURL string `json:"database_url"`
	Target      string `json:"target"`
	// Mode "poison" makes the child work poison jobs, which kill it;
	// "trace" makes it work traced jobs, its spans sent to Collector.
	Mode      string `json:"mode,omitempty"`
	Collector string `json:"collector,omitempty"`
}

func TestMain(m *testing.M) {
	childproc.Serve(childEnv, runChild)
	os.Exit(m.Run())
}

// runChild is a worker process: it works call jobs against the target
// until it is killed.
func runChild(raw []byte) int {
	var cfg childConfig
	if err := json.Unmarshal(raw, &cfg); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	ctx := context.Background()
	if cfg.Mode == "trace" {
		return runTraceChild(ctx, cfg)
	}
	db, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	if cfg.Mode == "poison" {
		return runPoisonChild(ctx, db)
	}
	q, err := New(ctx, db, rescueConfig(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})), true))
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	w := newCallWorker(cfg.Target)
	w.q = q
	AddWorker(q, w)
	if err := q.Start(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	fmt.Println("working")
	select {} // until killed
}

// rescueConfig is the queue configuration of the rescue tests. The
// worker process never leads, so the surviving queue leads as soon as it
// starts (a dead leader's term would otherwise have to run out first,
// about 15 s, which River handles and the tests need not wait for).
func rescueConfig(log *slog.Logger, leaderless bool) Config {
	return Config{Work: true, PollInterval: 50 * time.Millisecond, JobTimeout: killJobTimeout,
		RescueAfter: killRescueAfter, Logger: log, leaderless: leaderless}
}

// The operator's kill -9: a worker process dies with two calls in flight.
// Its jobs stay running in the database until the surviving queue's
// leader rescues them, after RescueAfter, and works them: the
// at-least-once call is found unknown and sent again, the at-most-once
// one is found unknown and not sent again.
func TestJobsOfAKilledWorkerAreRescued(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines {
		// Not parallel: the kill, the rescue and the checks between them
		// are timed (RescueAfter), and under a loaded run the other
		// engine's children pushed a check past the rescue.
		t.Run(string(engine), func(t *testing.T) {
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
			tg := newTarget(t)
			tg.script("resend", hang)
			tg.script("never", hang)

			// The API replica enqueues; the worker process runs the jobs.
			api := newQueue(t, db, false)
			AddWorker(api, newCallWorker(tg.URL))
			resend, err := api.Enqueue(ctx, callArgs{Token: "resend", Policy: ResendUnknown}, nil)
			if err != nil {
				t.Fatal(err)
			}
			never, err := api.Enqueue(ctx, callArgs{Token: "never", Policy: NeverResendUnknown}, nil)
			if err != nil {
				t.Fatal(err)
			}

			child := childproc.Start(t, childEnv, childConfig{DatabaseURL: dbURL, Target: tg.URL})
			recv(t, tg.arrived, "the worker process's first call")
			recv(t, tg.arrived, "the worker process's second call")
			child.Kill(t)

			for _, id := range []int64{resend, never} {
				rec, job := callRecord(t, api, id)
				if job.State != rivertype.JobStateRunning || rec.State != CallStarted || rec.Attempts != 1 {
					t.Fatalf("job %d after the kill: %s with record %+v, want running with the call started", id, job.State, rec)
				}
			}

			// The surviving replica. Its leader looks for stuck jobs when it
			// starts and every 30 s after: start it once the jobs are
			// stuck, so that the first look finds them.
			time.Sleep(killRescueAfter)
			survivor, err := New(ctx, db, rescueConfig(quiet, false))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				_ = survivor.Stop(sctx)
			})
			w := newCallWorker(tg.URL)
			w.q = survivor
			AddWorker(survivor, w)
			start(t, survivor)
			waitEnded(t, w, resend, never)

			if got := tg.attempts("resend"); !sameInts(got, []int{1, 2}) {
				t.Errorf("the at-least-once call got attempts %v, want 1, then 2 after the rescue", got)
			}
			if got := tg.attempts("never"); !sameInts(got, []int{1}) {
				t.Errorf("the at-most-once call got attempts %v, want only the one in flight at the kill", got)
			}
			rec, job := callRecord(t, survivor, resend)
			if rec.State != CallSucceeded || rec.Attempts != 2 || rec.Unknown != 1 {
				t.Errorf("at-least-once record %+v, want succeeded on attempt 2 after 1 unknown", rec)
			}
			if n := len(job.Errors); n == 0 || job.Errors[n-1].Error != rescuerError {
				t.Errorf("the job's errors %+v do not show River's rescue", job.Errors)
			}
			rec, _ = callRecord(t, survivor, never)
			if rec.State != CallUnknown || rec.Attempts != 1 || rec.Unknown != 1 || !strings.Contains(rec.Error, "never recorded an outcome") {
				t.Errorf("at-most-once record %+v, want unknown after its one attempt", rec)
			}
			kind := map[string]string{"kind": "jobs_test.call"}
			eventually(t, "the rescues and completions to be counted", func() bool {
				rescuedN, _ := metric(t, survivor.Collector(), "kobana_jobs_rescued_total", kind)
				unknown, _ := metric(t, survivor.Collector(), "kobana_jobs_calls_unknown_total", kind)
				completed, _ := metric(t, survivor.Collector(), "kobana_jobs_completed_total", kind)
				return rescuedN == 2 && unknown == 2 && completed == 2
			})
		})
	}
}
