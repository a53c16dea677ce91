package kadu

import (
	"context"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
)

// The SQL of kadu_usage_get (service.usage, me.go): what an organization
// spent in a period, read from its executions and their steps.

// costedStep is a finished step that cost money or tokens, with its
// execution's task.
type costedStep struct {
	FinishedAt time.Time `db:"finished_at"`
	CostCents  int64     `db:"cost_cents"`
	In         int64     `db:"tokens_in"`
	Out        int64     `db:"tokens_out"`
	Cached     int64     `db:"tokens_cached"`
	TaskID     string    `db:"task_id"`
}

// costedSteps are the organization's steps that finished in [from, end)
// and cost money or tokens.
func costedSteps(ctx context.Context, q store.Querier, orgID string, from, end time.Time) ([]costedStep, error) {
	var steps []costedStep
	err := q.Select(ctx, &steps, `SELECT s.finished_at, s.cost_cents, s.tokens_in, s.tokens_out, s.tokens_cached, e.task_id
		FROM kadu_execution_steps s JOIN kadu_executions e ON e.id = s.execution_id
		WHERE s.organization_id = ? AND s.finished_at >= ? AND s.finished_at < ?
		AND (s.cost_cents > 0 OR s.tokens_in > 0 OR s.tokens_out > 0)`, orgID, from, end)
	return steps, err
}

// queuedExecution is when an execution was queued, and of which task.
type queuedExecution struct {
	CreatedAt time.Time `db:"created_at"`
	TaskID    string    `db:"task_id"`
}

// queuedExecutions are the organization's executions queued in
// [from, end).
func queuedExecutions(ctx context.Context, q store.Querier, orgID string, from, end time.Time) ([]queuedExecution, error) {
	var execs []queuedExecution
	err := q.Select(ctx, &execs, `SELECT created_at, task_id FROM kadu_executions
		WHERE organization_id = ? AND created_at >= ? AND created_at < ?`, orgID, from, end)
	return execs, err
}

// namesOfTasks are the names of the organization's tasks among ids, deleted
// ones included (their usage still counts).
func namesOfTasks(ctx context.Context, q store.Querier, orgID string, ids []string) (map[string]string, error) {
	names := map[string]string{}
	if len(ids) == 0 {
		return names, nil
	}
	var rows []struct {
		ID   string `db:"id"`
		Name string `db:"name"`
	}
	in, args := inClause(ids)
	if err := q.Select(ctx, &rows, `SELECT id, name FROM kadu_tasks WHERE organization_id = ? AND id IN `+in, append([]any{orgID}, args...)...); err != nil {
		return nil, err
	}
	for _, r := range rows {
		names[r.ID] = r.Name
	}
	return names, nil
}
