package ledger

import (
	"context"

	"github.com/kobana/kobana-mcp/platform/store"
)

// What the debtor page reads of a debtor (dunning/portal): the open
// charges and the payments made, each through the ledger's own queries.

// OpenChargesOfDebtor are the debtor's charges in collection (pending or
// overdue, not archived), by due date, decoded.
func OpenChargesOfDebtor(ctx context.Context, q store.Querier, orgID, debtorID string) ([]Charge, error) {
	rows, err := openChargesOfDebtor(ctx, q, orgID, debtorID)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		if err := rows[i].Decode(); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// DebtorPayment is a payment of one of the debtor's charges.
type DebtorPayment struct {
	Payment
	Description string `db:"description"`
}

// DebtorPayments are the payments of the debtor's charges, newest first,
// at most limit.
func DebtorPayments(ctx context.Context, q store.Querier, orgID, debtorID string, limit int) ([]DebtorPayment, error) {
	var rows []DebtorPayment
	err := q.Select(ctx, &rows, `SELECT p.id, p.organization_id, p.charge_id, p.amount_cents, p.paid_at, p.method, p.reference, p.created_by, p.created_at,
			p.applied_interest_cents, p.applied_fine_cents, p.applied_principal_cents, c.description
		FROM dunning_payments p JOIN dunning_charges c ON c.id = p.charge_id
		WHERE p.organization_id = ? AND c.organization_id = ? AND c.debtor_id = ? ORDER BY p.paid_at DESC, p.id DESC LIMIT ?`, orgID, orgID, debtorID, limit)
	return rows, err
}
