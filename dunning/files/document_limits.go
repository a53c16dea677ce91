package files

import (
	"context"
	"fmt"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/rest"
)

// Bounded documents (docs/decisions.md "Bounded documents"). fpdf keeps
// every page of a PDF in memory until it writes the file, so what bounds
// a document's memory and time is how many rows its tables print: a
// statement lists one row per open charge, and a debtor with 150 000 of
// them once took gigabytes and more than the job's minute. A document
// holds at most maxDocumentRows rows. The request that would exceed it is
// refused at once (VALIDATION_ERROR pointing to the CSV export, which
// streams any size); the job checks again, since charges may be added
// between the request and the job, and a document that grew past the
// bound fails for good — its job cancelled, never retried, as drawing it
// again would only fail again. The settlement letter prints one charge
// and the agreement term at most maxAgreementCharges charges and
// maxAgreementInstallments installments (the proposal's bounds), both far
// below the bound.

// MaxDocumentRows is the most table rows one document prints: 2 000
// statement lines are about 50 A4 pages, drawn in about 0.2 s with some
// 90 MB allocated in all (BenchmarkRenderStatementAtCap).
const MaxDocumentRows = 2000

// documentTooLargeError is a document that has grown past
// maxDocumentRows between its request and its job: the job fails it with
// the message and cancels itself.
type documentTooLargeError struct{ msg string }

func (e *documentTooLargeError) Error() string { return e.msg }

// statementExportHint is where the message of a statement too large
// points: the charges export with the debtor's filter.
func statementExportHint(debtorRef string) string {
	return fmt.Sprintf("export the debtor's charges as CSV instead: dunning_exports_create (POST %s/exports) with resource charges and filters {\"debtor_id\": %q, \"status\": \"pending,overdue\"}", ledger.APIBase, debtorRef)
}

// checkStatementSize refuses, at request time, the statement of a debtor
// with more open charges than a document holds: a VALIDATION_ERROR on
// the debtor's id, which makes no document.
func checkStatementSize(ctx context.Context, q store.Querier, orgID string, d ledger.Debtor) error {
	n, err := countStatementCharges(ctx, q, orgID, d.ID)
	if err != nil {
		return err
	}
	if n <= MaxDocumentRows {
		return nil
	}
	ref := d.ExternalID
	if ref == "" {
		ref = d.ID
	}
	msg := fmt.Sprintf("this debtor has %d open charges and a statement lists at most %d: %s", n, MaxDocumentRows, statementExportHint(ref))
	return rest.Validation(msg, rest.FieldError{Field: "id", Message: msg})
}

// tooManyRows is the job's failure of a document of kind what that would
// print more than maxDocumentRows rows.
func tooManyRows(what, hint string) *documentTooLargeError {
	msg := fmt.Sprintf("the %s would print more than %d rows, the most a document holds", what, MaxDocumentRows)
	if hint != "" {
		msg += ": " + hint
	}
	return &documentTooLargeError{msg: msg}
}
