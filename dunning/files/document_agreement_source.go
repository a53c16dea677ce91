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
	// Each installment that is a charge (the agreement was accepted) gets
	// its Pix code of the term's day, when the creditor has a Pix key
	// (docs/dunning.md "Pix in every reminder").
	rcv, hasPix, err := ledger.LoadPixReceiver(ctx, q, orgID)
	if err != nil {
		return AgreementTerm{}, err
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
		line := AgreementTermInstallment{Number: row.Number, DueDate: due, AmountCents: row.Amount}
		if hasPix && row.ChargeID != nil {
			if line.Pix, err = installmentPix(ctx, q, rcv, st, orgID, *row.ChargeID, term.On); err != nil {
				return AgreementTerm{}, err
			}
		}
		term.Installments = append(term.Installments, line)
	}
	return term, nil
}

// installmentPix is the copia e cola paying an installment's charge on
// day: "" when the charge is out of collection (paid, canceled).
func installmentPix(ctx context.Context, q store.Querier, rcv ledger.PixReceiver, st ledger.Settings, orgID, chargeID string, day bankcalendar.Date) (string, error) {
	c, err := ledger.GetCharge(ctx, q, orgID, chargeID)
	if err != nil {
		return "", ledger.NotFoundAs(err, "charge")
	}
	b, err := ledger.ChargeBreakdown(c, st, day)
	if err != nil {
		return "", err
	}
	code, ok, err := ledger.ChargePixOfDay(rcv, c, b, day, nil)
	if err != nil || !ok {
		return "", err
	}
	return code.Payload, nil
}
