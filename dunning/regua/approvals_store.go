package regua

import (
	"context"
	"time"

	"github.com/kobana/kobana-mcp/dunning/collection"
	"github.com/kobana/kobana-mcp/platform/store"
)

// approvalColumns are dunning_step_approvals' columns, as stepApproval
// reads them.
const approvalColumns = `id, organization_id, enrollment_id, step_id, charge_id, status, decided_by, decided_at, note, created_at`

// getApproval reads one of the organization's step approvals by id; lock
// is "" or ledger.ForUpdate(q).
func getApproval(ctx context.Context, q store.Querier, orgID, id, lock string) (stepApproval, error) {
	var a stepApproval
	err := q.Get(ctx, &a, `SELECT `+approvalColumns+` FROM dunning_step_approvals WHERE organization_id = ? AND id = ?`+lock, orgID, id)
	return a, err
}

// approvalListFilter is a listing of step approvals: optional status and
// charge (its id), and a numbered page.
type approvalListFilter struct {
	Status, ChargeID string
	Limit, Offset    int
}

// listApprovals reads a page of the organization's step approvals, oldest
// first, and how many match in all.
func listApprovals(ctx context.Context, q store.Querier, orgID string, f approvalListFilter) ([]stepApproval, int, error) {
	where := ` WHERE organization_id = ?`
	args := []any{orgID}
	if f.Status != "" {
		where += ` AND status = ?`
		args = append(args, f.Status)
	}
	if f.ChargeID != "" {
		where += ` AND charge_id = ?`
		args = append(args, f.ChargeID)
	}
	var total int
	if err := q.Get(ctx, &total, `SELECT COUNT(*) FROM dunning_step_approvals`+where, args...); err != nil {
		return nil, 0, err
	}
	rows := []stepApproval{}
	err := q.Select(ctx, &rows, `SELECT `+approvalColumns+` FROM dunning_step_approvals`+where+
		` ORDER BY created_at, id LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
	return rows, total, err
}

// stepApproval is a row of dunning_step_approvals.
type stepApproval struct {
	ID             string     `db:"id"`
	OrganizationID string     `db:"organization_id"`
	EnrollmentID   string     `db:"enrollment_id"`
	StepID         string     `db:"step_id"`
	ChargeID       string     `db:"charge_id"`
	Status         string     `db:"status"`
	DecidedBy      *string    `db:"decided_by"`
	DecidedAt      *time.Time `db:"decided_at"`
	Note           *string    `db:"note"`
	CreatedAt      time.Time  `db:"created_at"`
}

// insertApproval writes the pending approval of step for enrollment e
// and charge chargeID; a second worker's is a no-op (the unique
// dunning_step_approvals_once).
func insertApproval(ctx context.Context, tx *store.Tx, e *collection.EnrollmentRecord, stepID, chargeID string, now time.Time) error {
	_, err := tx.Exec(ctx, `INSERT INTO dunning_step_approvals (`+approvalColumns+`) VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, NULL, ?)
		ON CONFLICT DO NOTHING`, store.NewID(), e.OrganizationID, e.ID, stepID, chargeID, ApprovalPending, now)
	return err
}

// setApprovalDecision records a decision on the pending approval id;
// an approval no longer pending is store.ErrNotFound (store.ExpectOne).
func setApprovalDecision(ctx context.Context, tx *store.Tx, id, status, user string, note *string, now time.Time) error {
	return store.ExpectOne(tx.Exec(ctx, `UPDATE dunning_step_approvals SET status = ?, decided_by = ?, decided_at = ?, note = ?
		WHERE id = ? AND status = ?`, status, user, now, note, id, ApprovalPending))
}

// expireChargeApprovals expires the charge's pending approvals, with
// note.
func expireChargeApprovals(ctx context.Context, tx *store.Tx, orgID, chargeID, note string, now time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE dunning_step_approvals SET status = ?, decided_at = ?, note = ?
		WHERE organization_id = ? AND charge_id = ? AND status = ?`,
		ApprovalExpired, now, note, orgID, chargeID, ApprovalPending)
	return err
}

// Approval statuses.
const (
	ApprovalPending  = "pending"
	ApprovalApproved = "approved"
	ApprovalRejected = "rejected"
	ApprovalExpired  = "expired"
)
