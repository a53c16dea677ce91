package approval_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit/approval"
	"github.com/kobana/kobana-mcp/productkit/approval/approvaltest"
)

// runAgain is a second delivery of an approved call's job (a retry, or
// River's rescue of the job of a process that died): the same kind and
// arguments as the job Continuar enqueues.
type runAgain struct {
	ApprovalID string `json:"approval_id"`
}

func (runAgain) Kind() string { return approval.RunKind }

// TestApprovedCallRunsAsAJob: with a queue, Continuar commits the move to
// approved together with the job that runs the call, and runs nothing in
// the process that showed the page (its queue only inserts: a replica
// that could die right after the click). Another process's worker — a
// policy without pages, as the worker process has — runs the call once;
// the job delivered again runs nothing more; and the job of a run whose
// process died mid-call (claimed, never finished) marks it failed with
// its outcome unknown instead of running it again.
func TestApprovedCallRunsAsAJob(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		quiet := slog.New(slog.DiscardHandler)
		page, err := jobs.New(ctx, db, jobs.Config{Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		e := newEnv(t, db, approvaltest.Options{Jobs: page})
		l := e.createLink(`{"project":"alpha","reason":"fim do contrato"}`)
		b := e.browser()
		p := b.open(l.ApprovalURL, approvaltest.OwnerEmail, approvaltest.OwnerPassword)
		b.decide(p, l.ApprovalURL, "continuar")
		time.Sleep(300 * time.Millisecond)
		if a := e.approval(l.ApprovalID); a.Status != approval.StatusApproved {
			t.Fatalf("after Continuar with an insert-only queue: %s", a.Status)
		}
		e.wantRuns("alpha", 0)
		if n := jobCount(t, db, ""); n != 1 {
			t.Fatalf("%d run jobs after Continuar, want 1", n)
		}

		worker, err := jobs.New(ctx, db, jobs.Config{Work: true, PollInterval: 50 * time.Millisecond, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		runner, err := approval.New(approval.Options{DB: db, PublicURL: e.srv.URL, Tools: e.srv.Projects.Tools(), Jobs: worker,
			Roles: approvaltest.RoleLookup(e.srv.Accounts), RunTimeout: time.Second, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		_ = runner
		if err := worker.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = worker.Stop(sctx)
		})
		a := e.waitStatus(l.ApprovalID, approval.StatusSucceeded)
		e.wantRuns("alpha", 1)
		if a.ResultText() != `{"deleted":"alpha","runs":1}` {
			t.Errorf("recorded outcome: %q", a.ResultText())
		}

		if _, err := worker.Enqueue(ctx, runAgain{ApprovalID: l.ApprovalID}, nil); err != nil {
			t.Fatal(err)
		}
		waitJobs(t, db, 2)
		e.wantRuns("alpha", 1)

		// A run whose process died after claiming it.
		dead := e.createLink(`{"project":"beta"}`)
		if ok, err := e.srv.Policy.Store().Approve(ctx, dead.ApprovalID, e.srv.Owner.ID); err != nil || !ok {
			t.Fatalf("approve: %v %v", ok, err)
		}
		if ok, err := e.srv.Policy.Store().Claim(ctx, dead.ApprovalID); err != nil || !ok {
			t.Fatalf("claim: %v %v", ok, err)
		}
		if _, err := db.Exec(ctx, `UPDATE approvals SET started_at = ? WHERE id = ?`, time.Now().UTC().Add(-time.Hour), dead.ApprovalID); err != nil {
			t.Fatal(err)
		}
		if _, err := worker.Enqueue(ctx, runAgain{ApprovalID: dead.ApprovalID}, nil); err != nil {
			t.Fatal(err)
		}
		got := e.waitStatus(dead.ApprovalID, approval.StatusFailed)
		if !strings.Contains(got.ResultText(), "interrupted") {
			t.Errorf("abandoned run's outcome: %q", got.ResultText())
		}
		e.wantRuns("beta", 0)
	})
}

// jobCount counts the run jobs in state ("" any).
func jobCount(t *testing.T, db *store.DB, state string) int {
	t.Helper()
	var n int
	q := `SELECT COUNT(*) FROM river_job WHERE kind = ?`
	args := []any{approval.RunKind}
	if state != "" {
		q += ` AND state = ?`
		args = append(args, state)
	}
	if err := db.Get(context.Background(), &n, q, args...); err != nil {
		t.Fatal(err)
	}
	return n
}

// waitJobs waits until n run jobs have completed.
func waitJobs(t *testing.T, db *store.DB, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for jobCount(t, db, "completed") < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d run jobs completed, want %d", jobCount(t, db, "completed"), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
