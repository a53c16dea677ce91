package ledger

import (
	"context"

	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
)

// A debtor as the debtor operations answer it: its row with what it owes,
// read by debtors_store.go.

// debtorDetailJSON is a debtor with what it owes, computed by the server:
// total_open_amount over its open charges (pending or overdue, not
// archived), overdue_amount over the overdue ones.
type debtorDetailJSON struct {
	DebtorJSON
	TotalOpenAmount money.Cents `json:"total_open_amount"`
	OverdueAmount   money.Cents `json:"overdue_amount"`
	OpenCharges     int         `json:"open_charges"`
}

// debtorDetail is d with what it owes, in one query.
func debtorDetail(ctx context.Context, q store.Querier, d Debtor) (debtorDetailJSON, error) {
	owed, err := owedByDebtor(ctx, q, d.OrganizationID, d.ID)
	return debtorDetailJSON{DebtorJSON: ShowDebtor(d), TotalOpenAmount: money.Cents(owed.Open), OverdueAmount: money.Cents(owed.Overdue), OpenCharges: owed.N}, err
}

// debtorDetails decodes a page of debtors and adds their opt-outs and
// what each owes, in two queries for the whole page.
func debtorDetails(ctx context.Context, q store.Querier, orgID string, rows []Debtor) ([]debtorDetailJSON, error) {
	out := make([]debtorDetailJSON, 0, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	ids := make([]string, 0, len(rows))
	for i := range rows {
		if err := rows[i].Decode(); err != nil {
			return nil, err
		}
		ids = append(ids, rows[i].ID)
	}
	opts, err := optOutsOfDebtors(ctx, q, orgID, ids)
	if err != nil {
		return nil, err
	}
	sums, err := owedByDebtors(ctx, q, orgID, ids)
	if err != nil {
		return nil, err
	}
	for _, d := range rows {
		d.OptOuts = []OptOut{}
		for _, o := range opts {
			if o.DebtorID == d.ID {
				d.OptOuts = append(d.OptOuts, o)
			}
		}
		det := debtorDetailJSON{DebtorJSON: ShowDebtor(d)}
		for _, sm := range sums {
			if sm.DebtorID == d.ID {
				det.TotalOpenAmount, det.OverdueAmount, det.OpenCharges = money.Cents(sm.Open), money.Cents(sm.Overdue), sm.N
			}
		}
		out = append(out, det)
	}
	return out, nil
}
