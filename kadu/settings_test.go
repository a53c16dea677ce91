package kadu

import (
	"testing"

	"github.com/kobana/kobana-mcp/productkit"
)

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
		c.Prices["m1"] != (ModelPrice{InputPerMillionCents: 150, OutputPerMillionCents: 600, CachedPerMillionCents: 150}) || c.ModelURL == "" || c.DefaultModel != "m1" {
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
