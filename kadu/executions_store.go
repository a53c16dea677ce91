package kadu

import (
	"context"
	"strings"

	"github.com/kobana/kobana-mcp/platform/store"
)

// The SQL of reading an execution and its steps (kadu_executions,
// kadu_execution_steps) and of queueing one. Changing an execution's
// status, its steps and its cost is records.go's one write path
// (service.transition, beginStep, finishStep, recordStepCost).

// lockExecution is getExecution for a transaction that will change the
// execution: on PostgreSQL the row stays locked until it ends.
func lockExecution(ctx context.Context, tx *store.Tx, orgID, id string) (*executionRecord, error) {
	var e executionRecord
	if err := tx.Get(ctx, &e, `SELECT `+executionColumns+` FROM kadu_executions WHERE organization_id = ? AND id = ?`+forUpdate(tx), orgID, id); err != nil {
		return nil, err
	}
	return &e, nil
}

// executionFilter narrows kadu_executions_list.
type executionFilter struct {
	Status, TaskID, Trigger, Before string
	Limit                           int
}

// listExecutions reads a page of kadu_executions_list, one row more than
// the limit (the next page's sign).
func listExecutions(ctx context.Context, q store.Querier, orgID string, f executionFilter) ([]*executionRecord, error) {
	query, args := executionsListQuery(orgID, f)
	if f.Trigger == "" || (f.TaskID == "" && f.Status == "") {
		// Served by an index in the listing's order: the page costs its
		// LIMIT's rows at most (store.ShortRead). Trigger with another
		// filter is checked row by row and keeps its cancellation.
		ctx = store.ShortRead(ctx)
	}
	var rows []*executionRecord
	err := q.Select(ctx, &rows, query, args...)
	return rows, err
}

// executionsListQuery is kadu_executions_list's statement: newest first by
// id, after the cursor's id. No filter, status, task, task with status and
// trigger each have an index in this order (00300, 00330); trigger with
// another filter is checked on that filter's index row by row
// (TestExecutionsListPlans pins the plans; docs/decisions.md, "Listings at
// scale").
func executionsListQuery(orgID string, f executionFilter) (string, []any) {
	where := []string{"organization_id = ?"}
	args := []any{orgID}
	for _, c := range []struct{ col, v string }{{"task_id", f.TaskID}, {"status", f.Status}, {"trigger_kind", f.Trigger}} {
		if c.v != "" {
			where, args = append(where, c.col+" = ?"), append(args, c.v)
		}
	}
	if f.Before != "" {
		where, args = append(where, "id < ?"), append(args, f.Before)
	}
	return `SELECT ` + executionColumns + ` FROM kadu_executions WHERE ` + strings.Join(where, " AND ") + ` ORDER BY id DESC LIMIT ?`, append(args, f.Limit+1)
}

// listSteps reads an execution's steps in order after afterSeq, one row
// more than the limit.
func listSteps(ctx context.Context, q store.Querier, executionID string, afterSeq, limit int) ([]*stepRecord, error) {
	var rows []*stepRecord
	err := q.Select(store.ShortRead(ctx), &rows, `SELECT `+stepColumns+` FROM kadu_execution_steps WHERE execution_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
		executionID, afterSeq, limit+1)
	return rows, err
}

// getExecution reads an execution of the organization; another
// organization's or none is store.ErrNotFound.
func getExecution(ctx context.Context, q store.Querier, orgID, id string) (*executionRecord, error) {
	var e executionRecord
	if err := q.Get(ctx, &e, `SELECT `+executionColumns+` FROM kadu_executions
		WHERE organization_id = ? AND id = ?`, orgID, id); err != nil {
		return nil, err
	}
	return &e, nil
}

// insertExecution writes a new execution row as given (the caller sets
// its id, status queued and timestamps).
func insertExecution(ctx context.Context, q store.Querier, e *executionRecord) error {
	_, err := q.Exec(ctx, `INSERT INTO kadu_executions (`+executionColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.ID, e.OrganizationID, e.TaskID, e.Trigger, e.TriggeredBy, e.Status, e.Model, e.InputJSON,
		e.InputFileIDsJSON, e.MaxCostCents, e.CostCents, e.TokensIn, e.TokensOut, e.TokensCached, e.StepCount,
		e.OutputJSON, e.ErrorCode, e.ErrorMessage, e.WaitingJSON, e.CheckpointJSON, e.ResumeInputJSON, e.ApprovalID, e.TickAt,
		e.StartedAt, e.FinishedAt, e.Deadline, e.CreatedAt, e.UpdatedAt)
	return err
}

const executionColumns = `id, organization_id, task_id, trigger_kind, triggered_by, status, model, input,
	input_file_ids, max_cost_cents, cost_cents, tokens_in, tokens_out, tokens_cached, step_count,
	output, error_code, error_message, waiting, checkpoint, resume_input, approval_id, tick_at, started_at,
	finished_at, deadline, created_at, updated_at`

const stepColumns = `id, organization_id, execution_id, seq, kind, tool_name, arguments, result_summary,
	status, error_message, tokens_in, tokens_out, tokens_cached, cost_cents, duration_ms,
	started_at, finished_at, created_at, updated_at`

// runningExecutions counts the organization's executions running now
// (service.mayStart).
func runningExecutions(ctx context.Context, q store.Querier, orgID string) (int, error) {
	var n int
	err := q.Get(ctx, &n, `SELECT COUNT(*) FROM kadu_executions WHERE organization_id = ? AND status = 'running'`, orgID)
	return n, err
}

// executionWaitingOn is the organization's latest execution whose
// destructive call waits (or waited) on the approval.
func executionWaitingOn(ctx context.Context, q store.Querier, orgID, approvalID string) (*executionRecord, error) {
	var e executionRecord
	if err := q.Get(ctx, &e, `SELECT `+executionColumns+` FROM kadu_executions WHERE organization_id = ? AND approval_id = ? ORDER BY id DESC LIMIT 1`, orgID, approvalID); err != nil {
		return nil, err
	}
	return &e, nil
}
