package runtime

import (
	"context"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/store"
)

// stepCost is what one model call cost, from the price table: input
// tokens (those not served from the cache) at the input price, cached
// ones at the cached price, output at the output price, per million
// tokens, rounded up to the cent — a ceiling is never crossed by
// rounding. usage.In counts every prompt token, cached ones included, as
// OpenAI-compatible APIs report it. A model missing from the table
// cannot be priced: that is an error, never a free call.
func (s *Runtime) stepCost(model string, usage records.Tokens) (int64, error) {
	return PriceStep(s.cfg.Prices, model, usage)
}

// remainingBudget is what exec may still spend: the least of what is
// left of its own ceiling (fixed when queued from the task's ceiling,
// max_cost and the plan's maximum per execution), of the task's ceiling
// now (it may have been lowered since), and of the organization's month
// (usage, as read in the step's transaction). Never negative. The runtime
// checks it before each model step, estimated, and parks the execution in
// waiting_budget before a step that would cross it (budget.go).
func (s *Runtime) remainingBudget(exec *records.Execution, task *records.Task, usage records.Usage) int64 {
	left := exec.MaxCostCents - exec.CostCents
	if task != nil && task.CostCeilingCents != nil {
		left = min(left, *task.CostCeilingCents-exec.CostCents)
	}
	left = min(left, s.cfg.Plan.MonthlyCostLimitCents-usage.CostCents)
	return max(left, 0)
}

// currentUsage is the organization's usage of the current month.
func (s *Runtime) currentUsage(ctx context.Context, q store.Querier, orgID string) (records.Usage, error) {
	return records.MonthUsage(ctx, q, orgID, records.UsageMonth(s.clock()))
}
