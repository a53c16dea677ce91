package kadu

import (
	"context"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestWaitingBudgetMigrationOnPopulatedData: 00350 rebuilds
// kadu_executions (its status CHECK gains waiting_budget) and
// kadu_execution_steps over rows the schema before it held: every row and
// column is kept, the steps still belong to their execution (deleting it
// deletes them), waiting_budget is accepted and an unknown status still
// refused; down, a waiting_budget execution ends cost_exceeded and the
// rest is kept again.
func TestWaitingBudgetMigrationOnPopulatedData(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db, err := store.Open(ctx, storetest.URL(t, engine))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = db.Close() })
			if _, err := db.MigrateTo(ctx, 340, Migrations); err != nil {
				t.Fatal(err)
			}
			org, err := accounts.New(db, accounts.Options{}).CreateOrganization(ctx, "Mine")
			if err != nil {
				t.Fatal(err)
			}
			now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
			if _, err := db.Exec(ctx, `INSERT INTO kadu_tasks (id, organization_id, owner_user_id, name, instructions, mode, steps, allowed_tools,
				granted_scopes, triggerers, destinations, status, created_at, updated_at) VALUES ('t1', ?, 'u1', 'Tarefa', 'do', 'agent', '[]', '[]', '{}',
				'{"users":[],"roles":[]}', '[]', 'active', ?, ?)`, org.ID, now, now); err != nil {
				t.Fatal(err)
			}
			for i, st := range []string{"running", "succeeded"} {
				if _, err := db.Exec(ctx, `INSERT INTO kadu_executions (id, organization_id, task_id, trigger_kind, triggered_by, status, model, input,
					input_file_ids, max_cost_cents, cost_cents, tokens_in, tokens_out, tokens_cached, step_count, checkpoint, resume_input, deadline,
					created_at, updated_at, trace_parent) VALUES (?, ?, 't1', 'manual', 'u1', ?, 'm', '{"month":"2026-03"}', '[]', 250, ?, 10, 2, 1, 1,
					'{"model_steps":1}', NULL, ?, ?, ?, '00-abc-def-01')`, "e"+string(rune('1'+i)), org.ID, st, int64(101*(i+1)), now.Add(time.Hour), now, now); err != nil {
					t.Fatal(err)
				}
				if _, err := db.Exec(ctx, `INSERT INTO kadu_execution_steps (id, organization_id, execution_id, seq, kind, tool_name, arguments,
					result_summary, status, tokens_in, tokens_out, tokens_cached, cost_cents, duration_ms, started_at, finished_at, created_at, updated_at)
					VALUES (?, ?, ?, 1, 'llm', NULL, '{"model":"m"}', 'asked to call alpha_list', 'succeeded', 10, 2, 1, 101, 40, ?, ?, ?, ?)`,
					"s"+string(rune('1'+i)), org.ID, "e"+string(rune('1'+i)), now, now, now, now); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := db.MigrateTo(ctx, 350, Migrations); err != nil {
				t.Fatal(err)
			}
			var got []struct {
				ID          string    `db:"id"`
				Status      string    `db:"status"`
				Cost        int64     `db:"cost_cents"`
				Checkpoint  string    `db:"checkpoint"`
				TraceParent string    `db:"trace_parent"`
				Deadline    time.Time `db:"deadline"`
				Steps       int       `db:"steps"`
				StepCost    int64     `db:"step_cost"`
			}
			if err := db.Select(ctx, &got, `SELECT e.id, e.status, e.cost_cents, e.checkpoint, e.trace_parent, e.deadline,
				(SELECT COUNT(*) FROM kadu_execution_steps s WHERE s.execution_id = e.id) AS steps,
				(SELECT SUM(s.cost_cents) FROM kadu_execution_steps s WHERE s.execution_id = e.id) AS step_cost
				FROM kadu_executions e ORDER BY e.id`); err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 || got[0].ID != "e1" || got[0].Status != "running" || got[0].Cost != 101 || got[0].Checkpoint != `{"model_steps":1}` ||
				got[0].TraceParent != "00-abc-def-01" || !got[0].Deadline.Equal(now.Add(time.Hour)) || got[0].Steps != 1 || got[0].StepCost != 101 ||
				got[1].Status != "succeeded" || got[1].Cost != 202 || got[1].Steps != 1 {
				t.Fatalf("after 00350: %+v", got)
			}
			if _, err := db.Exec(ctx, `UPDATE kadu_executions SET status = 'waiting_budget' WHERE id = 'e1'`); err != nil {
				t.Fatalf("waiting_budget refused: %v", err)
			}
			if _, err := db.Exec(ctx, `UPDATE kadu_executions SET status = 'paused_forever' WHERE id = 'e1'`); err == nil {
				t.Fatal("an unknown status was accepted")
			}
			// The steps still reference their execution, ON DELETE CASCADE.
			if _, err := db.Exec(ctx, `INSERT INTO kadu_execution_steps (id, organization_id, execution_id, seq, kind, status, tokens_in, tokens_out,
				tokens_cached, cost_cents, duration_ms, started_at, created_at, updated_at) VALUES ('sx', ?, 'nope', 1, 'llm', 'started', 0, 0, 0, 0, 0, ?, ?, ?)`,
				org.ID, now, now, now); err == nil {
				t.Fatal("a step of no execution was accepted")
			}
			if _, err := db.Exec(ctx, `DELETE FROM kadu_executions WHERE id = 'e2'`); err != nil {
				t.Fatal(err)
			}
			var n int
			if err := db.Get(ctx, &n, `SELECT COUNT(*) FROM kadu_execution_steps WHERE execution_id = 'e2'`); err != nil || n != 0 {
				t.Fatalf("the deleted execution's steps: %d %v", n, err)
			}

			if err := db.MigrateDown(ctx, Migrations); err != nil {
				t.Fatal(err)
			}
			var end struct {
				Status string `db:"status"`
				Code   string `db:"error_code"`
			}
			if err := db.Get(ctx, &end, `SELECT status, error_code FROM kadu_executions WHERE id = 'e1'`); err != nil {
				t.Fatal(err)
			}
			if end.Status != "cost_exceeded" || end.Code != "cost_exceeded" {
				t.Fatalf("down: e1 %+v", end)
			}
			if err := db.Get(ctx, &n, `SELECT COUNT(*) FROM kadu_execution_steps WHERE execution_id = 'e1'`); err != nil || n != 1 {
				t.Fatalf("down: e1's steps %d %v", n, err)
			}
			if _, err := db.Exec(ctx, `UPDATE kadu_executions SET status = 'waiting_budget' WHERE id = 'e1'`); err == nil {
				t.Fatal("down: waiting_budget still accepted")
			}
		})
	}
}
