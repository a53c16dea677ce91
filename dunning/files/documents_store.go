package files

import (
	"context"
	"time"

	"github.com/kobana/kobana-mcp/dunning/latefee"
	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
)

// The documents' SQL (dunning_documents) and the reads a statement makes
// of the debtor's charges and payments (docs/decisions.md "Product code
// layout": an aggregate's SQL is in its *_store.go).

// documentRow is a row of dunning_documents without its bytes.
type documentRow struct {
	ID             string     `db:"id"`
	OrganizationID string     `db:"organization_id"`
	Kind           string     `db:"kind"`
	SubjectID      string     `db:"subject_id"`
	AmountsOn      string     `db:"amounts_on"`
	Status         string     `db:"status"`
	ContentType    string     `db:"content_type"`
	Filename       string     `db:"filename"`
	ByteSize       *int64     `db:"byte_size"`
	Error          *string    `db:"error"`
	CreatedBy      string     `db:"created_by"`
	CreatedAt      time.Time  `db:"created_at"`
	UpdatedAt      time.Time  `db:"updated_at"`
	ReadyAt        *time.Time `db:"ready_at"`
}

// documentColumns are the columns of documentRow, never the content.
const documentColumns = `id, organization_id, kind, subject_id, amounts_on, status, content_type, filename, byte_size, error, created_by, created_at, updated_at, ready_at`

// getDocument loads a document of the organization; another
// organization's is store.ErrNotFound, as a missing one.
func getDocument(ctx context.Context, q store.Querier, orgID, id string) (documentRow, error) {
	var d documentRow
	err := q.Get(ctx, &d, `SELECT `+documentColumns+` FROM dunning_documents WHERE organization_id = ? AND id = ?`, orgID, id)
	return d, err
}

// statementChargesWhere selects the charges a statement lists — the
// debtor's still in collection — for its request's count and its job's
// read alike (arguments: organization, debtor, then the two statuses).
const statementChargesWhere = `organization_id = ? AND debtor_id = ? AND archived_at IS NULL AND status IN (?, ?)`

// statementPaid is, by charge, how the payments of the debtor's open
// charges were imputed (interest, fine, principal), for the statement.
func statementPaid(ctx context.Context, q store.Querier, orgID, debtorID string) (map[string]latefee.Applied, error) {
	var rows []struct {
		ChargeID  string `db:"charge_id"`
		Interest  int64  `db:"interest"`
		Fine      int64  `db:"fine"`
		Principal int64  `db:"principal"`
	}
	if err := q.Select(ctx, &rows, `SELECT p.charge_id, SUM(p.applied_interest_cents) AS interest, SUM(p.applied_fine_cents) AS fine,
		SUM(p.applied_principal_cents) AS principal FROM dunning_payments p JOIN dunning_charges c ON c.id = p.charge_id
		WHERE p.organization_id = ? AND c.debtor_id = ? AND c.archived_at IS NULL AND c.status IN (?, ?) GROUP BY p.charge_id`,
		orgID, debtorID, string(lifecycle.ChargePending), string(lifecycle.ChargeOverdue)); err != nil {
		return nil, err
	}
	out := make(map[string]latefee.Applied, len(rows))
	for _, r := range rows {
		out[r.ChargeID] = latefee.Applied{Interest: money.Cents(r.Interest), Fine: money.Cents(r.Fine), Principal: money.Cents(r.Principal)}
	}
	return out, nil
}

// documentContent reads the bytes of the organization's document.
func documentContent(ctx context.Context, q store.Querier, orgID, id string) ([]byte, error) {
	var content []byte
	err := q.Get(ctx, &content, `SELECT content FROM dunning_documents WHERE organization_id = ? AND id = ?`, orgID, id)
	return content, err
}

// insertDocument writes d, generating, without bytes.
func insertDocument(ctx context.Context, tx *store.Tx, d documentRow) error {
	_, err := tx.Exec(ctx, `INSERT INTO dunning_documents (id, organization_id, kind, subject_id, amounts_on, status, content_type, filename,
		created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		d.ID, d.OrganizationID, d.Kind, d.SubjectID, d.AmountsOn, d.Status, d.ContentType, d.Filename, d.CreatedBy, d.CreatedAt, d.UpdatedAt)
	return err
}

// markDocumentReady stores the bytes of a document still generating; one
// that another run finished is store.ErrNotFound.
func markDocumentReady(ctx context.Context, tx *store.Tx, d documentRow, data []byte, now time.Time) error {
	return store.ExpectOne(tx.Exec(ctx, `UPDATE dunning_documents SET status = ?, content = ?, byte_size = ?, ready_at = ?, updated_at = ?
				WHERE id = ? AND organization_id = ? AND status = ?`, FileReady, data, int64(len(data)), now, now, d.ID, d.OrganizationID, FileGenerating))
}

// markDocumentFailed records why a document still generating failed; one
// that another run finished is store.ErrNotFound.
func markDocumentFailed(ctx context.Context, tx *store.Tx, d documentRow, failure string, now time.Time) error {
	return store.ExpectOne(tx.Exec(ctx, `UPDATE dunning_documents SET status = ?, error = ?, updated_at = ?
				WHERE id = ? AND organization_id = ? AND status = ?`, FileFailed, failure, now, d.ID, d.OrganizationID, FileGenerating))
}

// countStatementCharges counts the charges the debtor's statement lists.
func countStatementCharges(ctx context.Context, q store.Querier, orgID, debtorID string) (int, error) {
	var n int
	err := q.Get(ctx, &n, `SELECT COUNT(*) FROM dunning_charges WHERE `+statementChargesWhere, orgID, debtorID,
		string(lifecycle.ChargePending), string(lifecycle.ChargeOverdue))
	return n, err
}

// statementChargesQuery reads the charges the debtor's statement lists,
// due first, at most limit (for streamRows).
func statementChargesQuery(orgID, debtorID string, limit int) (string, []any) {
	query := ledger.ChargeSelect + ` WHERE ` + statementChargesWhere + ` ORDER BY due_date, id LIMIT ?`
	return query, []any{orgID, debtorID, string(lifecycle.ChargePending), string(lifecycle.ChargeOverdue), limit}
}
