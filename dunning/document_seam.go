package dunning

import (
	"context"

	"github.com/kobana/kobana-mcp/platform/store"
)

// Kinds of document this part asks for (docs/decisions.md "Dunning:
// credit bureaus, protest and agreements").
const (
	// docAgreementTerm is an agreement's term; its subject is the
	// agreement's id.
	docAgreementTerm = "agreement_term"
	// docSettlementLetter is a paid charge's settlement letter (carta de
	// quitação, the anuência of a protest's cancellation); its subject is
	// the charge's id.
	docSettlementLetter = "settlement_letter"
)

// requestDocumentTx asks, inside tx, for a document of kind about
// subjectID to be generated, and answers its id, which the caller stores
// with the row it belongs to (agreements.term_document_id,
// dunning_commands.consent_document_id). "" means no document was asked
// for: the column stays NULL.
//
// The documents branch replaces this body with the real request (its row
// and generation job inserted in tx); until then nothing is generated.
func (s *service) requestDocumentTx(ctx context.Context, tx *store.Tx, orgID, kind, subjectID string) (documentID string, err error) {
	return "", nil
}
