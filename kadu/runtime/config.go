package runtime

import (
	"context"
	"log/slog"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/llm"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/approval"
	"github.com/kobana/kobana-mcp/productkit/toolreg"
)

// Config tunes the runtime (kadu.Config.Runtime); zero fields take the
// defaults.
type Config struct {
	// JobTimeout bounds one run of the kadu.run_execution job (default 4
	// minutes, below the default --job-rescue-after of 5).
	JobTimeout time.Duration
	// Slice is how long one run of the job starts new steps before it
	// snoozes and lets River run it again (default 90 s): a long execution
	// is many short runs of one job.
	Slice time.Duration
	// ModelTimeout bounds one model call (default 2 minutes).
	ModelTimeout time.Duration
	// ModelAttempts is how many times a model call that failed with a
	// retryable error (HTTP 429, 5xx, a timeout) is tried (default 3),
	// RetryDelay the pause before the second (doubling after).
	ModelAttempts int
	RetryDelay    time.Duration
	// MaxModelSteps bounds an agent execution's model calls (default 30).
	MaxModelSteps int
	// MaxOutputTokens bounds one model answer (default 4096); the budget
	// may bound it lower.
	MaxOutputTokens int
	// MaxToolResultBytes is how much of a tool's answer the model reads
	// (default 16 KB) and a workflow keeps per step (default 256 KB, the
	// template language's bound).
	MaxToolResultBytes int
	// Provider replaces the OpenAI-compatible client built from
	// Config.ModelURL and ModelKey (tests).
	Provider Provider

	// Hold makes the worker leave every execution as it is: tests of the
	// API that move executions by hand.
	Hold bool
}

func (c Config) withDefaults() Config {
	if c.JobTimeout <= 0 {
		c.JobTimeout = 4 * time.Minute
	}
	if c.Slice <= 0 {
		c.Slice = 90 * time.Second
	}
	if c.ModelTimeout <= 0 {
		c.ModelTimeout = 2 * time.Minute
	}
	if c.ModelAttempts <= 0 {
		c.ModelAttempts = 3
	}
	if c.RetryDelay <= 0 {
		c.RetryDelay = time.Second
	}
	if c.MaxModelSteps <= 0 {
		c.MaxModelSteps = 30
	}
	if c.MaxOutputTokens <= 0 {
		c.MaxOutputTokens = 4096
	}
	if c.MaxToolResultBytes <= 0 {
		c.MaxToolResultBytes = 16 << 10
	}
	return c
}

// Provider is the model an agent execution talks to: one chat-completions
// request, one answer with its tool calls and usage. *llm.Client (the
// OpenAI-compatible API, platform/llm) is the implementation; any server
// that speaks that API works.
type Provider interface {
	Chat(ctx context.Context, req llm.Request) (llm.Response, error)
}

// Limits are the deployment's limits the runtime enforces, from
// kadu.Config: the plan, the price table, the steps of one execution and
// how long it may wait.
type Limits struct {
	Plan        PlanLimits
	Prices      map[string]ModelPrice
	MaxSteps    int
	WaitTimeout time.Duration
}

// Deps are what the product builds the runtime from (kadu's service): the
// shared stores, the state machine's write path, the bucket, the
// deployment's tools and roles, the model.
type Deps struct {
	DB        *store.DB
	Accounts  *accounts.Store
	Jobs      *jobs.Queue
	Approvals *approval.Store
	Log       *slog.Logger
	// Machine is the one write path of statuses, steps and cost.
	Machine *records.Machine
	// Clock is the instant written to the database (the product's, so a
	// test's clock reaches the runtime).
	Clock func() time.Time
	// Files is the bucket output files are written to and input files
	// read from.
	Files Bucket
	// Tools are the deployment's MCP tools; Roles the role lookup of the
	// moment of each call (productkit.Deps.Roles, which serve and worker
	// fill from the authorization server's store; nil skips it in tests).
	Tools     *toolreg.Registry
	Roles     oauth.RoleLookup
	PublicURL string
	// ModelURL and ModelKey reach the OpenAI-compatible API agent tasks
	// run on (Config.Provider replaces it).
	ModelURL string
	ModelKey string
	Limits   Limits
	Config   Config
}
