package regua

import (
	"context"
	"time"

	"github.com/kobana/kobana-mcp/dunning/collection"
	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/dunning/notify"
	"github.com/kobana/kobana-mcp/platform/store"
)

// The reads and writes the step runner and the approvals make of the
// enrollments, steps, charges and notifications below them
// (docs/decisions.md "Product code layout": an aggregate's SQL is in its
// *_store.go).

// dueEnrollments are the ids of up to limit active enrollments of active
// plans whose next step is due at now, soonest first
// (dunning_enrollments_due).
func dueEnrollments(ctx context.Context, q store.Querier, now time.Time, limit int) ([]string, error) {
	var ids []string
	err := q.Select(ctx, &ids, `SELECT e.id FROM dunning_enrollments e JOIN dunning_plans p ON p.id = e.plan_id
			WHERE e.status = ? AND e.next_run_at <= ? AND p.status = ? ORDER BY e.next_run_at LIMIT ?`,
		string(lifecycle.EnrollmentActive), now, string(lifecycle.PlanActive), limit)
	return ids, err
}

// enrollmentRef is the charge and organization of an enrollment.
type enrollmentRef struct {
	ChargeID string `db:"charge_id"`
	OrgID    string `db:"organization_id"`
}

// getEnrollmentRef reads the charge and organization of enrollment id,
// without a lock.
func getEnrollmentRef(ctx context.Context, q store.Querier, id string) (enrollmentRef, error) {
	var ref enrollmentRef
	err := q.Get(ctx, &ref, `SELECT charge_id, organization_id FROM dunning_enrollments WHERE id = ?`, id)
	return ref, err
}

// skipLocked is the lock clause of the runner's reads: FOR UPDATE SKIP
// LOCKED on PostgreSQL, nothing on SQLite (one writer at a time).
func skipLocked(tx *store.Tx) string {
	if tx.Dialect() == store.Postgres {
		return " FOR UPDATE SKIP LOCKED"
	}
	return ""
}

// chargeLocked reads the organization's charge by id with lock appended
// ("", ledger.ForUpdate or FOR UPDATE SKIP LOCKED).
func chargeLocked(ctx context.Context, q store.Querier, orgID, id, lock string) (ledger.Charge, error) {
	return ledger.GetChargeWhere(ctx, q, `id = ? AND organization_id = ?`+lock, id, orgID)
}

// enrollmentLocked reads enrollment id with lock appended, as
// chargeLocked.
func enrollmentLocked(ctx context.Context, q store.Querier, id, lock string) (collection.EnrollmentRecord, error) {
	var e collection.EnrollmentRecord
	err := q.Get(ctx, &e, `SELECT `+collection.EnrollmentColumns+` FROM dunning_enrollments WHERE id = ?`+lock, id)
	return e, err
}

// getOrgEnrollment reads the organization's enrollment id.
func getOrgEnrollment(ctx context.Context, q store.Querier, orgID, id string) (collection.EnrollmentRecord, error) {
	var e collection.EnrollmentRecord
	err := q.Get(ctx, &e, `SELECT `+collection.EnrollmentColumns+` FROM dunning_enrollments WHERE id = ? AND organization_id = ?`, id, orgID)
	return e, err
}

// getOrgStep reads the organization's plan step id.
func getOrgStep(ctx context.Context, q store.Querier, orgID, id string) (collection.StepRecord, error) {
	var step collection.StepRecord
	err := q.Get(ctx, &step, `SELECT `+collection.StepColumns+` FROM dunning_plan_steps WHERE id = ? AND organization_id = ?`, id, orgID)
	return step, err
}

// stepNotification reads the notification of an enrollment's step (the
// unique dunning_notifications_step_once), store.ErrNotFound when none
// was written.
func stepNotification(ctx context.Context, q store.Querier, enrollmentID, stepID string) (notify.Notification, error) {
	var sent notify.Notification
	err := q.Get(ctx, &sent, `SELECT `+notify.NotificationColumns+` FROM dunning_notifications WHERE enrollment_id = ? AND step_id = ?`, enrollmentID, stepID)
	return sent, err
}

// skipQueuedNotifications fails the charge's notifications still queued,
// with msg as their error.
func skipQueuedNotifications(ctx context.Context, tx *store.Tx, orgID, chargeID, msg string, now time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE dunning_notifications SET status = ?, error = ?, failed_at = ?, updated_at = ?
		WHERE organization_id = ? AND charge_id = ? AND status = ?`,
		notify.NotificationFailed, msg, now, now, orgID, chargeID, notify.NotificationQueued)
	return err
}

// dueSliceEnrollments are dueEnrollments restricted to the ids whose last
// character is one of digits (a slice of runner_slices.go). The filter is
// checked on the rows dunning_enrollments_due yields in order, so a
// query reads about 16/len(digits) rows per id returned, whatever the
// table's size.
func dueSliceEnrollments(ctx context.Context, q store.Querier, now time.Time, digits []string, limit int) ([]string, error) {
	args := []any{string(lifecycle.EnrollmentActive), now, string(lifecycle.PlanActive)}
	in := ""
	for i, d := range digits {
		if i > 0 {
			in += ", "
		}
		in += "?"
		args = append(args, d)
	}
	var ids []string
	err := q.Select(ctx, &ids, `SELECT e.id FROM dunning_enrollments e JOIN dunning_plans p ON p.id = e.plan_id
			WHERE e.status = ? AND e.next_run_at <= ? AND p.status = ? AND substr(e.id, 36, 1) IN (`+in+`)
			ORDER BY e.next_run_at LIMIT ?`, append(args, limit)...)
	return ids, err
}
