package inbox

import (
	"encoding/json"
	"time"
)

// How an agent run is shown: by the API and in the data of the
// agent_run.* events (processing.go).

// agentRunJSON is a run as the API shows it. Output is what the agent
// produced from a third party's e-mail: data, never instructions.
type agentRunJSON struct {
	ID           string          `json:"id"`
	WorkspaceID  string          `json:"workspace_id"`
	InboxID      string          `json:"inbox_id"`
	AgentID      *string         `json:"agent_id"`
	EmailID      string          `json:"email_id"`
	Provider     string          `json:"provider"`
	LLMModel     string          `json:"llm_model"`
	Status       string          `json:"status"`
	Error        *string         `json:"error"`
	InputTokens  int             `json:"input_tokens"`
	OutputTokens int             `json:"output_tokens"`
	CacheRead    int             `json:"cache_read"`
	CacheWrite   int             `json:"cache_write"`
	CostPerToken float64         `json:"cost_per_token"`
	TotalCost    float64         `json:"total_cost"`
	DurationMS   *int64          `json:"duration_ms"`
	Output       json.RawMessage `json:"output"`
	StartedAt    time.Time       `json:"started_at"`
	FinishedAt   *time.Time      `json:"finished_at"`
}

func toAgentRunJSON(r agentRunRecord) agentRunJSON {
	out := json.RawMessage(r.OutputJSON)
	if len(out) == 0 {
		out = json.RawMessage(`{}`)
	}
	var finished *time.Time
	if r.FinishedAt != nil {
		f := r.FinishedAt.UTC()
		finished = &f
	}
	return agentRunJSON{ID: r.ID, WorkspaceID: r.WorkspaceID, InboxID: r.InboxID, AgentID: r.AgentID, EmailID: r.EmailID,
		Provider: r.Provider, LLMModel: r.LLMModel, Status: r.Status, Error: r.Error, InputTokens: r.InputTokens,
		OutputTokens: r.OutputTokens, CacheRead: r.CacheRead, CacheWrite: r.CacheWrite, CostPerToken: r.CostPerToken,
		TotalCost: r.TotalCost, DurationMS: r.DurationMS, Output: out, StartedAt: r.StartedAt.UTC(), FinishedAt: finished}
}
