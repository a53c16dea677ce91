package records

import (
	"context"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
)

// The SQL of reading an execution and its steps (kadu_executions,
// kadu_execution_steps) and of queueing one. Changing an execution's
// status, its steps and its cost is machine.go's one write path
// (Machine: Transition, BeginStep, FinishStep, RecordStepCost).

// LockExecution is GetExecution for a transaction that will change the
// execution: on PostgreSQL the row stays locked until it ends.
func LockExecution(ctx context.Context, tx *store.Tx, orgID, id string) (*Execution, error) {
	var e Execution
	if err := tx.Get(ctx, &e, `SELECT `+ExecutionColumns+` FROM kadu_executions WHERE organization_id = ? AND id = ?`+forUpdate(tx), orgID, id); err != nil {
		return nil, err
	}
	return &e, nil
}

// ExecutionFilter narrows kadu_executions_list.
type ExecutionFilter struct {
	Status, TaskID, Trigger, Before string
	Limit                           int
}

// ListExecutions reads a page of kadu_executions_list, one row more than
// the limit (the next page's sign), with the columns a listing shows
// (ExecutionListColumns).
func ListExecutions(ctx context.Context, q store.Querier, orgID string, f ExecutionFilter) ([]*Execution, error) {
	query, args := ExecutionsListQuery(orgID, f)
	if f.Trigger == "" || (f.TaskID == "" && f.Status == "") {
		// Served by an index in the listing's order: the page costs its
		// LIMIT's rows at most (store.ShortRead). Trigger with another
		// filter is checked row by row and keeps its cancellation.
		ctx = store.ShortRead(ctx)
	}
	var rows []*Execution
	err := q.Select(ctx, &rows, query, args...)
	return rows, err
}

// ExecutionsListQuery is kadu_executions_list's statement: newest first by
// id, after the cursor's id. No filter, status, task, task with status and
// trigger each have an index in this order (00300, 00330); trigger with
// another filter is checked on that filter's index row by row
// (TestExecutionsListPlans pins the plans; docs/decisions.md, "Listings at
// scale").
func ExecutionsListQuery(orgID string, f ExecutionFilter) (string, []any) {
	args := make([]any, 1, 6)
	args[0] = orgID
	shape := 0
	for i, v := range [...]string{f.TaskID, f.Status, f.Trigger, f.Before} {
		if v != "" {
			shape |= 1 << i
			args = append(args, v)
		}
	}
	return executionsListStatements[shape], append(args, f.Limit+1)
}

// executionsListStatements are ExecutionsListQuery's statements, one per
// filter shape (bit 0 task, 1 status, 2 trigger, 3 cursor), written once:
// the listing no longer builds its SQL on every page.
var executionsListStatements = func() (out [16]string) {
	conds := [...]string{"task_id = ?", "status = ?", "trigger_kind = ?", "id < ?"}
	for shape := range out {
		where := []string{"organization_id = ?"}
		for i, c := range conds {
			if shape&(1<<i) != 0 {
				where = append(where, c)
			}
		}
		out[shape] = `SELECT ` + ExecutionListColumns + ` FROM kadu_executions WHERE ` + strings.Join(where, " AND ") + ` ORDER BY id DESC LIMIT ?`
	}
	return out
}()

// ListSteps reads an execution's steps in order after afterSeq, one row
// more than the limit.
func ListSteps(ctx context.Context, q store.Querier, executionID string, afterSeq, limit int) ([]*Step, error) {
	var rows []*Step
	err := q.Select(store.ShortRead(ctx), &rows, `SELECT `+stepColumns+` FROM kadu_execution_steps WHERE execution_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
		executionID, afterSeq, limit+1)
	return rows, err
}

// GetExecution reads an execution of the organization; another
// organization's or none is store.ErrNotFound.
func GetExecution(ctx context.Context, q store.Querier, orgID, id string) (*Execution, error) {
	var e Execution
	if err := q.Get(ctx, &e, `SELECT `+ExecutionColumns+` FROM kadu_executions
		WHERE organization_id = ? AND id = ?`, orgID, id); err != nil {
		return nil, err
	}
	return &e, nil
}

// InsertExecution writes a new execution row as given (the caller sets
// its id, status queued and timestamps).
func InsertExecution(ctx context.Context, q store.Querier, e *Execution) error {
	_, err := q.Exec(ctx, `INSERT INTO kadu_executions (`+ExecutionColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.ID, e.OrganizationID, e.TaskID, e.Trigger, e.TriggeredBy, e.Status, e.Model, e.InputJSON,
		e.InputFileIDsJSON, e.MaxCostCents, e.CostCents, e.TokensIn, e.TokensOut, e.TokensCached, e.StepCount,
		e.OutputJSON, e.ErrorCode, e.ErrorMessage, e.WaitingJSON, e.CheckpointJSON, e.ResumeInputJSON, e.ApprovalID, e.TickAt,
		e.StartedAt, e.FinishedAt, e.Deadline, e.CreatedAt, e.UpdatedAt, e.TraceParent, e.TraceState, e.ClientID)
	return err
}

const ExecutionColumns = `id, organization_id, task_id, trigger_kind, triggered_by, status, model, input,
	input_file_ids, max_cost_cents, cost_cents, tokens_in, tokens_out, tokens_cached, step_count,
	output, error_code, error_message, waiting, checkpoint, resume_input, approval_id, tick_at, started_at,
	finished_at, deadline, created_at, updated_at, trace_parent, trace_state, client_id`

// ExecutionListColumns are what a listed execution shows (kadu's
// toExecutionJSON) and nothing more: the listing leaves out the
// organization (the filter), the runtime's checkpoint and resume input, the
// trace context and the client. The SQLite driver describes every result
// column on every run; six unread ones were a measurable part of a page
// (docs/performance.md, "Kadu and Dunning as fast as the Inbox (issue 28)"). A listed
// Execution has those fields empty; TestExecutionListColumns proves it
// shows what kadu_executions_get shows.
const ExecutionListColumns = `id, task_id, trigger_kind, triggered_by, status, model, input,
	input_file_ids, max_cost_cents, cost_cents, tokens_in, tokens_out, tokens_cached, step_count,
	output, error_code, error_message, waiting, approval_id, tick_at, started_at,
	finished_at, deadline, created_at, updated_at`

const stepColumns = `id, organization_id, execution_id, seq, kind, tool_name, arguments, result_summary,
	status, error_message, tokens_in, tokens_out, tokens_cached, cost_cents, duration_ms,
	started_at, finished_at, created_at, updated_at`

// RunningExecutions counts the organization's executions running now
// (kadu/runtime Runtime.mayStart).
func RunningExecutions(ctx context.Context, q store.Querier, orgID string) (int, error) {
	var n int
	err := q.Get(ctx, &n, `SELECT COUNT(*) FROM kadu_executions WHERE organization_id = ? AND status = 'running'`, orgID)
	return n, err
}

// ExecutionWaitingOn is the organization's latest execution whose
// destructive call waits (or waited) on the approval.
func ExecutionWaitingOn(ctx context.Context, q store.Querier, orgID, approvalID string) (*Execution, error) {
	var e Execution
	if err := q.Get(ctx, &e, `SELECT `+ExecutionColumns+` FROM kadu_executions WHERE organization_id = ? AND approval_id = ? ORDER BY id DESC LIMIT 1`, orgID, approvalID); err != nil {
		return nil, err
	}
	return &e, nil
}

// setExecutionStatus applies a transition's column changes (sets, with
// their args) to an execution still in status from; store.ErrNotFound
// when it is no longer there (Machine.Transition).
func setExecutionStatus(ctx context.Context, tx *store.Tx, orgID, id, from string, sets []string, args []any) error {
	args = append(args, orgID, id, from)
	return store.ExpectOne(tx.Exec(ctx, `UPDATE kadu_executions SET `+strings.Join(sets, ", ")+`
		WHERE organization_id = ? AND id = ? AND status = ?`, args...))
}

// nextStepSeq counts one more step of the execution and answers its seq
// (step_count, unique per execution), in the step's transaction.
func nextStepSeq(ctx context.Context, tx *store.Tx, orgID, execID string, now time.Time) (int, error) {
	if err := store.ExpectOne(tx.Exec(ctx, `UPDATE kadu_executions SET step_count = step_count + 1, updated_at = ?
		WHERE organization_id = ? AND id = ?`, now, orgID, execID)); err != nil {
		return 0, err
	}
	var seq int
	err := tx.Get(ctx, &seq, `SELECT step_count FROM kadu_executions WHERE id = ?`, execID)
	return seq, err
}

// insertStep writes a step as started.
func insertStep(ctx context.Context, tx *store.Tx, step *Step) error {
	_, err := tx.Exec(ctx, `INSERT INTO kadu_execution_steps (`+stepColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, NULL, 0, 0, 0, 0, 0, ?, NULL, ?, ?)`,
		step.ID, step.OrganizationID, step.ExecutionID, step.Seq, step.Kind, step.ToolName, step.ArgumentsJSON,
		step.Status, step.StartedAt, step.CreatedAt, step.UpdatedAt)
	return err
}

// setStepOutcome writes how a step ended.
func setStepOutcome(ctx context.Context, tx *store.Tx, execID, stepID string, out StepOutcome, summary, errMsg *string, durMS int64, now time.Time) error {
	return store.ExpectOne(tx.Exec(ctx, `UPDATE kadu_execution_steps SET status = ?, result_summary = ?,
		error_message = ?, tokens_in = ?, tokens_out = ?, tokens_cached = ?, cost_cents = ?, duration_ms = ?,
		finished_at = ?, updated_at = ? WHERE id = ? AND execution_id = ?`,
		out.Status, summary, errMsg, out.Usage.In, out.Usage.Out, out.Usage.Cached, out.CostCents, durMS,
		now, now, stepID, execID))
}

// addExecutionCost adds a step's cost and tokens to its execution's
// totals.
func addExecutionCost(ctx context.Context, tx *store.Tx, orgID, execID string, cents int64, tokens Tokens, now time.Time) error {
	return store.ExpectOne(tx.Exec(ctx, `UPDATE kadu_executions SET cost_cents = cost_cents + ?,
		tokens_in = tokens_in + ?, tokens_out = tokens_out + ?, tokens_cached = tokens_cached + ?, updated_at = ?
		WHERE organization_id = ? AND id = ?`,
		cents, tokens.In, tokens.Out, tokens.Cached, now, orgID, execID))
}

// ActiveExecutionsOfTask counts a task's executions that are queued,
// running or waiting.
func ActiveExecutionsOfTask(ctx context.Context, q store.Querier, orgID, taskID string) (int, error) {
	var n int
	err := q.Get(ctx, &n, `SELECT COUNT(*) FROM kadu_executions WHERE organization_id = ? AND task_id = ? AND status IN `+activeStatuses,
		orgID, taskID)
	return n, err
}

// PastDeadline are up to limit running or waiting executions whose
// deadline passed before now, earliest first.
func PastDeadline(ctx context.Context, q store.Querier, now time.Time, limit int) ([]*Execution, error) {
	var due []*Execution
	err := q.Select(ctx, &due, `SELECT `+ExecutionColumns+` FROM kadu_executions
		WHERE status IN ('running', 'waiting_input', 'waiting_approval', 'waiting_budget') AND deadline IS NOT NULL AND deadline < ?
		ORDER BY deadline LIMIT ?`, now, limit)
	return due, err
}

// ExecutionByID reads an execution by id alone: the runtime's job knows
// no organization (store.ErrNotFound when it is gone).
func ExecutionByID(ctx context.Context, q store.Querier, id string) (*Execution, error) {
	var e Execution
	if err := q.Get(ctx, &e, `SELECT `+ExecutionColumns+` FROM kadu_executions WHERE id = ?`, id); err != nil {
		return nil, err
	}
	return &e, nil
}

// ExecutionStatus is an execution's status as it is now.
func ExecutionStatus(ctx context.Context, q store.Querier, id string) (string, error) {
	var status string
	err := q.Get(ctx, &status, `SELECT status FROM kadu_executions WHERE id = ?`, id)
	return status, err
}

// SetCheckpoint writes the runtime's checkpoint of an execution, whatever
// its status.
func SetCheckpoint(ctx context.Context, q store.Querier, orgID, id, checkpoint string, now time.Time) error {
	_, err := q.Exec(ctx, `UPDATE kadu_executions SET checkpoint = ?, updated_at = ? WHERE organization_id = ? AND id = ?`,
		checkpoint, now, orgID, id)
	return err
}

// OpenSteps are an execution's steps recorded as started without an
// outcome, in order.
func OpenSteps(ctx context.Context, q store.Querier, execID string) ([]*Step, error) {
	var open []*Step
	err := q.Select(ctx, &open, `SELECT `+stepColumns+` FROM kadu_execution_steps
		WHERE execution_id = ? AND status = 'started' ORDER BY seq`, execID)
	return open, err
}
