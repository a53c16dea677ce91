package dunning

import (
	"context"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/rest"
)

// loadAgreementTerm reads what an agreement's term prints — its debtor,
// the charges it renegotiates, the discount, the down payment and the
// installment table — from the agreements' tables, for the document job
// (document_job.go), which sets Creditor and IssuedAt itself.
//
// The agreements are built in their own branch of this work: until it is
// merged there is no agreement to read, and every term answers NOT_FOUND
// (the document fails with that message). The agreements branch fills this
// function in; renderAgreementTerm is tested on a built agreementTerm
// meanwhile (docs/decisions.md "Dunning: documents and exports").
func (s *service) loadAgreementTerm(ctx context.Context, q store.Querier, orgID, agreementID string) (agreementTerm, error) {
	_, _, _ = ctx, q, orgID
	return agreementTerm{AgreementID: agreementID}, rest.NotFound("agreement")
}
