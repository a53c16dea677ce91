package records

import (
	"context"
	"errors"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
)

// The SQL of kadu_usage_get (kadu me.go, service.usage): what an
// organization spent in a period, read from its executions and their
// steps.

// CostedStep is a finished step that cost money or tokens, with its
// execution's task.
type CostedStep struct {
	FinishedAt time.Time `db:"finished_at"`
	CostCents  int64     `db:"cost_cents"`
	In         int64     `db:"tokens_in"`
	Out        int64     `db:"tokens_out"`
	Cached     int64     `db:"tokens_cached"`
	TaskID     string    `db:"task_id"`
}

// CostedSteps are the organization's steps that finished in [from, end)
// and cost money or tokens.
func CostedSteps(ctx context.Context, q store.Querier, orgID string, from, end time.Time) ([]CostedStep, error) {
	var steps []CostedStep
	err := q.Select(ctx, &steps, `SELECT s.finished_at, s.cost_cents, s.tokens_in, s.tokens_out, s.tokens_cached, e.task_id
		FROM kadu_execution_steps s JOIN kadu_executions e ON e.id = s.execution_id
		WHERE s.organization_id = ? AND s.finished_at >= ? AND s.finished_at < ?
		AND (s.cost_cents > 0 OR s.tokens_in > 0 OR s.tokens_out > 0)`, orgID, from, end)
	return steps, err
}

// QueuedExecution is when an execution was queued, and of which task.
type QueuedExecution struct {
	CreatedAt time.Time `db:"created_at"`
	TaskID    string    `db:"task_id"`
}

// QueuedExecutions are the organization's executions queued in
// [from, end).
func QueuedExecutions(ctx context.Context, q store.Querier, orgID string, from, end time.Time) ([]QueuedExecution, error) {
	var execs []QueuedExecution
	err := q.Select(ctx, &execs, `SELECT created_at, task_id FROM kadu_executions
		WHERE organization_id = ? AND created_at >= ? AND created_at < ?`, orgID, from, end)
	return execs, err
}

// NamesOfTasks are the names of the organization's tasks among ids, deleted
// ones included (their usage still counts).
func NamesOfTasks(ctx context.Context, q store.Querier, orgID string, ids []string) (map[string]string, error) {
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

// AddUsage adds to an organization's month, creating the row.
func AddUsage(ctx context.Context, q store.Querier, orgID, month string, cents int64, tokens Tokens, executions int, now time.Time) error {
	_, err := q.Exec(ctx, `INSERT INTO kadu_monthly_usage (organization_id, month, cost_cents, tokens_in,
		tokens_out, tokens_cached, executions, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (organization_id, month) DO UPDATE SET
			cost_cents = kadu_monthly_usage.cost_cents + excluded.cost_cents,
			tokens_in = kadu_monthly_usage.tokens_in + excluded.tokens_in,
			tokens_out = kadu_monthly_usage.tokens_out + excluded.tokens_out,
			tokens_cached = kadu_monthly_usage.tokens_cached + excluded.tokens_cached,
			executions = kadu_monthly_usage.executions + excluded.executions,
			updated_at = excluded.updated_at`,
		orgID, month, cents, tokens.In, tokens.Out, tokens.Cached, executions, now)
	return err
}

// MonthUsage is the organization's usage in month (zero when none yet).
func MonthUsage(ctx context.Context, q store.Querier, orgID, month string) (Usage, error) {
	var u Usage
	err := q.Get(ctx, &u, `SELECT organization_id, month, cost_cents, tokens_in, tokens_out, tokens_cached,
		executions, updated_at FROM kadu_monthly_usage WHERE organization_id = ? AND month = ?`, orgID, month)
	if errors.Is(err, store.ErrNotFound) {
		return Usage{OrganizationID: orgID, Month: month}, nil
	}
	return u, err
}

// inClause is "(?, ?, …)" for values.
func inClause(values []string) (string, []any) {
	q := make([]byte, 0, 3*len(values)+1)
	args := make([]any, len(values))
	q = append(q, '(')
	for i, v := range values {
		if i > 0 {
			q = append(q, ", "...)
		}
		q = append(q, '?')
		args[i] = v
	}
	return string(append(q, ')')), args
}
