package kadu

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/productkit"
)

// settings declares Kadu's own settings (docs/operating.md "Configuration"), bound
// to c: the plan every organization runs within, the model price table,
// the OpenAI-compatible API agent tasks use, and how long an execution
// may run or wait. Money is written in reais, as on the API.
func (c *Config) settings(s *productkit.Settings) func() error {
	monthly := s.Add("kadu-monthly-cost-limit", "KOBANA_KADU_MONTHLY_COST_LIMIT", "500", "what one organization's executions may cost per calendar month (UTC), in BRL")
	perExec := s.Add("kadu-max-cost-per-execution", "KOBANA_KADU_MAX_COST_PER_EXECUTION", "10", "the highest ceiling one execution may have, in BRL (a task's ceiling and max_cost may only lower it)")
	concurrent := s.Add("kadu-max-concurrent-executions", "KOBANA_KADU_MAX_CONCURRENT_EXECUTIONS", "5", "executions of one organization that may run at once")
	prices := s.Add("kadu-model-prices", "KOBANA_KADU_MODEL_PRICES", "", `model prices in BRL per million tokens, JSON {"model":{"input":1.5,"output":6,"cached":0.75}}; empty: the built-in table`)
	modelURL := s.Add("kadu-model-url", "KOBANA_KADU_MODEL_URL", "", "base URL of the OpenAI-compatible chat-completions API agent tasks run on; empty: agent tasks are refused (model_not_configured)")
	modelKey := s.Add("kadu-model-key", "KOBANA_KADU_MODEL_KEY", "", "API key of --kadu-model-url (prefer the environment variable)")
	model := s.Add("kadu-model", "KOBANA_KADU_MODEL", "gpt-4o-mini", "model of agent tasks that name none")
	execTimeout := s.Add("kadu-execution-timeout", "KOBANA_KADU_EXECUTION_TIMEOUT", defaultExecutionTimeout.String(), "how long an execution may run before it ends timed_out")
	waitTimeout := s.Add("kadu-wait-timeout", "KOBANA_KADU_WAIT_TIMEOUT", defaultWaitTimeout.String(), "how long an execution may wait for input or an approval before it fails")
	filesCheck := c.Files.settings(s)
	mailCheck := c.Mail.settings(s)
	return func() error {
		if err := filesCheck(); err != nil {
			return err
		}
		if err := mailCheck(); err != nil {
			return err
		}
		var err error
		if c.Plan.MonthlyCostLimitCents, err = brlSetting("kadu-monthly-cost-limit", *monthly); err != nil {
			return err
		}
		if c.Plan.MaxCostPerExecutionCents, err = brlSetting("kadu-max-cost-per-execution", *perExec); err != nil {
			return err
		}
		n, err := strconv.Atoi(*concurrent)
		if err != nil || n < 1 {
			return fmt.Errorf("--kadu-max-concurrent-executions must be a whole number of at least 1")
		}
		c.Plan.MaxConcurrentExecutions = n
		if *prices != "" {
			if c.Prices, err = parsePrices(*prices); err != nil {
				return err
			}
		}
		if c.ExecutionTimeout, err = durationSetting("kadu-execution-timeout", *execTimeout); err != nil {
			return err
		}
		if c.WaitTimeout, err = durationSetting("kadu-wait-timeout", *waitTimeout); err != nil {
			return err
		}
		c.ModelURL, c.ModelKey, c.DefaultModel = *modelURL, *modelKey, *model
		return nil
	}
}

func brlSetting(name, v string) (int64, error) {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, fmt.Errorf("--%s must be an amount in BRL such as 10 or 2.50", name)
	}
	c, err := money.FromFloatAtMost(f, maxAmount)
	if err != nil || c == 0 {
		return 0, fmt.Errorf("--%s must be a positive amount in BRL", name)
	}
	return int64(c), nil
}

func durationSetting(name, v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil || d < time.Minute {
		return 0, fmt.Errorf("--%s must be a duration of at least 1m", name)
	}
	return d, nil
}

// parsePrices reads the price table setting: BRL per million tokens,
// kept in cents per million.
func parsePrices(v string) (map[string]ModelPrice, error) {
	var raw map[string]struct {
		Input  *float64 `json:"input"`
		Output *float64 `json:"output"`
		Cached *float64 `json:"cached"`
	}
	if err := json.Unmarshal([]byte(v), &raw); err != nil || len(raw) == 0 {
		return nil, fmt.Errorf(`--kadu-model-prices must be JSON such as {"gpt-4o-mini":{"input":0.9,"output":3.6,"cached":0.45}}`)
	}
	out := make(map[string]ModelPrice, len(raw))
	for model, p := range raw {
		if p.Input == nil || p.Output == nil {
			return nil, fmt.Errorf("--kadu-model-prices: %s needs input and output prices", model)
		}
		var price ModelPrice
		for _, f := range []struct {
			v   *float64
			dst *int64
		}{{p.Input, &price.InputPerMillionCents}, {p.Output, &price.OutputPerMillionCents}, {p.Cached, &price.CachedPerMillionCents}} {
			if f.v == nil {
				continue
			}
			c, err := money.FromFloatAtMost(*f.v, maxAmount)
			if err != nil {
				return nil, fmt.Errorf("--kadu-model-prices: %s: %v", model, err)
			}
			*f.dst = int64(c)
		}
		if p.Cached == nil {
			price.CachedPerMillionCents = price.InputPerMillionCents
		}
		out[model] = price
	}
	return out, nil
}
