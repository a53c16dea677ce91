package runtime

import (
	"testing"

	"github.com/kobana/kobana-mcp/kadu/records"
)

// testPrices are the product's default price table (kadu config.go,
// defaultPrices), in BRL cents per million tokens.
var testPrices = map[string]ModelPrice{
	"gpt-4o-mini": {InputPerMillionCents: 90, OutputPerMillionCents: 360, CachedPerMillionCents: 45},
	"gpt-4o":      {InputPerMillionCents: 1500, OutputPerMillionCents: 6000, CachedPerMillionCents: 750},
	"gpt-4.1":     {InputPerMillionCents: 1200, OutputPerMillionCents: 4800, CachedPerMillionCents: 300},
}

// TestStepCost: a model call's cost from the price table — fresh input,
// cached input and output, per million tokens, rounded up to the cent —
// and no price, no call.
func TestStepCost(t *testing.T) {
	t.Parallel()
	s := &Runtime{cfg: Limits{Prices: testPrices}}
	for _, c := range []struct {
		model string
		usage records.Tokens
		want  int64
	}{
		{"gpt-4o-mini", records.Tokens{}, 0},
		{"gpt-4o-mini", records.Tokens{In: 1_000_000}, 90},
		{"gpt-4o-mini", records.Tokens{Out: 1_000_000}, 360},
		{"gpt-4o-mini", records.Tokens{In: 1_000_000, Cached: 1_000_000}, 45},
		{"gpt-4o-mini", records.Tokens{In: 1_000_000, Out: 100_000, Cached: 200_000}, 72 + 9 + 36},
		{"gpt-4o-mini", records.Tokens{In: 1}, 1},                // a fraction of a cent rounds up
		{"gpt-4o-mini", records.Tokens{In: 100, Cached: 500}, 1}, // cached never above the prompt
		{"gpt-4o", records.Tokens{In: 2_000_000, Out: 500_000}, 3000 + 3000},
		// 5 000 fresh × 1200 + 5 000 cached × 300 + 1 000 out × 4800 = 12.3 cents → 13
		{"gpt-4.1", records.Tokens{In: 10_000, Out: 1_000, Cached: 5_000}, 13},
	} {
		got, err := s.stepCost(c.model, c.usage)
		if err != nil || got != c.want {
			t.Errorf("%s %+v: %d %v, want %d", c.model, c.usage, got, err, c.want)
		}
	}
	if _, err := s.stepCost("unknown", records.Tokens{In: 1}); err == nil {
		t.Error("an unpriced model was priced")
	}
	if _, err := s.stepCost("gpt-4o", records.Tokens{In: -1}); err == nil {
		t.Error("negative usage")
	}
	if got := MinimumAgentCeiling(s.cfg.Prices, "gpt-4o-mini"); got != 1 {
		t.Errorf("minimum ceiling: %d", got)
	}
	if got := MinimumAgentCeiling(s.cfg.Prices, "gpt-4o"); got != 5 { // 2000×1500 + 200×6000 = 4.2M → 5 cents
		t.Errorf("minimum ceiling gpt-4o: %d", got)
	}
}

// TestRemainingBudget: the least of the execution's ceiling, the task's
// ceiling now, and what is left of the month; never negative.
func TestRemainingBudget(t *testing.T) {
	t.Parallel()
	s := &Runtime{cfg: Limits{Plan: PlanLimits{MonthlyCostLimitCents: 1000}, Prices: testPrices}}
	e := &records.Execution{MaxCostCents: 300, CostCents: 100}
	ceiling := int64(250)
	for _, c := range []struct {
		task  *records.Task
		usage int64
		want  int64
	}{
		{nil, 0, 200},
		{&records.Task{CostCeilingCents: &ceiling}, 0, 150},
		{nil, 950, 50},
		{nil, 1200, 0},
	} {
		if got := s.remainingBudget(e, c.task, records.Usage{CostCents: c.usage}); got != c.want {
			t.Errorf("%+v usage %d: %d, want %d", c.task, c.usage, got, c.want)
		}
	}
}

// TestAffordable: a ceiling the budget of a step's answer must shrink to
// fit, and a step whose prompt alone eats the budget is not made.
func TestAffordable(t *testing.T) {
	t.Parallel()
	// A ceiling the budget of a step's answer must shrink to fit.
	p := ModelPrice{InputPerMillionCents: 1000, OutputPerMillionCents: 4000, CachedPerMillionCents: 250}
	if n, ok := affordable(p, 1000, 5, 4096); !ok || n != 1000 { // 5 cents - 1 cent of prompt = 4 cents of output at 40/M... 1000 tokens
		t.Errorf("affordable: %d %v", n, ok)
	}
	if _, ok := affordable(p, 1000, 1, 4096); ok {
		t.Error("a step whose prompt alone eats the budget was allowed")
	}
}
