package kadu

import (
	"testing"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/productkit"
)

// TestStepCost: a model call's cost from the price table — fresh input,
// cached input and output, per million tokens, rounded up to the cent —
// and no price, no call.
func TestStepCost(t *testing.T) {
	t.Parallel()
	s := &service{cfg: Config{}.withDefaults()}
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
	if got := s.minimumAgentCeiling("gpt-4o-mini"); got != 1 {
		t.Errorf("minimum ceiling: %d", got)
	}
	if got := s.minimumAgentCeiling("gpt-4o"); got != 5 { // 2000×1500 + 200×6000 = 4.2M → 5 cents
		t.Errorf("minimum ceiling gpt-4o: %d", got)
	}
}

// TestRemainingBudget: the least of the execution's ceiling, the task's
// ceiling now, and what is left of the month; never negative.
func TestRemainingBudget(t *testing.T) {
	t.Parallel()
	s := &service{cfg: Config{Plan: PlanLimits{MonthlyCostLimitCents: 1000}}.withDefaults()}
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

// TestSettings: the plan, prices and model API from Kadu's settings.
func TestSettings(t *testing.T) {
	t.Parallel()
	var c Config
	var set productkit.Settings
	check := c.settings(&set)
	if err := set.Parse("serve", []string{"--kadu-monthly-cost-limit=1000.5", "--kadu-max-cost-per-execution=2.25", "--kadu-max-concurrent-executions=3",
		`--kadu-model-prices={"m1":{"input":1.5,"output":6}}`, "--kadu-model-url=http://127.0.0.1:1/v1", "--kadu-model=m1"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := check(); err != nil {
		t.Fatal(err)
	}
	if c.Plan.MonthlyCostLimitCents != 100050 || c.Plan.MaxCostPerExecutionCents != 225 || c.Plan.MaxConcurrentExecutions != 3 ||
		c.Prices["m1"] != (ModelPrice{150, 600, 150}) || c.ModelURL == "" || c.DefaultModel != "m1" {
		t.Fatalf("%+v", c)
	}
	for _, bad := range [][]string{{"--kadu-monthly-cost-limit=-1"}, {"--kadu-max-concurrent-executions=0"}, {"--kadu-model-prices=[]"},
		{`--kadu-model-prices={"m":{"input":1}}`}, {"--kadu-execution-timeout=1s"}} {
		var c Config
		var set productkit.Settings
		check := c.settings(&set)
		if err := set.Parse("serve", bad, nil); err != nil {
			t.Fatal(err)
		}
		if err := check(); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
