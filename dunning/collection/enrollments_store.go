package collection

import (
	"context"
	"time"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/store"
)

// EnrollmentRecord is a row of dunning_enrollments: a charge running
// through a collection plan, with the next step to run and when. The
// schema keeps one row per charge and plan (dunning_enrollments_charge_plan),
// so enrolling a charge again after it stopped or completed starts a new
// run of the same row (see enroll).
type EnrollmentRecord struct {
	ID             string     `db:"id"`
	OrganizationID string     `db:"organization_id"`
	ChargeID       string     `db:"charge_id"`
	PlanID         string     `db:"plan_id"`
	Status         string     `db:"status"`
	NextStepID     *string    `db:"next_step_id"`
	NextRunAt      *time.Time `db:"next_run_at"`
	SkippedPast    int        `db:"skipped_past"`
	StartedAt      time.Time  `db:"started_at"`
	StoppedAt      *time.Time `db:"stopped_at"`
	StoppedReason  *string    `db:"stopped_reason"`
	CreatedAt      time.Time  `db:"created_at"`
	UpdatedAt      time.Time  `db:"updated_at"`
}

const EnrollmentColumns = `id, organization_id, charge_id, plan_id, status, next_step_id, next_run_at, skipped_past,
	started_at, stopped_at, stopped_reason, created_at, updated_at`

// GetEnrollment is the enrollment of a charge in a plan, inside one
// organization; none is store.ErrNotFound. lock adds the row lock of a
// read-modify-write ("" or forUpdate(tx)).
func GetEnrollment(ctx context.Context, q store.Querier, orgID, chargeID, planID, lock string) (EnrollmentRecord, error) {
	var e EnrollmentRecord
	err := q.Get(ctx, &e, `SELECT `+EnrollmentColumns+` FROM dunning_enrollments
		WHERE organization_id = ? AND charge_id = ? AND plan_id = ?`+lock, orgID, chargeID, planID)
	return e, err
}

// chargeToEnroll loads the organization's charge by id or external_id (an
// id match wins), as ledger.GetCharge does, locking its row when lock is
// set: an enrollment's writes must not pass a change of the charge.
func chargeToEnroll(ctx context.Context, q store.Querier, orgID, ref string, lock bool) (ledger.Charge, error) {
	where := `organization_id = ? AND (id = ? OR external_id = ?) ORDER BY CASE WHEN id = ? THEN 0 ELSE 1 END LIMIT 1`
	if lock {
		where += ledger.ForUpdate(q)
	}
	return ledger.GetChargeWhere(ctx, q, where, orgID, ref, ref, ref)
}

// chargeEnrollments are every enrollment of a charge, oldest first: what
// a charge shows of the plans it runs through.
func chargeEnrollments(ctx context.Context, q store.Querier, orgID, chargeID string) ([]EnrollmentRecord, error) {
	out := []EnrollmentRecord{}
	err := q.Select(ctx, &out, `SELECT `+EnrollmentColumns+` FROM dunning_enrollments
		WHERE organization_id = ? AND charge_id = ? ORDER BY created_at, id`, orgID, chargeID)
	return out, err
}

// activeEnrollmentsWhere are the active enrollments matching cond (a
// condition on dunning_enrollments with ? placeholders), locked for the
// transaction on PostgreSQL, in a stable order so two transactions lock
// them in the same order.
func activeEnrollmentsWhere(ctx context.Context, tx *store.Tx, cond string, args ...any) ([]EnrollmentRecord, error) {
	out := []EnrollmentRecord{}
	err := tx.Select(ctx, &out, `SELECT `+EnrollmentColumns+` FROM dunning_enrollments
		WHERE status = 'active' AND `+cond+` ORDER BY id`+ledger.ForUpdate(tx), args...)
	return out, err
}

// activeChargeEnrollments are a charge's active enrollments, locked
// (activeEnrollmentsWhere).
func activeChargeEnrollments(ctx context.Context, tx *store.Tx, orgID, chargeID string) ([]EnrollmentRecord, error) {
	return activeEnrollmentsWhere(ctx, tx, `organization_id = ? AND charge_id = ?`, orgID, chargeID)
}

// activePlanEnrollments are a plan's active enrollments, locked
// (activeEnrollmentsWhere).
func activePlanEnrollments(ctx context.Context, tx *store.Tx, orgID, planID string) ([]EnrollmentRecord, error) {
	return activeEnrollmentsWhere(ctx, tx, `organization_id = ? AND plan_id = ?`, orgID, planID)
}

// countActiveEnrollments is how many charges run through a plan now.
func countActiveEnrollments(ctx context.Context, q store.Querier, orgID, planID string) (int, error) {
	var n int
	err := q.Get(ctx, &n, `SELECT COUNT(*) FROM dunning_enrollments WHERE organization_id = ? AND plan_id = ? AND status = 'active'`, orgID, planID)
	return n, err
}

func insertEnrollment(ctx context.Context, q store.Querier, e *EnrollmentRecord) error {
	_, err := q.Exec(ctx, `INSERT INTO dunning_enrollments (id, organization_id, charge_id, plan_id, status, next_step_id, next_run_at,
		skipped_past, started_at, stopped_at, stopped_reason, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.ID, e.OrganizationID, e.ChargeID, e.PlanID, e.Status, e.NextStepID, e.NextRunAt, e.SkippedPast, e.StartedAt,
		e.StoppedAt, e.StoppedReason, e.CreatedAt, e.UpdatedAt)
	return err
}

// UpdateEnrollment writes what an enrollment's run changes (its status,
// next step, skipped steps, start and stop); exactly one row, or
// store.ErrNotFound.
func UpdateEnrollment(ctx context.Context, q store.Querier, e *EnrollmentRecord) error {
	return store.ExpectOne(q.Exec(ctx, `UPDATE dunning_enrollments SET status = ?, next_step_id = ?, next_run_at = ?, skipped_past = ?,
		started_at = ?, stopped_at = ?, stopped_reason = ?, updated_at = ?
		WHERE id = ? AND organization_id = ?`,
		e.Status, e.NextStepID, e.NextRunAt, e.SkippedPast, e.StartedAt, e.StoppedAt, e.StoppedReason, e.UpdatedAt, e.ID, e.OrganizationID))
}

// DoneSteps are the steps an enrollment already ran or parked: those with
// a notification in the log (the unique (enrollment, step) row the step
// runner writes before sending) or an approval. They are never scheduled
// again, whatever moves the calendar (a new due date, an edited step).
func DoneSteps(ctx context.Context, q store.Querier, enrollmentID string) (map[string]bool, error) {
	var ids []string
	err := q.Select(ctx, &ids, `SELECT step_id FROM dunning_notifications WHERE enrollment_id = ? AND step_id IS NOT NULL
		UNION SELECT step_id FROM dunning_step_approvals WHERE enrollment_id = ?`, enrollmentID, enrollmentID)
	if err != nil {
		return nil, err
	}
	done := make(map[string]bool, len(ids))
	for _, id := range ids {
		done[id] = true
	}
	return done, nil
}
