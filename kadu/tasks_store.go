package kadu

import (
	"context"
	"strings"

	"github.com/kobana/kobana-mcp/platform/store"
)

// The SQL of a task (kadu_tasks): the handlers (tasks.go) and the runtime
// read and write tasks only through these functions.

// taskFilter narrows kadu_tasks_list.
type taskFilter struct {
	Status string
	Q      string
	After  string
	Limit  int
}

// listTasks reads a page of kadu_tasks_list, one row more than the limit
// (the next page's sign); deleted tasks are never listed.
func listTasks(ctx context.Context, q store.Querier, orgID string, f taskFilter) ([]*taskRecord, error) {
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
	var rows []*taskRecord
	if err := q.Select(ctx, &rows, `SELECT `+taskColumns+` FROM kadu_tasks WHERE `+strings.Join(where, " AND ")+` ORDER BY id LIMIT ?`, args...); err != nil {
		return nil, err
	}
	for _, r := range rows {
		if err := r.decode(); err != nil {
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

// lockTask is getTask for a transaction that will rewrite the row.
func lockTask(ctx context.Context, tx *store.Tx, orgID, id string) (*taskRecord, error) {
	var t taskRecord
	if err := tx.Get(ctx, &t, `SELECT `+taskColumns+` FROM kadu_tasks
		WHERE organization_id = ? AND id = ? AND status <> 'deleted'`+forUpdate(tx), orgID, id); err != nil {
		return nil, err
	}
	return &t, t.decode()
}

// updateTask writes every field of t back (encode runs first).
func updateTask(ctx context.Context, q store.Querier, t *taskRecord) error {
	if err := t.encode(); err != nil {
		return err
	}
	return store.ExpectOne(q.Exec(ctx, `UPDATE kadu_tasks SET name = ?, instructions = ?, mode = ?, steps = ?,
		allowed_tools = ?, granted_scopes = ?, model = ?, schedule_cron = ?, schedule_timezone = ?,
		cost_ceiling_cents = ?, schedule_since = ?, triggerers = ?, destinations = ?, status = ?, updated_at = ?, deleted_at = ?
		WHERE organization_id = ? AND id = ?`,
		t.Name, t.Instructions, t.Mode, t.StepsJSON, t.AllowedToolsJSON, t.GrantedScopesJSON, t.Model,
		t.ScheduleCron, t.ScheduleTimezone, t.CostCeilingCents, t.ScheduleSince, t.TriggerersJSON, t.DestinationsJSON, t.Status,
		t.UpdatedAt, t.DeletedAt, t.OrganizationID, t.ID))
}

// getTask reads a task of the organization that is not deleted; another
// organization's, a deleted one or none is store.ErrNotFound.
func getTask(ctx context.Context, q store.Querier, orgID, id string) (*taskRecord, error) {
	var t taskRecord
	if err := q.Get(ctx, &t, `SELECT `+taskColumns+` FROM kadu_tasks
		WHERE organization_id = ? AND id = ? AND status <> 'deleted'`, orgID, id); err != nil {
		return nil, err
	}
	return &t, t.decode()
}

// taskOfExecution reads the task an execution runs, deleted or not: an
// execution queued before its task was deleted still knows what to run.
func taskOfExecution(ctx context.Context, q store.Querier, exec *executionRecord) (*taskRecord, error) {
	var t taskRecord
	if err := q.Get(ctx, &t, `SELECT `+taskColumns+` FROM kadu_tasks
		WHERE organization_id = ? AND id = ?`, exec.OrganizationID, exec.TaskID); err != nil {
		return nil, err
	}
	return &t, t.decode()
}

// insertTask writes a new task row (encode runs first).
func insertTask(ctx context.Context, q store.Querier, t *taskRecord) error {
	if err := t.encode(); err != nil {
		return err
	}
	_, err := q.Exec(ctx, `INSERT INTO kadu_tasks (`+taskColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		t.ID, t.OrganizationID, t.OwnerUserID, t.Name, t.Instructions, t.Mode, t.StepsJSON, t.AllowedToolsJSON,
		t.GrantedScopesJSON, t.Model, t.ScheduleCron, t.ScheduleTimezone, t.CostCeilingCents, t.ScheduleSince, t.TriggerersJSON,
		t.DestinationsJSON, t.Status, t.CreatedAt, t.UpdatedAt, t.DeletedAt)
	return err
}

const taskColumns = `id, organization_id, owner_user_id, name, instructions, mode, steps, allowed_tools,
	granted_scopes, model, schedule_cron, schedule_timezone, cost_ceiling_cents, schedule_since, triggerers,
	destinations, status, created_at, updated_at, deleted_at`

// isMember reports whether userID is a person of the organization: a task's
// triggerers are (service.checkTriggerers).
func isMember(ctx context.Context, q store.Querier, orgID, userID string) (bool, error) {
	var n int
	err := q.Get(ctx, &n, `SELECT COUNT(*) FROM memberships WHERE organization_id = ? AND user_id = ?`, orgID, userID)
	return n > 0, err
}
