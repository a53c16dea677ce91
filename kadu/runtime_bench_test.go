package kadu

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/kadu/runtime"
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/oauth/server/sqlstore"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit/toolreg"
)

// Benchmarks of the runtime (not run in CI): how many executions of a
// three-step workflow one worker process carries per second, and what the
// runtime adds to a tool call over calling the tool's handler directly.
// KOBANA_TEST_ENGINES picks the engines (both by default).

type benchEnv struct {
	db     *store.DB
	s      *service
	cat    *testCatalog
	reg    *toolreg.Registry
	roles  oauth.RoleLookup
	task   *records.Task
	member accounts.User
}

func newBenchEnv(b *testing.B, db *store.DB, q *jobs.Queue) *benchEnv {
	b.Helper()
	ctx := context.Background()
	cat := newTestCatalog()
	reg := toolreg.New()
	alpha, _ := cat.Tools()
	_ = reg.Add("alpha", alpha)
	acc := accounts.New(db, accounts.Options{})
	org, err := acc.CreateOrganization(ctx, "Bench")
	if err != nil {
		b.Fatal(err)
	}
	member, err := acc.CreateUser(ctx, accounts.NewUser{Email: "member@bench.example", OrganizationID: org.ID, Role: identity.RoleMember})
	if err != nil {
		b.Fatal(err)
	}
	s := runtimeOnly(db, q, reg, Config{Plan: PlanLimits{MaxConcurrentExecutions: 1000, MonthlyCostLimitCents: 1 << 40}})
	var steps []records.WorkflowStep
	for _, st := range threeSteps()["steps"].([]map[string]any) {
		raw, _ := json.Marshal(st)
		var ws records.WorkflowStep
		_ = json.Unmarshal(raw, &ws)
		steps = append(steps, ws)
	}
	now := store.Now()
	task := &records.Task{ID: store.NewID(), OrganizationID: org.ID, OwnerUserID: member.ID, Name: "Bench", Mode: records.ModeWorkflow, Steps: steps,
		AllowedTools: []string{"alpha_list", "alpha_record"}, GrantedScopes: map[string][]string{"alpha": {"alpha.read", "alpha.write"}},
		Status: records.TaskActive, CreatedAt: now, UpdatedAt: now}
	if err := records.InsertTask(ctx, db, task); err != nil {
		b.Fatal(err)
	}
	return &benchEnv{db: db, s: s, cat: cat, reg: reg, roles: sqlstore.RoleLookup(db), task: task, member: member}
}

func toolRequest(name string, args json.RawMessage) *mcp.CallToolRequest {
	return &mcp.CallToolRequest{Name: name, Arguments: args}
}

func (be *benchEnv) queue(b *testing.B, n int) []string {
	ids := make([]string, n)
	for i := range ids {
		err := be.db.WithTx(context.Background(), func(tx *store.Tx) error {
			x, err := be.s.queueExecution(context.Background(), tx, be.task, runRequest{Trigger: records.TriggerManual, TriggeredBy: &be.member.ID,
				Input: map[string]any{"month": "2026-03"}})
			if err == nil {
				ids[i] = x.ID
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return ids
}

// BenchmarkWorkflowExecutions: executions of the three-step workflow
// (list, record, a skipped step: 3 steps, 2 tool calls, each step recorded
// before and after) that one worker process (River, 10 jobs at once)
// carries from queued to succeeded, per second.
func BenchmarkWorkflowExecutions(b *testing.B) {
	for _, engine := range storetest.Engines {
		b.Run(string(engine), func(b *testing.B) {
			ctx := context.Background()
			probe := storetest.Open(b, engine, Migrations)
			q, err := jobs.New(ctx, probe, jobs.Config{Work: true, PollInterval: 50 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				b.Fatal(err)
			}
			be := newBenchEnv(b, probe, q)
			jobs.AddWorker(q, be.s.runtime.Worker())
			ids := be.queue(b, b.N)
			b.ResetTimer()
			start := time.Now()
			if err := q.Start(ctx); err != nil {
				b.Fatal(err)
			}
			for {
				var n int
				if err := probe.Get(ctx, &n, `SELECT COUNT(*) FROM kadu_executions WHERE status = 'succeeded'`); err != nil {
					b.Fatal(err)
				}
				if n == len(ids) {
					break
				}
				var failed int
				_ = probe.Get(ctx, &failed, `SELECT COUNT(*) FROM kadu_executions WHERE status IN ('failed','canceled')`)
				if failed > 0 {
					var msg string
					_ = probe.Get(ctx, &msg, `SELECT COALESCE(error_message, '') FROM kadu_executions WHERE status = 'failed' LIMIT 1`)
					b.Fatalf("%d executions failed: %s", failed, msg)
				}
				time.Sleep(5 * time.Millisecond)
			}
			elapsed := time.Since(start)
			b.StopTimer()
			b.ReportMetric(float64(len(ids))/elapsed.Seconds(), "executions/s")
			sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			_ = q.Stop(sctx)
		})
	}
}

// BenchmarkToolCallOverhead: one tool call made directly (the handler),
// through the registry (the checks, the role read from the database), and
// by the runtime (the registry, the step recorded as started and then
// with its outcome and the checkpoint, each committed).
func BenchmarkToolCallOverhead(b *testing.B) {
	for _, engine := range storetest.Engines {
		b.Run(string(engine), func(b *testing.B) {
			ctx := context.Background()
			be := newBenchEnv(b, storetest.Open(b, engine, Migrations), nil)
			entry, _ := be.reg.Lookup("alpha_record")
			args := json.RawMessage(`{"boleto":"b1","amount":10.5}`)
			call := toolreg.Call{Tool: "alpha_record", Arguments: args, OrganizationID: be.task.OrganizationID, UserID: be.member.ID,
				Allowed: be.task.AllowedTools, Granted: be.task.GrantedScopes}
			b.Run("direct", func(b *testing.B) {
				id := &identity.Identity{OrganizationID: call.OrganizationID, UserID: call.UserID, Role: identity.RoleMember, Scopes: []string{"alpha.write"}}
				cctx := identity.With(ctx, id)
				for b.Loop() {
					if _, err := entry.Tool.Handler(cctx, toolRequest("alpha_record", args)); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("registry", func(b *testing.B) {
				for b.Loop() {
					if _, err := be.reg.Call(ctx, be.roles, call); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("runtime", func(b *testing.B) {
				now := store.Now()
				x := &records.Execution{ID: store.NewID(), OrganizationID: be.task.OrganizationID, TaskID: be.task.ID, Trigger: records.TriggerManual,
					TriggeredBy: &be.member.ID, Status: records.ExecRunning, InputJSON: `{}`, InputFileIDsJSON: `[]`, StartedAt: &now, CreatedAt: now, UpdatedAt: now}
				if err := records.InsertExecution(ctx, be.db, x); err != nil {
					b.Fatal(err)
				}
				cp := &runtime.Checkpoint{Results: map[string]json.RawMessage{}}
				for b.Loop() {
					ans, failed, err := be.s.runtime.CallTool(ctx, x, be.task, cp, "0", "alpha_record", args)
					if err != nil || failed {
						b.Fatal(err, string(ans))
					}
				}
			})
		})
	}
}
