package files

import (
	"context"
	"time"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
)

// StatementNow draws the debtor statement of debtorID on date on at once,
// without storing a document: what the debtor page hands its debtor
// (dunning/portal). The same reads and drawing as a statement document
// (loadStatement, RenderStatement), so the page's PDF and the creditor's
// never differ but in their issue time.
func (s *Service) StatementNow(ctx context.Context, orgID, debtorID string, on bankcalendar.Date, issued time.Time) ([]byte, error) {
	creditor, err := s.creditorParty(ctx, orgID)
	if err != nil {
		return nil, err
	}
	doc, err := loadStatement(ctx, s.DB, orgID, debtorID, on)
	if err != nil {
		return nil, err
	}
	doc.Creditor, doc.IssuedAt = creditor, issued
	return RenderStatement(doc)
}

// AddressLine is an address on one line as the documents print it, for
// the debtor page's creditor identity.
func AddressLine(a *ledger.Address) string { return addressLine(a) }
