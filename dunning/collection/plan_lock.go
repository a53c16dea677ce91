package collection

import (
	"context"

	"github.com/kobana/kobana-mcp/platform/store"
)

// inLockedPlan is the start every write to a plan or its steps shares: the
// caller's organization from the token, a transaction run by run (the
// database's, or the confirmation's for a destructive tool, which commits
// with the use of its confirmation), the plan locked in it (an unknown or
// foreign id: not found), then fn with the organization and the plan.
func (s *Service) inLockedPlan(ctx context.Context, run func(context.Context, func(*store.Tx) error) error, planID string,
	fn func(tx *store.Tx, orgID string, p PlanRecord) error) error {
	t, err := s.Tenant(ctx)
	if err != nil {
		return err
	}
	return run(ctx, func(tx *store.Tx) error {
		p, err := lockPlan(ctx, tx, t.OrgID, planID)
		if err != nil {
			return planErr(err)
		}
		return fn(tx, t.OrgID, p)
	})
}
