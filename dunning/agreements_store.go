package dunning

import (
	"context"

	"github.com/kobana/kobana-mcp/platform/store"
)

// getAgreement reads one of the organization's agreements by id; lock is
// "" or forUpdate(q).
func getAgreement(ctx context.Context, q store.Querier, orgID, id, lock string) (agreementRecord, error) {
	var a agreementRecord
	err := q.Get(ctx, &a, `SELECT * FROM dunning_agreements WHERE organization_id = ? AND id = ?`+lock, orgID, id)
	return a, err
}

// agreementParts reads an agreement's charges, with what each owed when
// it was proposed, and its installments, with their charges once
// accepted.
func agreementParts(ctx context.Context, q store.Querier, a agreementRecord) ([]agreementChargeRow, []installmentRow, error) {
	charges := []agreementChargeRow{}
	if err := q.Select(ctx, &charges, `SELECT ac.charge_id, ac.open_cents, ac.updated_cents, c.status, c.due_date FROM dunning_agreement_charges ac
		JOIN dunning_charges c ON c.id = ac.charge_id WHERE ac.agreement_id = ? ORDER BY c.due_date, c.id`, a.ID); err != nil {
		return nil, nil, err
	}
	inst := []installmentRow{}
	err := q.Select(ctx, &inst, `SELECT i.number, i.amount_cents, i.due_date, i.charge_id, c.status AS charge_status, c.open_amount_cents AS charge_open
		FROM dunning_agreement_installments i LEFT JOIN dunning_charges c ON c.id = i.charge_id WHERE i.agreement_id = ? ORDER BY i.number`, a.ID)
	return charges, inst, err
}

// agreementListFilter is a listing of agreements: optional status and
// debtor (its id), and a numbered page.
type agreementListFilter struct {
	Status, DebtorID string
	Limit, Offset    int
}

// listAgreements reads a page of the organization's agreements, newest
// first, and how many match in all.
func listAgreements(ctx context.Context, q store.Querier, orgID string, f agreementListFilter) ([]agreementRecord, int, error) {
	where, args := `organization_id = ?`, []any{orgID}
	if f.Status != "" {
		where, args = where+` AND status = ?`, append(args, f.Status)
	}
	if f.DebtorID != "" {
		where, args = where+` AND debtor_id = ?`, append(args, f.DebtorID)
	}
	var total int
	if err := q.Get(ctx, &total, `SELECT COUNT(*) FROM dunning_agreements WHERE `+where, args...); err != nil {
		return nil, 0, err
	}
	var rows []agreementRecord
	err := q.Select(ctx, &rows, `SELECT * FROM dunning_agreements WHERE `+where+` ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
		append(args, f.Limit, f.Offset)...)
	return rows, total, err
}
