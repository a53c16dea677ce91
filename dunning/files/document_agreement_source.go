package files

import (
	"context"
	"errors"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/store"
)

// loadAgreementTerm reads what an agreement's term prints — its debtor,
// the charges it renegotiates at the amounts the agreement took them for,
// the discount, the down payment and the installment table — for the
// document job (document_job.go), which sets Creditor and IssuedAt
// itself. The figures are the agreement's own rows, never recomputed: the
// term shows exactly what was proposed (docs/decisions.md "Dunning:
// documents and exports").
func (s *Service) loadAgreementTerm(ctx context.Context, q store.Querier, orgID, agreementID string) (AgreementTerm, error) {
	a, err := ledger.GetAgreement(ctx, q, orgID, agreementID, "")
	if err != nil {
		return AgreementTerm{AgreementID: agreementID}, ledger.NotFoundAs(err, "agreement")
	}
	d, err := ledger.GetDebtor(ctx, q, orgID, a.DebtorID)
	if err != nil {
		return AgreementTerm{}, ledger.NotFoundAs(err, "debtor")
	}
	st, err := ledger.LoadSettings(ctx, q, orgID)
	if err != nil {
		return AgreementTerm{}, err
	}
	charges, inst, err := ledger.AgreementParts(ctx, q, a)
	if err != nil {
		return AgreementTerm{}, err
	}
	term := AgreementTerm{AgreementID: a.ID, Debtor: debtorParty(d), DiscountCents: a.Discount, DownPaymentCents: a.DownPayment,
		GraceDays: st.AgreementGraceDays, On: st.Today(a.CreatedAt)}
	for _, row := range charges {
		c, err := ledger.GetCharge(ctx, q, orgID, row.ChargeID)
		if err != nil {
			return AgreementTerm{}, ledger.NotFoundAs(err, "charge")
		}
		ref := c.ID
		if c.ExternalID != nil && *c.ExternalID != "" {
			ref = *c.ExternalID
		}
		term.Charges = append(term.Charges, AgreementTermCharge{Description: c.Description, Reference: ref, DueDate: c.DueDate, AmountCents: row.Updated})
	}
	for _, row := range inst {
		due, err := bankcalendar.ParseDate(row.DueDate)
		if err != nil {
			return AgreementTerm{}, errors.Join(errors.New("agreement installment due date"), err)
		}
		if row.Number == 0 {
			term.DownPaymentDue = due
			continue
		}
		term.Installments = append(term.Installments, AgreementTermInstallment{Number: row.Number, DueDate: due, AmountCents: row.Amount})
	}
	return term, nil
}
