package agent

import (
	"context"
	"encoding/json"

	"github.com/kobana/kobana-mcp/inbox/extract"
)

// Request is one processing run: the agent's model (empty: the
// provider's default) and system message, and the e-mail.
type Request struct {
	Model         string
	SystemMessage string
	Input         extract.Input
}

// Usage is what a run consumed, as recorded on the AgentRun and charged
// to the workspace's monthly cost. CostPerToken is the blended price
// (TotalCost over input plus output tokens); TotalCost is in the
// currency the per-token prices are configured in.
type Usage struct {
	InputTokens  int
	OutputTokens int
	CacheRead    int
	CacheWrite   int
	CostPerToken float64
	TotalCost    float64
}

// Response is a run's result: which provider and model produced it, and
// its JSON output (delivered by webhooks and stored with the e-mail).
type Response struct {
	Provider string
	Model    string
	Output   json.RawMessage
	Usage    Usage
}

// Provider runs processing requests. Implementations are safe for
// concurrent use. When the provider answered but the answer is unusable
// (non-JSON content), Run returns the error together with a Response
// whose Usage is filled, so the spend is still metered.
type Provider interface {
	Name() string
	Run(ctx context.Context, req Request) (Response, error)
}
