package ledger

import (
	"context"
	"time"

	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
)

// AgreementRecord is a row of dunning_agreements.
type AgreementRecord struct {
	ID             string                    `db:"id"`
	OrganizationID string                    `db:"organization_id"`
	DebtorID       string                    `db:"debtor_id"`
	Status         lifecycle.AgreementStatus `db:"status"`
	Original       money.Cents               `db:"original_cents"`
	Discount       money.Cents               `db:"discount_cents"`
	Total          money.Cents               `db:"total_cents"`
	DownPayment    money.Cents               `db:"down_payment_cents"`
	Installments   int                       `db:"installments"`
	DueDay         int                       `db:"due_day"`
	Note           string                    `db:"note"`
	TermDocumentID *string                   `db:"term_document_id"`
	CreatedBy      string                    `db:"created_by"`
	AcceptedAt     *time.Time                `db:"accepted_at"`
	EndedAt        *time.Time                `db:"ended_at"`
	EndReason      *string                   `db:"end_reason"`
	CreatedAt      time.Time                 `db:"created_at"`
	UpdatedAt      time.Time                 `db:"updated_at"`
}

type AgreementChargeRow struct {
	ChargeID string      `db:"charge_id" json:"charge_id"`
	Open     money.Cents `db:"open_cents" json:"open_amount"`
	Updated  money.Cents `db:"updated_cents" json:"updated_amount"`
	Status   string      `db:"status" json:"status"`
	DueDate  string      `db:"due_date" json:"due_date"`
}

type InstallmentRow struct {
	Number   int         `db:"number" json:"number"`
	Amount   money.Cents `db:"amount_cents" json:"amount"`
	DueDate  string      `db:"due_date" json:"due_date"`
	ChargeID *string     `db:"charge_id" json:"charge_id"`
	// From the installment's charge, once accepted.
	Status     *string      `db:"charge_status" json:"status"`
	OpenAmount *money.Cents `db:"charge_open" json:"open_amount"`
}

// GetAgreement reads one of the organization's agreements by id; lock is
// "" or forUpdate(q).
func GetAgreement(ctx context.Context, q store.Querier, orgID, id, lock string) (AgreementRecord, error) {
	var a AgreementRecord
	err := q.Get(ctx, &a, `SELECT * FROM dunning_agreements WHERE organization_id = ? AND id = ?`+lock, orgID, id)
	return a, err
}

// AgreementParts reads an agreement's charges, with what each owed when
// it was proposed, and its installments, with their charges once
// accepted.
func AgreementParts(ctx context.Context, q store.Querier, a AgreementRecord) ([]AgreementChargeRow, []InstallmentRow, error) {
	charges := []AgreementChargeRow{}
	if err := q.Select(ctx, &charges, `SELECT ac.charge_id, ac.open_cents, ac.updated_cents, c.status, c.due_date FROM dunning_agreement_charges ac
		JOIN dunning_charges c ON c.id = ac.charge_id WHERE ac.agreement_id = ? ORDER BY c.due_date, c.id`, a.ID); err != nil {
		return nil, nil, err
	}
	inst := []InstallmentRow{}
	err := q.Select(ctx, &inst, `SELECT i.number, i.amount_cents, i.due_date, i.charge_id, c.status AS charge_status, c.open_amount_cents AS charge_open
		FROM dunning_agreement_installments i LEFT JOIN dunning_charges c ON c.id = i.charge_id WHERE i.agreement_id = ? ORDER BY i.number`, a.ID)
	return charges, inst, err
}

// AgreementListFilter is a listing of agreements: optional status and
// debtor (its id), and a numbered page.
type AgreementListFilter struct {
	Status, DebtorID string
	Limit, Offset    int
}

// ListAgreements reads a page of the organization's agreements, newest
// first, and how many match in all.
func ListAgreements(ctx context.Context, q store.Querier, orgID string, f AgreementListFilter) ([]AgreementRecord, int, error) {
	where, args := `organization_id = ?`, []any{orgID}
	if f.Status != "" {
		where, args = where+` AND status = ?`, append(args, f.Status)
	}
	if f.DebtorID != "" {
		where, args = where+` AND debtor_id = ?`, append(args, f.DebtorID)
	}
	var rows []AgreementRecord
	total, err := readNumberedPage(ctx, q, &rows, `SELECT * FROM dunning_agreements WHERE `+where+` ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
		`SELECT COUNT(*) FROM dunning_agreements WHERE `+where, args, f.Limit, f.Offset)
	return rows, total, err
}
