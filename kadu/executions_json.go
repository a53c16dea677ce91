package kadu

import (
	"encoding/json"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/productkit/restkit"
)

// tokensJSON is token usage as the API shows it.
type tokensJSON struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
	Cached int64 `json:"cached"`
}

// errorJSON is why an execution failed.
type errorJSON struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// executionJSON is an execution as the API shows it; money in BRL.
type executionJSON struct {
	ID           string          `json:"id"`
	TaskID       string          `json:"task_id"`
	Trigger      string          `json:"trigger"`
	TriggeredBy  *string         `json:"triggered_by"`
	Status       string          `json:"status"`
	Model        *string         `json:"model"`
	Input        json.RawMessage `json:"input"`
	InputFileIDs json.RawMessage `json:"input_file_ids"`
	MaxCost      float64         `json:"max_cost"`
	Cost         float64         `json:"cost"`
	Tokens       tokensJSON      `json:"tokens"`
	StepCount    int             `json:"step_count"`
	Output       json.RawMessage `json:"output"`
	Error        *errorJSON      `json:"error"`
	Waiting      json.RawMessage `json:"waiting"`
	ApprovalID   *string         `json:"approval_id"`
	TickAt       *time.Time      `json:"scheduled_for"`
	StartedAt    *time.Time      `json:"started_at"`
	FinishedAt   *time.Time      `json:"finished_at"`
	Deadline     *time.Time      `json:"deadline"`
	CreatedAt    time.Time       `json:"created_at"`
	UpdatedAt    time.Time       `json:"updated_at"`
}

func rawOrNull(p *string) json.RawMessage {
	if p == nil || *p == "" {
		return json.RawMessage("null")
	}
	return json.RawMessage(*p)
}

func toExecutionJSON(e *records.Execution) executionJSON {
	j := executionJSON{ID: e.ID, TaskID: e.TaskID, Trigger: e.Trigger, TriggeredBy: e.TriggeredBy, Status: e.Status,
		Model: e.Model, Input: rawOrNull(&e.InputJSON), InputFileIDs: rawOrNull(&e.InputFileIDsJSON),
		MaxCost: money.Cents(e.MaxCostCents).Float64(), Cost: money.Cents(e.CostCents).Float64(),
		Tokens:    tokensJSON{e.TokensIn, e.TokensOut, e.TokensCached},
		StepCount: e.StepCount, Output: rawOrNull(e.OutputJSON), Waiting: rawOrNull(e.WaitingJSON), ApprovalID: e.ApprovalID,
		TickAt: e.TickAt, StartedAt: e.StartedAt, FinishedAt: e.FinishedAt, Deadline: e.Deadline,
		CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt}
	if e.ErrorCode != nil {
		j.Error = &errorJSON{Code: *e.ErrorCode, Message: restkit.Deref(e.ErrorMessage)}
	}
	return j
}

// stepJSON is an execution step as the API shows it.
type stepJSON struct {
	ID            string          `json:"id"`
	Seq           int             `json:"seq"`
	Kind          string          `json:"kind"`
	ToolName      *string         `json:"tool_name"`
	Arguments     json.RawMessage `json:"arguments"`
	ResultSummary *string         `json:"result_summary"`
	Status        string          `json:"status"`
	Error         *string         `json:"error"`
	Tokens        tokensJSON      `json:"tokens"`
	Cost          float64         `json:"cost"`
	DurationMS    int64           `json:"duration_ms"`
	StartedAt     time.Time       `json:"started_at"`
	FinishedAt    *time.Time      `json:"finished_at"`
}

func toStepJSON(st *records.Step) stepJSON {
	return stepJSON{ID: st.ID, Seq: st.Seq, Kind: st.Kind, ToolName: st.ToolName, Arguments: rawOrNull(st.ArgumentsJSON),
		ResultSummary: st.ResultSummary, Status: st.Status, Error: st.ErrorMessage,
		Tokens: tokensJSON{st.TokensIn, st.TokensOut, st.TokensCached}, Cost: money.Cents(st.CostCents).Float64(),
		DurationMS: st.DurationMS, StartedAt: st.StartedAt, FinishedAt: st.FinishedAt}
}
