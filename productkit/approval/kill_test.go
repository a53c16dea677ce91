package approval_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/internal/childproc"
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit/approval"
	"github.com/kobana/kobana-mcp/productkit/approval/approvaltest"
)

// The kill test's times, in the order the queue requires: an approved
// call runs for at most killRunTimeout (its job for that plus the 30 s
// the worker keeps to record the outcome), and River rescues a job
// running longer than killRescueAfter (its process died).
const (
	killRunTimeout  = time.Second
	killRescueAfter = 32 * time.Second
)

// runnerEnv, when set, makes the test binary a worker process that runs
// approved calls from the queue until it is killed: the JSON of a
// runnerConfig.
const runnerEnv = "KOBANA_APPROVAL_TEST_RUNNER"

type runnerConfig struct {
	DatabaseURL string `json:"database_url"`
	// HangURL is where the process's projects_delete reports that it
	// started, and waits for an answer that never comes.
	HangURL string `json:"hang_url"`
}

func TestMain(m *testing.M) {
	childproc.Serve(runnerEnv, runRunnerProcess)
	os.Exit(m.Run())
}

// runRunnerProcess is the worker process: a policy over the database
// whose projects_delete calls HangURL (ignoring its context, as a call
// stuck in the network would) and the queue's worker for approved calls.
func runRunnerProcess(raw []byte) int {
	var cfg runnerConfig
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return 2
	}
	ctx := context.Background()
	db, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return 2
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	q, err := jobs.New(ctx, db, jobs.Config{Work: true, PollInterval: 50 * time.Millisecond, JobTimeout: killRunTimeout,
		RescueAfter: killRescueAfter, Logger: log})
	if err != nil {
		return 2
	}
	tools := approvaltest.NewProjects().Tools()
	for i := range tools {
		if tools[i].Name == "projects_delete" {
			tools[i].Handler = func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				resp, err := http.Post(cfg.HangURL, "application/json", nil)
				if err == nil {
					resp.Body.Close()
				}
				return mcp.TextResult(`{"deleted":"alpha"}`), nil
			}
		}
	}
	if _, err := approval.New(approval.Options{DB: db, PublicURL: "http://127.0.0.1", Tools: tools, Jobs: q,
		Roles: approvaltest.RoleLookup(accounts.New(db, accounts.Options{})), RunTimeout: killRunTimeout, Logger: log}); err != nil {
		return 2
	}
	if err := q.Start(ctx); err != nil {
		return 2
	}
	select {} // until killed
}

// TestRunnerKilledMidCall: a worker process takes an approved call's job,
// claims the approval and is killed with SIGKILL while the tool's call is
// in flight. River rescues the job; a worker in this process runs it
// again, finds the approval claimed by a run that never finished, and
// marks it failed with its outcome unknown — without calling the tool a
// second time: the person decides whether to try again.
func TestRunnerKilledMidCall(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts and kills a worker process")
	}
	for _, engine := range storetest.Engines {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			quiet := slog.New(slog.DiscardHandler)
			db, dbURL := storetest.OpenShared(t, engine)
			page, err := jobs.New(ctx, db, jobs.Config{Logger: quiet})
			if err != nil {
				t.Fatal(err)
			}
			e := newEnv(t, db, approvaltest.Options{Jobs: page})
			l := e.createLink(`{"project":"alpha","reason":"fim do contrato"}`)
			if ok, err := e.srv.Policy.Store().Approve(ctx, l.ApprovalID, e.srv.Owner.ID); err != nil || !ok {
				t.Fatalf("approve: %v %v", ok, err)
			}
			if _, err := page.Enqueue(ctx, runAgain{ApprovalID: l.ApprovalID}, nil); err != nil {
				t.Fatal(err)
			}

			var calls atomic.Int64
			arrived := make(chan struct{}, 8)
			release := make(chan struct{})
			hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				arrived <- struct{}{}
				select {
				case <-release:
				case <-r.Context().Done():
				}
			}))
			t.Cleanup(func() { close(release); hang.Close() })

			child := childproc.Start(t, runnerEnv, runnerConfig{DatabaseURL: dbURL, HangURL: hang.URL})
			select {
			case <-arrived:
			case <-time.After(60 * time.Second):
				t.Fatal("the worker process never made the call")
			}
			claimed := time.Now()
			if a := e.approval(l.ApprovalID); a.Status != approval.StatusRunning {
				t.Fatalf("while the call is in flight: %s, want running", a.Status)
			}
			child.Kill(t)
			if a := e.approval(l.ApprovalID); a.Status != approval.StatusRunning {
				t.Fatalf("after the kill: %s, want still running (nobody recorded an outcome)", a.Status)
			}

			// The surviving worker, once the job is stuck: River's leader
			// looks for stuck jobs when it starts.
			time.Sleep(time.Until(claimed.Add(killRescueAfter + time.Second)))
			survivor, err := jobs.New(ctx, db, jobs.Config{Work: true, PollInterval: 50 * time.Millisecond, JobTimeout: killRunTimeout,
				RescueAfter: killRescueAfter, Logger: quiet})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := approval.New(approval.Options{DB: db, PublicURL: e.srv.URL, Tools: e.srv.Projects.Tools(), Jobs: survivor,
				Roles: approvaltest.RoleLookup(e.srv.Accounts), RunTimeout: killRunTimeout, Logger: quiet}); err != nil {
				t.Fatal(err)
			}
			if err := survivor.Start(ctx); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				_ = survivor.Stop(sctx)
			})
			var got *approval.Approval
			for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
				got = e.approval(l.ApprovalID)
				if got.Status.Final() || time.Now().After(deadline) {
					break
				}
			}
			if got.Status != approval.StatusFailed || !strings.Contains(got.ResultText(), "interrupted") {
				t.Fatalf("after the rescue: %s %q, want failed, interrupted", got.Status, got.ResultText())
			}
			var attempts int
			if err := db.Get(ctx, &attempts, `SELECT MAX(attempt) FROM river_job WHERE kind = ?`, approval.RunKind); err != nil {
				t.Fatal(err)
			}
			if attempts < 2 {
				t.Errorf("the run job was attempted %d times: the rescue did not run it again", attempts)
			}
			// The one call is the one the kill cut off: the survivor's
			// projects_delete never ran, and nothing reached the hanging
			// endpoint again.
			time.Sleep(500 * time.Millisecond)
			e.wantRuns("alpha", 0)
			if n := calls.Load(); n != 1 {
				t.Errorf("the tool was called %d times, want 1", n)
			}
		})
	}
}
