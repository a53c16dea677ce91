package regua

import (
	"context"

	"github.com/kobana/kobana-mcp/platform/store"
)

// approvalColumns are dunning_step_approvals' columns, as stepApproval
// reads them.
const approvalColumns = `id, organization_id, enrollment_id, step_id, charge_id, status, decided_by, decided_at, note, created_at`

// getApproval reads one of the organization's step approvals by id; lock
// is "" or forUpdate(q).
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
