package runtime

import (
	"fmt"
	"math/big"

	"github.com/kobana/kobana-mcp/kadu/records"
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
