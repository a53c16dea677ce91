package kadu

import (
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/kadu/runtime"
)

// Config is Kadu's deployment configuration: the plan's limits, the model
// price table and the clocks executions run against. The binary fills it
// from Kadu's product settings (settings.go); zero fields take the
// defaults (withDefaults).
type Config struct {
	// Plan are the limits every organization runs within.
	Plan PlanLimits
	// Prices are the models' prices (stepCost); a model missing from the
	// table cannot be priced, so it cannot run.
	Prices map[string]ModelPrice
	// ModelURL and ModelKey reach the OpenAI-compatible chat-completions
	// API agent tasks run on; without a URL no agent task can run
	// (model_not_configured).
	ModelURL string
	ModelKey string
	// DefaultModel is the model of an agent task that names none; empty:
	// such a task cannot run (model_not_configured).
	DefaultModel string
	// MaxSteps bounds the steps of one execution (workflow steps cost
	// nothing, so this is what bounds them).
	MaxSteps int
	// ExecutionTimeout is how long an execution may run before it is
	// timed_out; WaitTimeout how long it may wait for input or an
	// approval before it fails.
	ExecutionTimeout time.Duration
	WaitTimeout      time.Duration
	// Runtime tunes the runtime (kadu/runtime config.go).
	Runtime RuntimeConfig
	// Files is where files are kept and how their URLs are signed
	// (files_config.go).
	Files FilesConfig
	// Mail sends results to a task's e-mail destinations (delivery_mail.go).
	Mail DeliveryMail

	// lookupTool and validateWorkflow stand in, in tests, for the
	// deployment's tool registry and for the engine's workflow check when
	// a task is saved (service.lookupTool, service.validateWorkflow).
	lookupTool       func(name string) (runtime.ToolInfo, bool)
	validateWorkflow func(steps []records.WorkflowStep) error
}

// PlanLimits are what an organization's plan allows (the runtime's
// type, kadu/runtime plan.go).
type PlanLimits = runtime.PlanLimits

// ModelPrice is a model's price per million tokens (the runtime's type,
// kadu/runtime plan.go).
type ModelPrice = runtime.ModelPrice

// RuntimeConfig tunes the runtime (kadu/runtime Config).
type RuntimeConfig = runtime.Config

// Provider is the model agent executions talk to (kadu/runtime).
type Provider = runtime.Provider

// Defaults of Config, documented by the product settings.
const (
	defaultMonthlyCostLimitCents    = 50_000 // R$ 500,00
	defaultMaxCostPerExecutionCents = 1_000  // R$ 10,00
	defaultMaxConcurrentExecutions  = 5
	defaultExecutionTimeout         = 15 * time.Minute
	defaultWaitTimeout              = 24 * time.Hour
	defaultMaxSteps                 = 200
)

// withDefaults fills what c leaves zero.
func (c Config) withDefaults() Config {
	if c.Plan.MonthlyCostLimitCents == 0 {
		c.Plan.MonthlyCostLimitCents = defaultMonthlyCostLimitCents
	}
	if c.Plan.MaxCostPerExecutionCents == 0 {
		c.Plan.MaxCostPerExecutionCents = defaultMaxCostPerExecutionCents
	}
	if c.Plan.MaxConcurrentExecutions == 0 {
		c.Plan.MaxConcurrentExecutions = defaultMaxConcurrentExecutions
	}
	if c.ExecutionTimeout == 0 {
		c.ExecutionTimeout = defaultExecutionTimeout
	}
	if c.WaitTimeout == 0 {
		c.WaitTimeout = defaultWaitTimeout
	}
	if c.MaxSteps == 0 {
		c.MaxSteps = defaultMaxSteps
	}
	if c.Prices == nil {
		c.Prices = defaultPrices()
	}
	return c
}

// defaultPrices is the price table when none is configured: a few
// OpenAI-compatible models, in BRL cents per million tokens.
func defaultPrices() map[string]ModelPrice {
	return map[string]ModelPrice{
		"gpt-4o-mini":  {InputPerMillionCents: 90, OutputPerMillionCents: 360, CachedPerMillionCents: 45},
		"gpt-4o":       {InputPerMillionCents: 1500, OutputPerMillionCents: 6000, CachedPerMillionCents: 750},
		"gpt-4.1-mini": {InputPerMillionCents: 240, OutputPerMillionCents: 960, CachedPerMillionCents: 60},
		"gpt-4.1":      {InputPerMillionCents: 1200, OutputPerMillionCents: 4800, CachedPerMillionCents: 300},
	}
}
