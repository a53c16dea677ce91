package kadu

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/kadu/runtime"
	"github.com/kobana/kobana-mcp/oauth/server/sqlstore"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit"
)

// replica is one process's Kadu service on a shared database, with its
// own job queue and clock.
type replica struct {
	svc   *service
	queue *jobs.Queue
	now   time.Time
	mu    sync.Mutex
}

func (r *replica) set(t time.Time) {
	r.mu.Lock()
	r.now = t
	r.mu.Unlock()
}

func newReplica(t *testing.T, db *store.DB, cfg Config) *replica {
	t.Helper()
	q, err := jobs.New(context.Background(), db, jobs.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	r := &replica{queue: q}
	r.svc = newService(productkit.Deps{DB: db, Jobs: q, Roles: sqlstore.RoleLookup(db)}, cfg)
	r.svc.now = func() time.Time {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.now
	}
	registerJobs(r.svc, q)
	return r
}

// scheduledTask inserts an active task of a new organization with a
// schedule counted from since.
func scheduledTask(t *testing.T, db *store.DB, cron, tz string, since time.Time) *records.Task {
	t.Helper()
	ctx := context.Background()
	acc := accounts.New(db, accounts.Options{})
	org, err := acc.CreateOrganization(ctx, "Sched")
	if err != nil {
		t.Fatal(err)
	}
	owner, err := acc.CreateUser(ctx, accounts.NewUser{Email: "o" + store.NewID() + "@sched.example", OrganizationID: org.ID, Role: identity.RoleOwner})
	if err != nil {
		t.Fatal(err)
	}
	tk := &records.Task{ID: store.NewID(), OrganizationID: org.ID, OwnerUserID: owner.ID, Name: "Diário", Mode: records.ModeWorkflow,
		Steps: []records.WorkflowStep{{Tool: "inbox_emails_list"}}, AllowedTools: []string{"inbox_emails_list"},
		ScheduleCron: &cron, ScheduleTimezone: &tz, ScheduleSince: &since, Status: records.TaskActive, CreatedAt: since, UpdatedAt: since}
	if err := records.InsertTask(ctx, db, tk); err != nil {
		t.Fatal(err)
	}
	return tk
}

// TestScheduleOneExecutionPerTick: two replicas (two job queues) running
// the scheduler at the same instant, several times, queue exactly one
// execution per tick; the next tick is skipped, and recorded so, while
// that execution is active; a paused task ticks not at all; a tick older
// than the lookback is dropped.
func TestScheduleOneExecutionPerTick(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		a, b := newReplica(t, db, Config{}), newReplica(t, db, Config{})
		tk := scheduledTask(t, db, "0 8 * * *", "America/Sao_Paulo", mustTime("2026-03-10T10:00:00Z"))
		tick := mustTime("2026-03-10T11:00:00Z") // 08:00 in São Paulo
		tickAll := func(now time.Time) {
			t.Helper()
			a.set(now)
			b.set(now)
			var wg sync.WaitGroup
			errs := make(chan error, 6)
			for range 3 {
				for _, r := range []*replica{a, b} {
					wg.Add(1)
					go func() {
						defer wg.Done()
						_, err := r.svc.runSchedules(ctx, r.svc.clock())
						errs <- err
					}()
				}
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
		}
		count := func(q string, args ...any) int {
			t.Helper()
			var n int
			if err := db.Get(ctx, &n, q, args...); err != nil {
				t.Fatal(err)
			}
			return n
		}

		tickAll(tick.Add(-time.Second)) // not yet
		if n := count(`SELECT COUNT(*) FROM kadu_executions`); n != 0 {
			t.Fatalf("before the tick: %d", n)
		}
		tickAll(tick.Add(30 * time.Second))
		var execs []*records.Execution
		if err := db.Select(ctx, &execs, `SELECT `+records.ExecutionColumns+` FROM kadu_executions`); err != nil {
			t.Fatal(err)
		}
		if len(execs) != 1 || execs[0].Trigger != records.TriggerSchedule || execs[0].TickAt == nil || !execs[0].TickAt.Equal(tick) ||
			execs[0].TriggeredBy == nil || *execs[0].TriggeredBy != tk.OwnerUserID || execs[0].Status != records.ExecQueued {
			t.Fatalf("executions: %d %+v", len(execs), execs)
		}
		if n := count(`SELECT COUNT(*) FROM river_job WHERE kind = ?`, runtime.RunExecutionKind); n != 1 {
			t.Fatalf("%d jobs", n)
		}
		var tr records.Tick
		if err := db.Get(ctx, &tr, `SELECT task_id, tick, organization_id, outcome, execution_id, reason, created_at FROM kadu_schedule_ticks`); err != nil ||
			tr.Outcome != tickQueued || tr.ExecutionID == nil || *tr.ExecutionID != execs[0].ID {
			t.Fatalf("tick: %+v %v", tr, err)
		}

		// The next day, the first is still queued: skipped, recorded.
		tickAll(tick.Add(24*time.Hour + time.Minute))
		if n := count(`SELECT COUNT(*) FROM kadu_executions`); n != 1 {
			t.Fatalf("skipped tick queued: %d", n)
		}
		var reason string
		if err := db.Get(ctx, &reason, `SELECT reason FROM kadu_schedule_ticks WHERE outcome = 'skipped'`); err != nil || !strings.Contains(reason, "still active") {
			t.Fatalf("skip: %q %v", reason, err)
		}

		// Once it ended, the day after queues again.
		if err := a.svc.machine.Transition(ctx, db, execs[0], records.ExecCanceled, records.Change{}); err != nil {
			t.Fatal(err)
		}
		tickAll(tick.Add(48*time.Hour + time.Minute))
		if n := count(`SELECT COUNT(*) FROM kadu_executions WHERE status = 'queued'`); n != 1 {
			t.Fatalf("third day: %d queued", n)
		}

		// A tick beyond the lookback is dropped; a paused task ticks not.
		if _, err := db.Exec(ctx, `UPDATE kadu_executions SET status = 'succeeded'`); err != nil {
			t.Fatal(err)
		}
		tickAll(tick.Add(72*time.Hour + scheduleLookback + time.Minute))
		if _, err := db.Exec(ctx, `UPDATE kadu_tasks SET status = 'paused'`); err != nil {
			t.Fatal(err)
		}
		tickAll(tick.Add(96*time.Hour + time.Minute))
		if n, m := count(`SELECT COUNT(*) FROM kadu_executions`), count(`SELECT COUNT(*) FROM kadu_schedule_ticks`); n != 2 || m != 3 {
			t.Fatalf("after the lookback and paused: %d executions, %d ticks", n, m)
		}
	})
}

// TestScheduleRefusalsAreSkips: a tick whose run the plan refuses is
// recorded as skipped with the refusal's code (two ticks: 10:00, the
// instant the schedule counts from, and 10:05).
func TestScheduleRefusalsAreSkips(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.SQLite, Migrations)
	r := newReplica(t, db, Config{})
	tk := scheduledTask(t, db, "*/5 * * * *", "UTC", mustTime("2026-03-10T10:00:00Z"))
	if err := records.AddUsage(context.Background(), db, tk.OrganizationID, "2026-03", defaultMonthlyCostLimitCents, records.Tokens{}, 0, store.Now()); err != nil {
		t.Fatal(err)
	}
	r.set(mustTime("2026-03-10T10:05:10Z"))
	res, err := r.svc.runSchedules(context.Background(), r.svc.clock())
	if err != nil || res.Skipped != 2 || res.Queued != 0 {
		t.Fatalf("%+v %v", res, err)
	}
	var reason string
	if err := db.Get(context.Background(), &reason, `SELECT reason FROM kadu_schedule_ticks LIMIT 1`); err != nil || !strings.HasPrefix(reason, codePlanLimitReached) {
		t.Fatalf("reason %q %v", reason, err)
	}
}

// TestTimeouts: running past its deadline ends timed_out; waiting past
// its deadline ends failed with the reason; before it, nothing changes.
func TestTimeouts(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		r := newReplica(t, db, Config{ExecutionTimeout: time.Hour, WaitTimeout: 2 * time.Hour})
		tk := scheduledTask(t, db, "@daily", "UTC", mustTime("2026-03-10T00:00:00Z"))
		start := mustTime("2026-03-10T12:00:00Z")
		r.set(start)
		mk := func(to ...string) *records.Execution {
			e := &records.Execution{ID: store.NewID(), OrganizationID: tk.OrganizationID, TaskID: tk.ID, Trigger: records.TriggerAPI, Status: records.ExecQueued,
				InputJSON: "{}", InputFileIDsJSON: "[]", MaxCostCents: 100, CreatedAt: start, UpdatedAt: start}
			if err := records.InsertExecution(ctx, db, e); err != nil {
				t.Fatal(err)
			}
			for _, s := range to {
				if err := r.svc.machine.Transition(ctx, db, e, s, records.Change{}); err != nil {
					t.Fatal(err)
				}
			}
			return e
		}
		running := mk(records.ExecRunning)
		input := mk(records.ExecRunning, records.ExecWaitingInput)
		appr := mk(records.ExecRunning, records.ExecWaitingApproval)
		queued := mk()
		if !running.Deadline.Equal(start.Add(time.Hour)) || !input.Deadline.Equal(start.Add(2*time.Hour)) || queued.Deadline != nil {
			t.Fatalf("deadlines: %v %v %v", running.Deadline, input.Deadline, queued.Deadline)
		}
		if n, err := r.svc.expireExecutions(ctx, start.Add(59*time.Minute)); err != nil || n != 0 {
			t.Fatalf("early: %d %v", n, err)
		}
		if n, err := r.svc.expireExecutions(ctx, start.Add(61*time.Minute)); err != nil || n != 1 {
			t.Fatalf("running: %d %v", n, err)
		}
		if n, err := r.svc.expireExecutions(ctx, start.Add(3*time.Hour)); err != nil || n != 2 {
			t.Fatalf("waiting: %d %v", n, err)
		}
		for _, c := range []struct {
			e            *records.Execution
			status, code string
		}{{running, records.ExecTimedOut, "timed_out"}, {input, records.ExecFailed, "input_timeout"}, {appr, records.ExecFailed, "approval_timeout"}, {queued, records.ExecQueued, ""}} {
			got, err := records.GetExecution(ctx, db, tk.OrganizationID, c.e.ID)
			if err != nil || got.Status != c.status || deref(got.ErrorCode) != c.code || (c.code != "" && (got.ErrorMessage == nil || got.FinishedAt == nil)) {
				t.Errorf("%s: %+v %v", c.status, got, err)
			}
		}
	})
}
