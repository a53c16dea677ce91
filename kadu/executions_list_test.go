package kadu

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// seedExecutions writes two tasks of the organization and n executions
// in one statement, bypassing the runtime (the listing reads only the
// row): one in ten of task a, the rest of task b; one in seven failed,
// the rest succeeded; triggers schedule, api and manual in turn; ids
// the zero-padded i × stride, a dash and tag, ascending (a stride spreads
// them among another organization's). It returns the tasks' ids. The listing's
// tests and benchmark seed with it (docs/decisions.md, "Listings at
// scale").
func seedExecutions(t testing.TB, db *store.DB, tag, orgID, ownerID string, n, stride int) (a, b string) {
	t.Helper()
	ctx := context.Background()
	now := store.Now()
	a, b = tag+"-task-a", tag+"-task-b"
	for _, id := range []string{a, b} {
		if _, err := db.Exec(ctx, `INSERT INTO kadu_tasks (id, organization_id, owner_user_id, name, instructions, mode, steps, allowed_tools,
			granted_scopes, triggerers, destinations, status, created_at, updated_at)
			VALUES (?, ?, ?, ?, 'seeded', 'workflow', '[]', '[]', '{}', '{}', '[]', 'active', ?, ?)`, id, orgID, ownerID, id, now, now); err != nil {
			t.Fatal(err)
		}
	}
	gen, id := `generate_series(1, ?) AS g(i)`, `lpad((i * ?)::text, 10, '0') || '-' || ?`
	if db.Dialect() == store.SQLite {
		gen = `(WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ?) SELECT i FROM s) AS g`
		id = `printf('%010d', i * ?) || '-' || ?`
	}
	if _, err := db.Exec(ctx, `INSERT INTO kadu_executions (id, organization_id, task_id, trigger_kind, triggered_by, status, input, input_file_ids,
		max_cost_cents, cost_cents, tokens_in, tokens_out, tokens_cached, step_count, created_at, updated_at)
		SELECT `+id+`, ?, CASE WHEN i % 10 = 0 THEN ? ELSE ? END,
			CASE i % 3 WHEN 0 THEN 'schedule' WHEN 1 THEN 'api' ELSE 'manual' END, ?,
			CASE WHEN i % 7 = 0 THEN 'failed' ELSE 'succeeded' END, '{}', '[]', 100, 1, 0, 0, 0, 1, ?, ?
		FROM `+gen, stride, tag, orgID, a, b, ownerID, now, now, n); err != nil {
		t.Fatal(err)
	}
	if db.Dialect() == store.Postgres {
		if _, err := db.Exec(ctx, `ANALYZE kadu_executions`); err != nil {
			t.Fatal(err)
		}
	}
	return a, b
}

// TestExecutionsListPlans pins the plans of kadu_executions_list's
// statement (records.ExecutionsListQuery) on both engines: with a few thousand
// executions every filter combination the route takes reads an index in
// the listing's order and stops at the page, with no sort over the
// matching rows. PostgreSQL plans with the table analyzed and sequential
// scans off, so a plan with no fitting index shows as a Sort.
func TestExecutionsListPlans(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startKadu(t, db, Config{})
		org := e.Mine.ID
		a, _ := seedExecutions(t, db, "plan", org, e.Owner.ID, 2000, 10)
		// Another organization ten times as large: in a deployment of
		// many, one organization is a small part of the table, and the
		// planner reads its index rather than the primary key.
		seedExecutions(t, db, "theirs", e.Theirs.ID, e.Other.ID, 20000, 1)
		cursor := "0000010000-plan"
		cases := []struct {
			name  string
			f     records.ExecutionFilter
			index string
		}{
			{"first page", records.ExecutionFilter{}, "kadu_executions_list"},
			{"a later page", records.ExecutionFilter{Before: cursor}, "kadu_executions_list"},
			{"task", records.ExecutionFilter{TaskID: a}, "kadu_executions_task_list"},
			{"task, a later page", records.ExecutionFilter{TaskID: a, Before: cursor}, "kadu_executions_task_list"},
			{"status", records.ExecutionFilter{Status: "failed", Before: cursor}, "kadu_executions_status"},
			{"task and status", records.ExecutionFilter{TaskID: a, Status: "failed", Before: cursor}, "kadu_executions_task"},
			{"trigger", records.ExecutionFilter{Trigger: "schedule", Before: cursor}, "kadu_executions_trigger"},
			{"everything", records.ExecutionFilter{TaskID: a, Status: "succeeded", Trigger: "api", Before: cursor}, "kadu_executions_task"},
		}
		for _, c := range cases {
			c.f.Limit = 50
			query, args := records.ExecutionsListQuery(org, c.f)
			plan := storetest.Explain(t, db, query, args...) + "\n"
			if !strings.Contains(plan, c.index) || strings.Contains(plan, "Sort") || strings.Contains(plan, "TEMP B-TREE") {
				t.Errorf("%s: the plan does not read %s in order:\n%s", c.name, c.index, plan)
			}
		}
	})
}

// TestExecutionListColumns: a listed execution with every field set shows
// exactly what kadu_executions_get shows of it, though the listing reads
// fewer columns (records.ExecutionListColumns); it fails when a shown
// column is left out of the listing (both engines).
func TestExecutionListColumns(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startKadu(t, db, Config{})
		org := e.Mine.ID
		seedExecutions(t, db, "full", org, e.Owner.ID, 1, 1)
		ctx := context.Background()
		at := store.Now()
		if _, err := db.Exec(ctx, `UPDATE kadu_executions SET model = 'm', input = '{"a":1}', input_file_ids = '["f"]',
			output = '{"o":2}', error_code = 'c', error_message = 'msg', waiting = '{"w":3}', checkpoint = '{"k":4}',
			resume_input = '{"r":5}', approval_id = 'ap', tick_at = ?, started_at = ?, finished_at = ?, deadline = ?,
			trace_parent = 'tp', trace_state = 'ts', client_id = 'cl', tokens_in = 7, tokens_out = 8, tokens_cached = 9
			WHERE organization_id = ?`, at, at, at, at, org); err != nil {
			t.Fatal(err)
		}
		listed, err := records.ListExecutions(ctx, db, org, records.ExecutionFilter{Limit: 10})
		if err != nil || len(listed) != 1 {
			t.Fatalf("listing: %d rows, %v", len(listed), err)
		}
		full, err := records.GetExecution(ctx, db, org, listed[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(toExecutionJSON(listed[0]))
		want, _ := json.Marshal(toExecutionJSON(full))
		if string(got) != string(want) {
			t.Fatalf("listed:\n%s\nkadu_executions_get:\n%s", got, want)
		}
		for name, v := range map[string]any{"model": full.Model, "output": full.OutputJSON, "error": full.ErrorCode, "waiting": full.WaitingJSON,
			"approval": full.ApprovalID, "tick": full.TickAt, "started": full.StartedAt, "finished": full.FinishedAt, "deadline": full.Deadline} {
			if reflect.ValueOf(v).IsNil() {
				t.Fatalf("the fixture does not set %s", name)
			}
		}
	})
}
