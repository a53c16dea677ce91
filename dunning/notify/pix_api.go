package notify

import (
	"context"
	"fmt"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// A charge's Pix code of today (dunning_charges_pix): what a reminder
// sent now would carry in {{pix.copia_e_cola}} and {{pix.qr_url}}, for a
// person or an assistant to hand to the debtor directly.

// chargePixIn names the charge.
type chargePixIn struct {
	ID string `json:"id" in:"path" maxLength:"255" jsonschema:"The charge's id or external_id."`
}

// chargePixJSON is the answer: the code of the day and who it pays.
type chargePixJSON struct {
	ChargeID string `json:"charge_id"`
	ledger.PixOfDay
	Receiver ledger.PixReceiver `json:"receiver"`
}

// registerPix declares dunning_charges_pix.
func registerPix(api *rest.API, n *Notifier) {
	rest.Handle(api, rest.Operation{
		ID: "dunning_charges_pix", Method: "GET", Path: "/charges/{id}/pix", Tags: []string{"charges"},
		Title: "Get a charge's Pix code of today",
		Summary: "The charge's static Pix code (BR Code, copia e cola) of today in the organization's timezone: payload, amount (the updated amount: open amount, fine and interest as of today), " +
			"txid (KB and 23 letters and digits derived from the charge, the same every day, to match the payment), qr_url (a signed public link to its QR code as a PNG, valid for that day's code) " +
			"and the receiver (the creditor's Pix key, merchant name and city). Tomorrow's code asks tomorrow's amount. " +
			"A creditor without a Pix key (PUT /v1/settings/creditor sets it) or a charge out of collection (paid, canceled) is UNPROCESSABLE.",
		Requires: ledger.ChargesRead, Annotations: restkit.ReadOnly(),
	}, n.chargesPix)
}

// chargesPix answers dunning_charges_pix.
func (n *Notifier) chargesPix(ctx context.Context, in *chargePixIn) (*rest.Response, error) {
	t, err := n.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	c, err := ledger.GetCharge(ctx, n.DB, t.OrgID, in.ID)
	if err != nil {
		return nil, ledger.NotFoundAs(err, "charge")
	}
	if !c.Status.Collectible() || c.ArchivedAt != nil {
		return nil, rest.Unprocessable(fmt.Sprintf("the charge is %s: a charge out of collection has no Pix code", c.Status))
	}
	rcv, ok, err := ledger.LoadPixReceiver(ctx, n.DB, t.OrgID)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, rest.Unprocessable("the creditor has no Pix key: an admin sets it with PUT /v1/settings/creditor (dunning_creditor_update, pix_key)")
	}
	st, err := ledger.LoadSettings(ctx, n.DB, t.OrgID)
	if err != nil {
		return nil, err
	}
	today := st.Today(n.Clock())
	b, err := ledger.ChargeBreakdown(c, st, today)
	if err != nil {
		return nil, err
	}
	code, err := n.ChargePix(&rcv, c, b, today)
	if err != nil {
		return nil, err
	}
	if code == nil {
		return nil, rest.Unprocessable("the charge has nothing to pay today")
	}
	return rest.OK(map[string]any{"data": chargePixJSON{ChargeID: c.ID, PixOfDay: *code, Receiver: rcv}}), nil
}
