package regua

import (
	"context"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/platform/store"
)

// sweepCandidate is a pending charge past its organization's grace.
type sweepCandidate struct {
	ID             string `db:"id"`
	OrganizationID string `db:"organization_id"`
	DueDate        string `db:"due_date"`
}

// sweepOrganizations are the organizations with pending charges due
// before horizon (YYYY-MM-DD), through dunning_charges_sweep.
func sweepOrganizations(ctx context.Context, q store.Querier, horizon string) ([]string, error) {
	var orgs []string
	err := q.Select(ctx, &orgs, `SELECT DISTINCT organization_id FROM dunning_charges WHERE status = ? AND due_date < ?`,
		string(lifecycle.ChargePending), horizon)
	return orgs, err
}

// sweepCandidates are the organization's next sweepBatch pending charges
// due by cutoff, after (afterDue, afterID) in keyset order, through
// dunning_charges_list.
func sweepCandidates(ctx context.Context, q store.Querier, orgID, cutoff, afterDue, afterID string) ([]sweepCandidate, error) {
	var batch []sweepCandidate
	err := q.Select(ctx, &batch, `SELECT id, organization_id, due_date FROM dunning_charges
			WHERE organization_id = ? AND status = ? AND due_date <= ? AND (due_date, id) > (?, ?) AND archived_at IS NULL
			ORDER BY due_date, id LIMIT ?`, orgID, string(lifecycle.ChargePending), cutoff, afterDue, afterID, sweepBatch)
	return batch, err
}

// lockPendingCharge reads a charge still pending, locked (ledger.ForUpdate);
// store.ErrNotFound when a write changed it.
func lockPendingCharge(ctx context.Context, tx *store.Tx, orgID, id string) (ledger.Charge, error) {
	return ledger.GetChargeWhere(ctx, tx, `id = ? AND organization_id = ? AND status = ?`+ledger.ForUpdate(tx),
		id, orgID, string(lifecycle.ChargePending))
}

// sweepBatch is how many charges one transaction of the sweep turns
// overdue.
const sweepBatch = 500
