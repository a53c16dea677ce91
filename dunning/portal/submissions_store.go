package portal

import (
	"context"
	"time"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/store"
)

// The SQL of the page's accepted forms (dunning_portal_submissions).

// claimForm reserves form id fid for d's agreement in tx; false when a
// submission of it already made one. On PostgreSQL a concurrent claim of
// the same id waits for the first to commit (the primary key), then finds
// it; on SQLite the writers take turns.
func claimForm(ctx context.Context, tx *store.Tx, fid string, d ledger.Debtor, now time.Time) (bool, error) {
	res, err := tx.Exec(ctx, `INSERT INTO dunning_portal_submissions (form_id, organization_id, debtor_id, agreement_id, created_at)
		VALUES (?, ?, ?, '', ?) ON CONFLICT (form_id) DO NOTHING`, fid, d.OrganizationID, d.ID, now)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// recordSubmission names the agreement fid's submission made.
func recordSubmission(ctx context.Context, tx *store.Tx, fid, agreementID string) error {
	_, err := tx.Exec(ctx, `UPDATE dunning_portal_submissions SET agreement_id = ? WHERE form_id = ?`, agreementID, fid)
	return err
}
