package runtime

import (
	"context"
	"fmt"
	"math/big"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/store"
)

// PlanLimits are what an organization's plan allows, in cents of BRL.
type PlanLimits struct {
	// MonthlyCostLimitCents is what all executions of a month may cost.
	MonthlyCostLimitCents int64
	// MaxCostPerExecutionCents is the highest ceiling one execution may
	// have (a task's own ceiling may only be lower).
	MaxCostPerExecutionCents int64
	// MaxConcurrentExecutions is how many executions may run (or wait)
	// at once.
	MaxConcurrentExecutions int
}

// ModelPrice is what a model costs per million tokens, in cents of BRL.
type ModelPrice struct {
	InputPerMillionCents  int64 `json:"input"`
	OutputPerMillionCents int64 `json:"output"`
	CachedPerMillionCents int64 `json:"cached"`
}

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

// PriceStep is stepCost over a given table.
func PriceStep(prices map[string]ModelPrice, model string, usage records.Tokens) (int64, error) {
	p, ok := prices[model]
	if !ok {
		return 0, fmt.Errorf("kadu: no price for model %q", model)
	}
	if usage.In < 0 || usage.Out < 0 || usage.Cached < 0 {
		return 0, fmt.Errorf("kadu: negative token usage %+v", usage)
	}
	cached := min(usage.Cached, usage.In)
	fresh := usage.In - cached
	// In big integers: tokens × cents-per-million stays exact however
	// large either is.
	total := new(big.Int).Mul(big.NewInt(fresh), big.NewInt(p.InputPerMillionCents))
	total.Add(total, new(big.Int).Mul(big.NewInt(cached), big.NewInt(p.CachedPerMillionCents)))
	total.Add(total, new(big.Int).Mul(big.NewInt(usage.Out), big.NewInt(p.OutputPerMillionCents)))
	million := big.NewInt(1_000_000)
	q, r := new(big.Int).QuoRem(total, million, new(big.Int))
	if r.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	if !q.IsInt64() {
		return 0, fmt.Errorf("kadu: step cost out of range")
	}
	return q.Int64(), nil
}

// MinimumAgentCeiling is the least ceiling an agent execution may have:
// what a small model call (2 000 prompt tokens, 200 out) costs, at least
// one cent. A lower ceiling would stop it before its first step, so
// running it is refused (cost_ceiling_too_low) instead.
func MinimumAgentCeiling(prices map[string]ModelPrice, model string) int64 {
	c, err := PriceStep(prices, model, records.Tokens{In: 2000, Out: 200})
	if err != nil {
		return 1
	}
	return max(c, 1)
}

// remainingBudget is what exec may still spend: the least of what is
// left of its own ceiling (fixed when queued from the task's ceiling,
// max_cost and the plan's maximum per execution), of the task's ceiling
// now (it may have been lowered since), and of the organization's month
// (usage, as read in the step's transaction). Never negative. The runtime
// checks it before each model step, estimated, and stops the execution
// cost_exceeded before a step that would cross it.
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
