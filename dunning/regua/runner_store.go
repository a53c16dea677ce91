package regua

import (
	"context"
	"strings"
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

// dueEnrollments is the first batch of a run: up to limit active
// enrollments whose next step is due at now, soonest first
// (dunning_enrollments_due: status, next_run_at, id), each with whether
// its plan is active (Live).
func dueEnrollments(ctx context.Context, q store.Querier, now time.Time, limit int) ([]dueEnrollment, error) {
	return dueSliceEnrollments(ctx, q, now, nil, dueCursor{}, limit)
}

// dueEnrollment is a due enrollment's id, the instant its step was due
// (its place in the index the runner reads), and whether its plan is
// active.
type dueEnrollment struct {
	ID        string    `db:"id"`
	NextRunAt time.Time `db:"next_run_at"`
	Live      bool      `db:"live"`
}

// dueCursor is where a run has read the due enrollments up to: each
// query of the run starts after the last enrollment the previous one
// returned. Without it every query read the index from the start of the
// due range, and on PostgreSQL an enrollment moved on leaves its entry
// there until VACUUM: each batch walked past every entry the run had
// already moved on, so a million due steps cost time quadratic in their
// number (docs/performance.md "The step runner at scale"). An enrollment
// the run passes over (held by another transaction) waits for the next
// minute's run, as it did when a batch found nothing it could take.
// The zero cursor is the start of the due range (an id is never empty).
type dueCursor struct {
	at time.Time
	id string
}

// next is the cursor after the batch ids (the cursor itself when empty).
func (c dueCursor) next(ids []dueEnrollment) dueCursor {
	if len(ids) == 0 {
		return c
	}
	last := ids[len(ids)-1]
	return dueCursor{at: last.NextRunAt, id: last.ID}
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

// dueSliceEnrollments is dueEnrollments of one slice: the ids whose last
// character is one of digits (a slice of runner_slices.go; none: every
// id). The filter is checked on the rows dunning_enrollments_due yields in
// order after the cursor, so a query reads about 16/len(digits) rows per
// id returned, whatever the table's size and however many the run has
// already moved on. The plan's status is asked of each row the index
// gave, not joined: joined, PostgreSQL's estimate of the matching rows
// fell far under the LIMIT and it chose to read and sort the whole table
// instead (half a second a batch at 1 000 000 enrollments).
func dueSliceEnrollments(ctx context.Context, q store.Querier, now time.Time, digits []string, after dueCursor, limit int) ([]dueEnrollment, error) {
	args := []any{string(lifecycle.PlanActive), string(lifecycle.EnrollmentActive), now}
	where := ""
	if after.id != "" {
		where += ` AND (next_run_at, id) > (?, ?)`
		args = append(args, after.at, after.id)
	}
	if len(digits) > 0 {
		where += ` AND substr(id, 36, 1) IN (?` + strings.Repeat(", ?", len(digits)-1) + `)`
		for _, d := range digits {
			args = append(args, d)
		}
	}
	var ids []dueEnrollment
	err := q.Select(ctx, &ids, `SELECT e.id, e.next_run_at,
			EXISTS (SELECT 1 FROM dunning_plans p WHERE p.id = e.plan_id AND p.status = ?) AS live
		FROM (SELECT id, next_run_at, plan_id FROM dunning_enrollments
			WHERE status = ? AND next_run_at <= ?`+where+`
			ORDER BY next_run_at, id LIMIT ?) e
		ORDER BY e.next_run_at, e.id`, append(args, limit)...)
	return ids, err
}
