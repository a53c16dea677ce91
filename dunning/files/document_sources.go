package files

import (
	"context"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/dunning/notify"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/brazil"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/rest"
)

// What the statement and the settlement letter print, read from the
// charges and payments as they are when the document job runs, at the
// amounts of the document's day (chargeBreakdown: fine and interest by
// dunning/latefee).

// debtorParty is a debtor as a document names it.
func debtorParty(d ledger.Debtor) DocParty {
	return DocParty{Name: d.Name, Document: brazil.FormatDocument(d.Document), Address: addressLine(d.Address)}
}

// loadStatement is the statement of debtorID on date on: every charge of
// the debtor still in collection (pending or overdue, not archived), by
// due date, with its amounts on that day. The charges are read through
// one cursor (streamRows), each kept only as its printed line, and at
// most maxDocumentRows of them: one more fails the document as too large
// (document_limits.go), since charges may have been added since the
// request counted them.
func loadStatement(ctx context.Context, db *store.DB, orgID, debtorID string, on bankcalendar.Date) (StatementDoc, error) {
	d, err := ledger.GetDebtor(ctx, db, orgID, debtorID)
	if err != nil {
		return StatementDoc{}, ledger.NotFoundAs(err, "debtor")
	}
	st, err := ledger.LoadSettings(ctx, db, orgID)
	if err != nil {
		return StatementDoc{}, err
	}
	doc := StatementDoc{Debtor: debtorParty(d), On: on}
	// Each charge's Pix code of the statement's day, when the creditor has
	// a Pix key (docs/decisions.md "Dunning: Pix BR Code").
	rcv, hasPix, err := ledger.LoadPixReceiver(ctx, db, orgID)
	if err != nil {
		return StatementDoc{}, err
	}
	paid, err := statementPaid(ctx, db, orgID, d.ID)
	if err != nil {
		return StatementDoc{}, err
	}
	query, args := statementChargesQuery(orgID, d.ID, MaxDocumentRows+1)
	err = streamRows(ctx, db, query, args, func(c ledger.Charge) error {
		if len(doc.Lines) == MaxDocumentRows {
			ref := d.ExternalID
			if ref == "" {
				ref = d.ID
			}
			return tooManyRows("statement", "the debtor has more open charges than when it was asked for; "+statementExportHint(ref))
		}
		if err := c.Decode(); err != nil {
			return err
		}
		b, err := ledger.ChargeBreakdown(c, st, on)
		if err != nil {
			return err
		}
		line := StatementLine{Description: c.Description, Reference: notify.ChargeName(c), DueDate: c.DueDate, DaysLate: b.DaysLate,
			Open: b.Open, Fine: b.Fine, Interest: b.Interest, Updated: b.Updated, Paid: paid[c.ID]}
		if hasPix {
			code, ok, err := ledger.ChargePixOfDay(rcv, c, b, on, nil)
			if err != nil {
				return err
			}
			if ok {
				line.Pix = code.Payload
			}
		}
		doc.Lines = append(doc.Lines, line)
		return nil
	})
	if err != nil {
		return StatementDoc{}, err
	}
	return doc, nil
}

// loadSettlement is the settlement letter of chargeID, which must still
// be paid (UNPROCESSABLE otherwise: a payment reversed since the request).
func loadSettlement(ctx context.Context, q store.Querier, orgID, chargeID string, on bankcalendar.Date) (SettlementDoc, error) {
	c, err := ledger.GetCharge(ctx, q, orgID, chargeID)
	if err != nil {
		return SettlementDoc{}, ledger.NotFoundAs(err, "charge")
	}
	if c.Status != lifecycle.ChargePaid {
		return SettlementDoc{}, rest.Unprocessable("a settlement letter is only for a paid charge: this charge is " + string(c.Status))
	}
	d, err := ledger.GetDebtor(ctx, q, orgID, c.DebtorID)
	if err != nil {
		return SettlementDoc{}, err
	}
	st, err := ledger.LoadSettings(ctx, q, orgID)
	if err != nil {
		return SettlementDoc{}, err
	}
	pays, err := ledger.ChargePayments(ctx, q, orgID, c.ID)
	if err != nil {
		return SettlementDoc{}, err
	}
	var paid money.Cents
	for _, p := range pays {
		paid += p.Amount
	}
	paidOn := on
	if c.PaidAt != nil {
		paidOn = st.Today(*c.PaidAt)
	}
	return SettlementDoc{Debtor: debtorParty(d), Description: c.Description, Reference: notify.ChargeName(c), Amount: c.Amount, DueDate: c.DueDate,
		PaidOn: paidOn, Paid: paid, On: on}, nil
}
