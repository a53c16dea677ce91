package records

import (
	"context"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
)

// The SQL of a task's scheduled instants (kadu_schedule_ticks): the
// primary key (task_id, tick) lets exactly one scheduler handle a tick.

// ClaimTick records a task's tick as queued; false when it was handled
// already (by another replica, or an earlier run).
func ClaimTick(ctx context.Context, tx *store.Tx, t *Task, tick, now time.Time) (bool, error) {
	res, err := tx.Exec(ctx, `INSERT INTO kadu_schedule_ticks (task_id, tick, organization_id, outcome, execution_id, reason, created_at)
		VALUES (?, ?, ?, 'queued', NULL, NULL, ?) ON CONFLICT (task_id, tick) DO NOTHING`, t.ID, tick, t.OrganizationID, now)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// SkipTick records why a claimed tick queued nothing.
func SkipTick(ctx context.Context, tx *store.Tx, taskID string, tick time.Time, reason string) error {
	_, err := tx.Exec(ctx, `UPDATE kadu_schedule_ticks SET outcome = 'skipped', reason = ? WHERE task_id = ? AND tick = ?`, reason, taskID, tick)
	return err
}

// SetTickExecution names the execution a claimed tick queued.
func SetTickExecution(ctx context.Context, tx *store.Tx, taskID string, tick time.Time, execID string) error {
	_, err := tx.Exec(ctx, `UPDATE kadu_schedule_ticks SET execution_id = ? WHERE task_id = ? AND tick = ?`, execID, taskID, tick)
	return err
}
