package regua

import (
	"context"
	"fmt"

	"github.com/kobana/kobana-mcp/dunning/collection"
	"github.com/kobana/kobana-mcp/dunning/escalation"
	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/store"
)

// escalationWords say what approving an escalating step does, in the
// approval's message.
var escalationWords = map[string]string{
	collection.ActionReportCreditBureau: "Approving reports the charge to the credit bureau (serasa) under the report's rules; no message is sent.",
	collection.ActionProtest:            "Approving sends the charge to notary protest under the protest's rules; no message is sent.",
	collection.ActionOfferAgreement:     "Approving proposes an agreement over the charge (3 monthly installments, no discount; propose others with dunning_agreements_create); no message is sent.",
}

// defaultOfferInstallments is an offer_agreement step's installments
// when its variables do not say.
const defaultOfferInstallments = 3

// runEscalation runs an approved escalating step of approval a in tx
// through the same rules as its route (a refusal is the route's
// UNPROCESSABLE naming the rule).
func (n *Notifier) runEscalation(ctx context.Context, tx *store.Tx, a stepApproval, step collection.StepRecord) error {
	switch step.Action {
	case collection.ActionReportCreditBureau:
		_, err := n.esc.ReportCharge(ctx, tx, a.OrganizationID, a.ChargeID, "serasa")
		return err
	case collection.ActionProtest:
		_, err := n.esc.ProtestCharge(ctx, tx, a.OrganizationID, a.ChargeID)
		return err
	case collection.ActionOfferAgreement:
		c, err := ledger.GetCharge(ctx, tx, a.OrganizationID, a.ChargeID)
		if err != nil {
			return err
		}
		in := &escalation.CreateAgreementIn{DebtorID: c.DebtorID, ChargeIDs: []string{c.ID}, Installments: defaultOfferInstallments}
		_, err = n.esc.CreateAgreement(ctx, tx, a.OrganizationID, in)
		return err
	}
	return fmt.Errorf("dunning: step action %q has no runner", step.Action)
}
