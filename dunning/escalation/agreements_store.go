package escalation

import (
	"context"
	"time"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
)

// The agreements' writes (dunning_agreements, their charges and
// installments, and the installments' own charges); the ledger's
// agreements_store.go keeps the rows and their reads (ledger.GetAgreement,
// ledger.AgreementParts). docs/decisions.md "Product code layout": an
// aggregate's SQL is in its *_store.go.

// openAgreementsOf counts the proposed, accepted and active agreements
// that hold the charge.
func openAgreementsOf(ctx context.Context, q store.Querier, chargeID string) (int, error) {
	var open int
	err := q.Get(ctx, &open, `SELECT COUNT(*) FROM dunning_agreement_charges ac JOIN dunning_agreements a ON a.id = ac.agreement_id
			WHERE ac.charge_id = ? AND a.status IN (?, ?, ?)`, chargeID, string(lifecycle.AgreementProposed), string(lifecycle.AgreementAccepted),
		string(lifecycle.AgreementActive))
	return open, err
}

// insertAgreement writes a (its term document set later).
func insertAgreement(ctx context.Context, tx *store.Tx, a ledger.AgreementRecord) error {
	_, err := tx.Exec(ctx, `INSERT INTO dunning_agreements (id, organization_id, debtor_id, status, original_cents, discount_cents, total_cents,
		down_payment_cents, installments, due_day, note, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.ID, a.OrganizationID, a.DebtorID, string(a.Status), int64(a.Original), int64(a.Discount), int64(a.Total), int64(a.DownPayment), a.Installments,
		a.DueDay, a.Note, a.CreatedBy, a.CreatedAt, a.UpdatedAt)
	return err
}

// insertAgreementCharge writes one charge of agreement id: what it had
// open and its updated amount when proposed.
func insertAgreementCharge(ctx context.Context, tx *store.Tx, id, chargeID string, open, updated money.Cents) error {
	_, err := tx.Exec(ctx, `INSERT INTO dunning_agreement_charges (agreement_id, charge_id, open_cents, updated_cents) VALUES (?, ?, ?, ?)`,
		id, chargeID, int64(open), int64(updated))
	return err
}

// insertDownPayment writes agreement id's entry, installment number 0.
func insertDownPayment(ctx context.Context, tx *store.Tx, id string, amount money.Cents, due string) error {
	_, err := tx.Exec(ctx, `INSERT INTO dunning_agreement_installments (agreement_id, number, amount_cents, due_date) VALUES (?, 0, ?, ?)`,
		id, int64(amount), due)
	return err
}

// insertInstallment writes installment number (from 1) of agreement id.
func insertInstallment(ctx context.Context, tx *store.Tx, id string, number int, amount money.Cents, due string) error {
	_, err := tx.Exec(ctx, `INSERT INTO dunning_agreement_installments (agreement_id, number, amount_cents, due_date) VALUES (?, ?, ?, ?)`,
		id, number, int64(amount), due)
	return err
}

// setAgreementTerm records the term document of agreement id.
func setAgreementTerm(ctx context.Context, tx *store.Tx, id, doc string) error {
	_, err := tx.Exec(ctx, `UPDATE dunning_agreements SET term_document_id = ? WHERE id = ?`, doc, id)
	return err
}

// installmentCharge is the charge an accepted agreement's installment
// becomes (origin agreement, origin_ref the agreement).
type installmentCharge struct {
	ID, OrganizationID, DebtorID string
	Amount                       money.Cents
	DueDate, Description         string
	AgreementID                  string
	Status                       lifecycle.ChargeStatus
	OverdueAt                    *time.Time
	Now                          time.Time
}

// insertInstallmentCharge writes c (no fine, no interest, no tags).
func insertInstallmentCharge(ctx context.Context, tx *store.Tx, c installmentCharge) error {
	_, err := tx.Exec(ctx, `INSERT INTO dunning_charges (id, organization_id, debtor_id, external_id, amount_cents, open_amount_cents, due_date,
			description, fine, interest, origin, origin_ref, barcode, payment_link, tags, custom_data, status, overdue_at, created_at, updated_at)
			VALUES (?, ?, ?, NULL, ?, ?, ?, ?, 0, 0, ?, ?, NULL, NULL, '[]', '{}', ?, ?, ?, ?)`,
		c.ID, c.OrganizationID, c.DebtorID, int64(c.Amount), int64(c.Amount), c.DueDate, c.Description, OriginAgreement, c.AgreementID,
		string(c.Status), c.OverdueAt, c.Now, c.Now)
	return err
}

// linkInstallmentCharge records the charge of installment number of
// agreement id.
func linkInstallmentCharge(ctx context.Context, tx *store.Tx, id string, number int, chargeID string) error {
	_, err := tx.Exec(ctx, `UPDATE dunning_agreement_installments SET charge_id = ? WHERE agreement_id = ? AND number = ?`, chargeID, id, number)
	return err
}

// markAgreementAccepted records agreement id's acceptance at now.
func markAgreementAccepted(ctx context.Context, tx *store.Tx, id string, now time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE dunning_agreements SET status = ?, accepted_at = ?, updated_at = ? WHERE id = ?`,
		string(lifecycle.AgreementAccepted), now, now, id)
	return err
}

// markAgreementActive records that an accepted agreement had an
// installment paid.
func markAgreementActive(ctx context.Context, tx *store.Tx, id string, now time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE dunning_agreements SET status = ?, updated_at = ? WHERE id = ?`, string(lifecycle.AgreementActive), now, id)
	return err
}

// setAgreementEnd ends agreement id, still in status from, in status to
// with reason; one that moved meanwhile is store.ErrNotFound.
func setAgreementEnd(ctx context.Context, tx *store.Tx, id string, from, to lifecycle.AgreementStatus, reason string, now time.Time) error {
	return store.ExpectOne(tx.Exec(ctx, `UPDATE dunning_agreements SET status = ?, ended_at = ?, end_reason = ?, updated_at = ? WHERE id = ? AND status = ?`,
		string(to), now, reason, now, id, string(from)))
}

// openAgreements are every organization's accepted and active
// agreements, the oldest first: what the monitor decides.
func openAgreements(ctx context.Context, q store.Querier) ([]ledger.AgreementRecord, error) {
	var open []ledger.AgreementRecord
	err := q.Select(ctx, &open, `SELECT * FROM dunning_agreements WHERE status IN (?, ?) ORDER BY created_at, id`,
		string(lifecycle.AgreementAccepted), string(lifecycle.AgreementActive))
	return open, err
}

// OriginAgreement is the origin of an installment's charge.
const OriginAgreement = "agreement"
