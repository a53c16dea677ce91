package kadu

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestMigrationsUpAndDown: Kadu's tables apply on both engines after the
// platform's, and each step rolls back.
func TestMigrationsUpAndDown(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		for _, table := range []string{"kadu_tasks", "kadu_executions", "kadu_execution_steps", "kadu_monthly_usage", "kadu_schedule_ticks", "kadu_files"} {
			var n int
			if err := db.Get(ctx, &n, "SELECT COUNT(*) FROM "+table); err != nil {
				t.Fatalf("%s: %v", table, err)
			}
		}
		// One step down per migration file, whoever added them.
		files, err := migrationFiles.ReadDir("migrations")
		if err != nil {
			t.Fatal(err)
		}
		for range files {
			if err := db.MigrateDown(ctx, Migrations); err != nil {
				t.Fatal(err)
			}
		}
		var n int
		if err := db.Get(ctx, &n, "SELECT COUNT(*) FROM kadu_tasks"); err == nil {
			t.Fatal("kadu_tasks is still there after the step down")
		}
	})
}

// TestTransitionTable: every pair of statuses is allowed exactly when the
// table says so, the error names both states, and ends are final.
func TestTransitionTable(t *testing.T) {
	t.Parallel()
	all := []string{records.ExecQueued, records.ExecRunning, records.ExecWaitingInput, records.ExecWaitingApproval, records.ExecWaitingBudget,
		records.ExecSucceeded, records.ExecFailed, records.ExecCanceled, records.ExecTimedOut, records.ExecCostExceeded}
	allowed := map[string]bool{
		"queued>running": true, "queued>canceled": true, "queued>failed": true, "queued>timed_out": true, "queued>cost_exceeded": true,
		"running>waiting_input": true, "running>waiting_approval": true, "running>waiting_budget": true, "running>succeeded": true, "running>failed": true,
		"running>canceled": true, "running>timed_out": true, "running>cost_exceeded": true,
		"waiting_input>queued": true, "waiting_input>running": true, "waiting_input>canceled": true, "waiting_input>failed": true,
		"waiting_approval>queued": true, "waiting_approval>running": true, "waiting_approval>canceled": true, "waiting_approval>failed": true,
		"waiting_budget>queued": true, "waiting_budget>canceled": true, "waiting_budget>cost_exceeded": true, "waiting_budget>failed": true,
	}
	for _, from := range all {
		for _, to := range all {
			err := records.CheckTransition(from, to)
			if allowed[from+">"+to] != (err == nil) {
				t.Errorf("%s → %s: %v", from, to, err)
			}
			if err != nil && (!errors.Is(err, records.ErrIllegalTransition) || !strings.Contains(err.Error(), from) || !strings.Contains(err.Error(), to)) {
				t.Errorf("%s → %s: error %q does not name both", from, to, err)
			}
		}
	}
	for _, s := range []string{records.ExecSucceeded, records.ExecFailed, records.ExecCanceled, records.ExecTimedOut, records.ExecCostExceeded} {
		if !records.IsTerminal(s) || records.IsActive(s) {
			t.Errorf("%s should be terminal", s)
		}
	}
	if !records.IsActive(records.ExecWaitingBudget) || !records.IsWait(records.ExecWaitingBudget) {
		t.Error("waiting_budget is an active wait")
	}
	if err := records.CheckTransition("bogus", records.ExecRunning); err == nil {
		t.Error("unknown status accepted")
	}
}

// newRecordsFixture is a migrated database with one organization, a task
// and a queued execution.
func newRecordsFixture(t *testing.T, db *store.DB) (*service, *records.Execution) {
	t.Helper()
	ctx := context.Background()
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	s := &service{db: db, cfg: Config{}.withDefaults(), now: func() time.Time { return now }}
	s.machine = &records.Machine{Clock: s.clock, ExecutionTimeout: s.cfg.ExecutionTimeout, WaitTimeout: s.cfg.WaitTimeout, Deliver: s}
	org := store.NewID()
	if _, err := db.Exec(ctx, `INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)`, org, "Org", now); err != nil {
		t.Fatal(err)
	}
	task := &records.Task{ID: store.NewID(), OrganizationID: org, OwnerUserID: "u1", Name: "t", Instructions: "do",
		Mode: records.ModeAgent, Status: records.TaskActive, CreatedAt: now, UpdatedAt: now}
	if err := records.InsertTask(ctx, db, task); err != nil {
		t.Fatal(err)
	}
	e := &records.Execution{ID: store.NewID(), OrganizationID: org, TaskID: task.ID, Trigger: records.TriggerManual,
		Status: records.ExecQueued, InputJSON: "{}", InputFileIDsJSON: "[]", MaxCostCents: 100, CreatedAt: now, UpdatedAt: now}
	if err := records.InsertExecution(ctx, db, e); err != nil {
		t.Fatal(err)
	}
	return s, e
}

// TestTransitionAndSteps: transitions write their timestamps and refuse a
// stale status; steps number themselves and their cost lands on the
// execution and the month in one transaction.
func TestTransitionAndSteps(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s, e := newRecordsFixture(t, db)
		stale := *e
		if err := s.machine.Transition(ctx, db, e, records.ExecRunning, records.Change{}); err != nil {
			t.Fatal(err)
		}
		if e.StartedAt == nil || e.Status != records.ExecRunning {
			t.Fatalf("after running: %+v", e)
		}
		if err := s.machine.Transition(ctx, db, &stale, records.ExecCanceled, records.Change{}); !errors.Is(err, records.ErrStaleExecution) {
			t.Fatalf("stale transition: %v", err)
		}
		if err := s.machine.Transition(ctx, db, e, records.ExecQueued, records.Change{}); !errors.Is(err, records.ErrIllegalTransition) {
			t.Fatalf("running → queued: %v", err)
		}
		for i := 1; i <= 2; i++ {
			st, err := s.machine.BeginStep(ctx, db, e, records.StepStart{Kind: records.StepToolCall, Tool: "inbox_emails_list",
				Arguments: json.RawMessage(`{"q":"x","auth":{"api_key":"sk-1","Password":"p"}}`)})
			if err != nil {
				t.Fatal(err)
			}
			if st.Seq != i || strings.Contains(*st.ArgumentsJSON, "sk-1") || strings.Contains(*st.ArgumentsJSON, `"p"`) {
				t.Fatalf("step %d: seq %d args %s", i, st.Seq, *st.ArgumentsJSON)
			}
			if err := s.machine.FinishStep(ctx, db, e, st, records.StepOutcome{Status: records.StepSucceeded, ResultSummary: "ok",
				Usage: records.Tokens{In: 100, Out: 10, Cached: 5}, CostCents: 7}); err != nil {
				t.Fatal(err)
			}
		}
		got, err := records.GetExecution(ctx, db, e.OrganizationID, e.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.CostCents != 14 || got.TokensIn != 200 || got.TokensOut != 20 || got.TokensCached != 10 || got.StepCount != 2 {
			t.Fatalf("execution totals: %+v", got)
		}
		u, err := records.MonthUsage(ctx, db, e.OrganizationID, "2026-03")
		if err != nil || u.CostCents != 14 || u.TokensIn != 200 {
			t.Fatalf("usage: %+v %v", u, err)
		}
		out := `{"ok":true}`
		if err := s.machine.Transition(ctx, db, e, records.ExecSucceeded, records.Change{Output: &out}); err != nil {
			t.Fatal(err)
		}
		got, _ = records.GetExecution(ctx, db, e.OrganizationID, e.ID)
		if got.FinishedAt == nil || got.OutputJSON == nil || *got.OutputJSON != out {
			t.Fatalf("after success: %+v", got)
		}
		if _, err := records.GetExecution(ctx, db, store.NewID(), e.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("other organization: %v", err)
		}
	})
}
