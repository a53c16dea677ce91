package ledger

import (
	"context"
	"strings"

	"github.com/kobana/kobana-mcp/platform/store"
)

// chargeListFilter is a listing of charges: archived or live ones,
// optional filters (statuses already checked, a debtor or plan by id or
// external_id, due dates as YYYY-MM-DD, text), an order and a numbered
// page.
type chargeListFilter struct {
	Archived       bool
	Statuses       []string
	DebtorRef      string
	DueFrom, DueTo string
	PlanRef        string
	Q              string
	Order, Dir     string
	Limit, Offset  int
}

// narrowedByStatusOnly says the counters can answer the filter's total.
func (f chargeListFilter) narrowedByStatusOnly() bool {
	return f.DebtorRef == "" && f.DueFrom == "" && f.DueTo == "" && f.PlanRef == "" && f.Q == ""
}

// listCharges reads a page of the organization's charges, each with its
// debtor's person_kind (Charge.DebtorPersonKind), and how many match in
// all: from the counters when only status and archiving narrow the list
// (docs/decisions.md, "Listings at scale"), else counted. The rows are
// not decoded.
func listCharges(ctx context.Context, q store.Querier, orgID string, f chargeListFilter) ([]Charge, int, error) {
	where := []string{"c.organization_id = ?"}
	args := []any{orgID}
	if f.Archived {
		where = append(where, "c.archived_at IS NOT NULL")
	} else {
		where = append(where, "c.archived_at IS NULL")
	}
	if len(f.Statuses) > 0 {
		where = append(where, "c.status IN ("+strings.TrimSuffix(strings.Repeat("?, ", len(f.Statuses)), ", ")+")")
		for _, st := range f.Statuses {
			args = append(args, st)
		}
	}
	if f.DebtorRef != "" {
		where = append(where, "c.debtor_id IN (SELECT id FROM dunning_debtors WHERE organization_id = ? AND (id = ? OR external_id = ?))")
		args = append(args, orgID, f.DebtorRef, f.DebtorRef)
	}
	if f.DueFrom != "" {
		where = append(where, "c.due_date >= ?")
		args = append(args, f.DueFrom)
	}
	if f.DueTo != "" {
		where = append(where, "c.due_date <= ?")
		args = append(args, f.DueTo)
	}
	if f.PlanRef != "" {
		where = append(where, `EXISTS (SELECT 1 FROM dunning_enrollments e WHERE e.charge_id = c.id AND e.organization_id = ?
			AND e.plan_id IN (SELECT id FROM dunning_plans WHERE organization_id = ? AND (id = ? OR external_id = ?)))`)
		args = append(args, orgID, orgID, f.PlanRef, f.PlanRef)
	}
	if f.Q != "" {
		p := LikeContains(strings.ToLower(f.Q))
		where = append(where, `(LOWER(c.description) LIKE ? ESCAPE '\' OR LOWER(COALESCE(c.external_id, '')) LIKE ? ESCAPE '\'
			OR c.debtor_id IN (SELECT id FROM dunning_debtors WHERE organization_id = ? AND LOWER(name) LIKE ? ESCAPE '\'))`)
		args = append(args, p, p, orgID, p)
	}
	cond := strings.Join(where, " AND ")
	var total int
	var err error
	if f.narrowedByStatusOnly() {
		total, err = chargeTotal(ctx, q, orgID, f.Archived, f.Statuses)
	} else {
		err = q.Get(ctx, &total, `SELECT COUNT(*) FROM dunning_charges c WHERE `+cond, args...)
	}
	if err != nil {
		return nil, 0, err
	}
	rows := []Charge{}
	err = q.Select(ctx, &rows, `SELECT c.*, (SELECT d.person_kind FROM dunning_debtors d WHERE d.id = c.debtor_id) AS debtor_person_kind
		FROM dunning_charges c WHERE `+cond+` ORDER BY `+f.Order+` `+f.Dir+`, c.id `+f.Dir+` LIMIT ? OFFSET ?`,
		append(args, f.Limit, f.Offset)...)
	return rows, total, err
}
