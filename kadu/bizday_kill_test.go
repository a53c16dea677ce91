package kadu

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/internal/childproc"
	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/kadu/runtime"
	"github.com/kobana/kobana-mcp/oauth/server/sqlstore"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit"
)

// schedulerEnv, when set, makes the test binary a Kadu scheduler process
// that runs the scheduler over and over at one instant until it is
// killed: the JSON of a schedulerConfig.
const schedulerEnv = "KOBANA_KADU_TEST_SCHEDULER"

type schedulerConfig struct {
	DatabaseURL string    `json:"database_url"`
	Now         time.Time `json:"now"`
}

// runSchedulerProcess is the scheduler process of
// TestBusinessDaySchedulerKilled.
func runSchedulerProcess(raw []byte) int {
	var cfg schedulerConfig
	if err := json.Unmarshal(raw, &cfg); err != nil {
		fmt.Fprintln(os.Stderr, "scheduler:", err)
		return 2
	}
	ctx := context.Background()
	db, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scheduler:", err)
		return 2
	}
	q, err := jobs.New(ctx, db, jobs.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fmt.Fprintln(os.Stderr, "scheduler:", err)
		return 2
	}
	s := newService(productkit.Deps{DB: db, Jobs: q, Roles: sqlstore.RoleLookup(db)}, Config{})
	s.now = func() time.Time { return cfg.Now }
	registerJobs(s, q)
	for {
		if _, err := s.runSchedules(ctx, cfg.Now); err != nil {
			fmt.Fprintln(os.Stderr, "scheduler:", err)
		}
	}
}

// TestBusinessDaySchedulerKilled: a scheduler process queueing Ash
// Wednesday 2027's runs — where the ticks of Carnival's closed days land
// under "next" — is killed with SIGKILL as soon as its first tick is
// committed, in the middle of its pass over the tasks. The scheduler of
// another process, at the same instant, then queues what is left: every
// task has exactly one execution for that run, one tick row that names
// it, and one job; nothing half-written survives the kill.
func TestBusinessDaySchedulerKilled(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts and kills a scheduler process")
	}
	const tasks = 40
	now := mustTime("2027-02-10T12:00:30Z") // 09:00:30 in São Paulo
	for _, engine := range storetest.Engines {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db, dbURL := storetest.OpenShared(t, engine, Migrations)
			rule := "next"
			for range tasks {
				tk := scheduledTask(t, db, "0 9 * * *", "America/Sao_Paulo", mustTime("2027-02-05T13:00:00Z"))
				tk.ScheduleBusinessDay = &rule
				if err := records.UpdateTask(ctx, db, tk); err != nil {
					t.Fatal(err)
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

			child := childproc.Start(t, schedulerEnv, schedulerConfig{DatabaseURL: dbURL, Now: now})
			deadline := time.Now().Add(60 * time.Second)
			for count(`SELECT COUNT(*) FROM kadu_schedule_ticks`) == 0 {
				if time.Now().After(deadline) {
					t.Fatalf("the scheduler process queued nothing in a minute: %s", child.Output())
				}
				time.Sleep(time.Millisecond)
			}
			child.Kill(t)
			before := count(`SELECT COUNT(*) FROM kadu_schedule_ticks`)
			t.Logf("%d of %d ticks committed before the kill", before, tasks)

			survivor := newReplica(t, db, Config{})
			survivor.set(now)
			if _, err := survivor.svc.runSchedules(ctx, now); err != nil {
				t.Fatal(err)
			}
			if n := count(`SELECT COUNT(*) FROM kadu_executions WHERE tick_at = ?`, mustTime("2027-02-10T12:00:00Z")); n != tasks {
				t.Fatalf("%d executions of Ash Wednesday's run, want %d", n, tasks)
			}
			if n := count(`SELECT COUNT(*) FROM kadu_executions`); n != tasks {
				t.Fatalf("%d executions in all, want %d (one per task)", n, tasks)
			}
			if n := count(`SELECT COUNT(DISTINCT task_id) FROM kadu_executions`); n != tasks {
				t.Fatalf("executions over %d tasks, want %d", n, tasks)
			}
			if n := count(`SELECT COUNT(*) FROM kadu_schedule_ticks t JOIN kadu_executions e ON e.id = t.execution_id
				WHERE t.outcome = 'queued' AND e.task_id = t.task_id`); n != tasks {
				t.Fatalf("%d tick rows naming their execution, want %d", n, tasks)
			}
			if n := count(`SELECT COUNT(*) FROM river_job WHERE kind = ?`, runtime.RunExecutionKind); n != tasks {
				t.Fatalf("%d jobs, want %d", n, tasks)
			}
			if out := child.Output(); strings.Contains(out, "scheduler:") {
				t.Logf("the scheduler process said before the kill (a tick it could not claim is the survivor's): %s", out)
			}
		})
	}
}
