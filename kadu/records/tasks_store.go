package records

import (
	"context"
	"strings"

	"github.com/kobana/kobana-mcp/platform/store"
)

// The SQL of a task (kadu_tasks): the handlers (kadu tasks.go) and the
// runtime read and write tasks only through these functions.

// TaskFilter narrows kadu_tasks_list.
type TaskFilter struct {
	Status string
	Q      string
	After  string
	Limit  int
}

// ListTasks reads a page of kadu_tasks_list, one row more than the limit
// (the next page's sign); deleted tasks are never listed.
func ListTasks(ctx context.Context, q store.Querier, orgID string, f TaskFilter) ([]*Task, error) {
	where := []string{"organization_id = ?", "status <> 'deleted'"}
	args := []any{orgID}
	if f.Status != "" {
		where, args = append(where, "status = ?"), append(args, f.Status)
	}
	if f.Q != "" {
		where, args = append(where, `LOWER(name) LIKE ? ESCAPE '\'`), append(args, "%"+likeEscape(strings.ToLower(f.Q))+"%")
	}
	if f.After != "" {
		where, args = append(where, "id > ?"), append(args, f.After)
	}
	args = append(args, f.Limit+1)
	var rows []*Task
	if err := q.Select(ctx, &rows, `SELECT `+taskColumns+` FROM kadu_tasks WHERE `+strings.Join(where, " AND ")+` ORDER BY id LIMIT ?`, args...); err != nil {
		return nil, err
	}
	for _, r := range rows {
		if err := r.Decode(); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// likeEscape makes text match itself in a LIKE pattern with ESCAPE '\'.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// forUpdate locks the rows a PostgreSQL transaction reads until it ends
// (SQLite's transactions hold the write lock from their start).
func forUpdate(q store.Querier) string {
	if q.Dialect() == store.Postgres {
		return " FOR UPDATE"
	}
	return ""
}

// LockTask is GetTask for a transaction that will rewrite the row.
func LockTask(ctx context.Context, tx *store.Tx, orgID, id string) (*Task, error) {
	var t Task
	if err := tx.Get(ctx, &t, `SELECT `+taskColumns+` FROM kadu_tasks
		WHERE organization_id = ? AND id = ? AND status <> 'deleted'`+forUpdate(tx), orgID, id); err != nil {
		return nil, err
	}
	return &t, t.Decode()
}

// UpdateTask writes every field of t back (encode runs first).
func UpdateTask(ctx context.Context, q store.Querier, t *Task) error {
	if err := t.Encode(); err != nil {
		return err
	}
	return store.ExpectOne(q.Exec(ctx, `UPDATE kadu_tasks SET name = ?, instructions = ?, mode = ?, steps = ?,
		allowed_tools = ?, granted_scopes = ?, model = ?, schedule_cron = ?, schedule_timezone = ?,
		cost_ceiling_cents = ?, schedule_since = ?, triggerers = ?, destinations = ?, status = ?, updated_at = ?, deleted_at = ?,
		schedule_business_day = ?, workspace_id = ?
		WHERE organization_id = ? AND id = ?`,
		t.Name, t.Instructions, t.Mode, t.StepsJSON, t.AllowedToolsJSON, t.GrantedScopesJSON, t.Model,
		t.ScheduleCron, t.ScheduleTimezone, t.CostCeilingCents, t.ScheduleSince, t.TriggerersJSON, t.DestinationsJSON, t.Status,
		t.UpdatedAt, t.DeletedAt, t.ScheduleBusinessDay, t.WorkspaceID, t.OrganizationID, t.ID))
}

// GetTask reads a task of the organization that is not deleted; another
// organization's, a deleted one or none is store.ErrNotFound.
func GetTask(ctx context.Context, q store.Querier, orgID, id string) (*Task, error) {
	var t Task
	if err := q.Get(ctx, &t, `SELECT `+taskColumns+` FROM kadu_tasks
		WHERE organization_id = ? AND id = ? AND status <> 'deleted'`, orgID, id); err != nil {
		return nil, err
	}
	return &t, t.Decode()
}

// TaskOfExecution reads the task an execution runs, deleted or not: an
// execution queued before its task was deleted still knows what to run.
func TaskOfExecution(ctx context.Context, q store.Querier, exec *Execution) (*Task, error) {
	var t Task
	if err := q.Get(ctx, &t, `SELECT `+taskColumns+` FROM kadu_tasks
		WHERE organization_id = ? AND id = ?`, exec.OrganizationID, exec.TaskID); err != nil {
		return nil, err
	}
	return &t, t.Decode()
}

// InsertTask writes a new task row (encode runs first).
func InsertTask(ctx context.Context, q store.Querier, t *Task) error {
	if err := t.Encode(); err != nil {
		return err
	}
	_, err := q.Exec(ctx, `INSERT INTO kadu_tasks (`+taskColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		t.ID, t.OrganizationID, t.OwnerUserID, t.Name, t.Instructions, t.Mode, t.StepsJSON, t.AllowedToolsJSON,
		t.GrantedScopesJSON, t.Model, t.ScheduleCron, t.ScheduleTimezone, t.CostCeilingCents, t.ScheduleSince, t.TriggerersJSON,
		t.DestinationsJSON, t.Status, t.CreatedAt, t.UpdatedAt, t.DeletedAt, t.ScheduleBusinessDay, t.WorkspaceID)
	return err
}

const taskColumns = `id, organization_id, owner_user_id, name, instructions, mode, steps, allowed_tools,
	granted_scopes, model, schedule_cron, schedule_timezone, cost_ceiling_cents, schedule_since, triggerers,
	destinations, status, created_at, updated_at, deleted_at, schedule_business_day, workspace_id`

// IsMember reports whether userID is a person of the organization: a task's
// Triggerers are (kadu's service.checkTriggerers).
func IsMember(ctx context.Context, q store.Querier, orgID, userID string) (bool, error) {
	var n int
	err := q.Get(ctx, &n, `SELECT COUNT(*) FROM memberships WHERE organization_id = ? AND user_id = ?`, orgID, userID)
	return n > 0, err
}

// ScheduledTasks are the active tasks with a schedule, by id; skipped
// are the errors of those whose JSON columns did not read (left out).
func ScheduledTasks(ctx context.Context, q store.Querier) (tasks []*Task, skipped []error, err error) {
	var rows []*Task
	if err := q.Select(ctx, &rows, `SELECT `+taskColumns+` FROM kadu_tasks
		WHERE status = 'active' AND schedule_cron IS NOT NULL ORDER BY id`); err != nil {
		return nil, nil, err
	}
	for _, t := range rows {
		if err := t.Decode(); err != nil {
			skipped = append(skipped, err)
			continue
		}
		tasks = append(tasks, t)
	}
	return tasks, skipped, nil
}
