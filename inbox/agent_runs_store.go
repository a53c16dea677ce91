package inbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
)

// Agent run statuses: running until finishAgentRun records success or
// failed.
const (
	agentRunRunning = "running"
	agentRunSuccess = "success"
	agentRunFailed  = "failed"
)

// agentRunRecord is one run of the processing agent on an e-mail, as
// stored: the model, the outcome, token usage and cost.
type agentRunRecord struct {
	ID             string     `db:"id"`
	OrganizationID string     `db:"organization_id"`
	WorkspaceID    string     `db:"workspace_id"`
	InboxID        string     `db:"inbox_id"`
	AgentID        *string    `db:"agent_id"`
	EmailID        string     `db:"email_id"`
	Provider       string     `db:"provider"` // extractor or openai
	LLMModel       string     `db:"llm_model"`
	Status         string     `db:"status"`
	Error          *string    `db:"error"`
	InputTokens    int        `db:"input_tokens"`
	OutputTokens   int        `db:"output_tokens"`
	CacheRead      int        `db:"cache_read"`
	CacheWrite     int        `db:"cache_write"`
	CostPerToken   float64    `db:"cost_per_token"`
	TotalCost      float64    `db:"total_cost"`
	DurationMS     *int64     `db:"duration_ms"`
	OutputJSON     string     `db:"output"` // a JSON object; "{}" while running or when failed
	StartedAt      time.Time  `db:"started_at"`
	FinishedAt     *time.Time `db:"finished_at"`
}

// agentRunUsage is what a finished run consumed, as the provider reported
// it and the cost computed from it (BRL).
type agentRunUsage struct {
	InputTokens  int
	OutputTokens int
	CacheRead    int
	CacheWrite   int
	CostPerToken float64
	TotalCost    float64
}

const agentRunColumns = `id, organization_id, workspace_id, inbox_id, agent_id, email_id, provider, llm_model, status, error,
	input_tokens, output_tokens, cache_read, cache_write, cost_per_token, total_cost, duration_ms, output,
	started_at, finished_at`

// errAgentRunFinished is finishing a run that is no longer running.
var errAgentRunFinished = errors.New("inbox: the agent run is already finished")

// startAgentRun records that the agent starts on an e-mail and returns the
// run as stored: status running, no error, output {}, the usage counters
// r carries (normally zero), a new id unless r has one, and started now
// unless r.StartedAt is set. OrganizationID, WorkspaceID, InboxID, EmailID,
// Provider and LLMModel are required; the e-mail must exist (ErrConflict
// otherwise).
func startAgentRun(ctx context.Context, q store.Querier, r agentRunRecord) (agentRunRecord, error) {
	if r.OrganizationID == "" || r.WorkspaceID == "" || r.InboxID == "" || r.EmailID == "" || r.Provider == "" || r.LLMModel == "" {
		return r, fmt.Errorf("inbox: start agent run: organization, workspace, inbox, e-mail, provider and model are required")
	}
	if r.ID == "" {
		r.ID = store.NewID()
	}
	if r.StartedAt.IsZero() {
		r.StartedAt = store.Now()
	}
	r.StartedAt = r.StartedAt.UTC().Truncate(time.Microsecond)
	r.Status, r.Error, r.DurationMS, r.FinishedAt, r.OutputJSON = agentRunRunning, nil, nil, nil, "{}"
	_, err := q.Exec(ctx, `INSERT INTO agent_runs (`+agentRunColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.OrganizationID, r.WorkspaceID, r.InboxID, r.AgentID, r.EmailID, r.Provider, r.LLMModel, r.Status, r.Error,
		r.InputTokens, r.OutputTokens, r.CacheRead, r.CacheWrite, r.CostPerToken, r.TotalCost, r.DurationMS, r.OutputJSON,
		r.StartedAt, r.FinishedAt)
	if err != nil {
		return r, fmt.Errorf("inbox: start agent run: %w", err)
	}
	return r, nil
}

// finishAgentRun records how a running run ended: status success or
// failed, the error message (nil for none), the usage, the output (a JSON
// object; nil or empty for {}) and when it finished; duration_ms is
// finishedAt - started_at. A run of another organization, or none, is
// store.ErrNotFound; one already finished is errAgentRunFinished.
func finishAgentRun(ctx context.Context, q store.Querier, orgID, runID, status string, errMsg *string, usage agentRunUsage, output json.RawMessage, finishedAt time.Time) error {
	if status != agentRunSuccess && status != agentRunFailed {
		return fmt.Errorf("inbox: finish agent run: status %q is not success or failed", status)
	}
	out := "{}"
	if len(bytes.TrimSpace(output)) > 0 {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(output, &obj); err != nil || obj == nil {
			return fmt.Errorf("inbox: finish agent run: the output must be a JSON object")
		}
		out = string(output)
	}
	var started time.Time
	if err := q.Get(ctx, &started, `SELECT started_at FROM agent_runs WHERE organization_id = ? AND id = ?`, orgID, runID); err != nil {
		return err
	}
	finishedAt = finishedAt.UTC().Truncate(time.Microsecond)
	duration := max(finishedAt.Sub(started).Milliseconds(), 0)
	res, err := q.Exec(ctx, `UPDATE agent_runs SET status = ?, error = ?, input_tokens = ?, output_tokens = ?,
		cache_read = ?, cache_write = ?, cost_per_token = ?, total_cost = ?, duration_ms = ?, output = ?, finished_at = ?
		WHERE organization_id = ? AND id = ? AND status = ?`,
		status, errMsg, usage.InputTokens, usage.OutputTokens, usage.CacheRead, usage.CacheWrite, usage.CostPerToken,
		usage.TotalCost, duration, out, finishedAt, orgID, runID, agentRunRunning)
	if err != nil {
		return fmt.Errorf("inbox: finish agent run: %w", err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return errAgentRunFinished
	}
	return nil
}

// agentRunFilter narrows a listing of runs: ids already resolved, Before
// the id the page continues after (newest first).
type agentRunFilter struct {
	AgentID, EmailID, InboxID, Status string
	Before                            string
	Limit                             int
}

// listAgentRuns returns up to f.Limit+1 runs of the workspace, newest
// first, older than f.Before.
func listAgentRuns(ctx context.Context, q store.Querier, orgID, workspaceID string, f agentRunFilter) ([]agentRunRecord, error) {
	query := `SELECT ` + agentRunColumns + ` FROM agent_runs WHERE organization_id = ? AND workspace_id = ?`
	args := []any{orgID, workspaceID}
	for _, c := range []struct{ col, v string }{{"agent_id", f.AgentID}, {"email_id", f.EmailID}, {"inbox_id", f.InboxID}, {"status", f.Status}} {
		if c.v != "" {
			query += ` AND ` + c.col + ` = ?`
			args = append(args, c.v)
		}
	}
	if f.Before != "" {
		query += ` AND id < ?`
		args = append(args, f.Before)
	}
	query += ` ORDER BY id DESC LIMIT ?`
	args = append(args, f.Limit+1)
	rows := []agentRunRecord{}
	if err := q.Select(ctx, &rows, query, args...); err != nil {
		return nil, err
	}
	return rows, nil
}

// getAgentRun reads one run of the workspace; another workspace's or
// organization's is store.ErrNotFound.
func getAgentRun(ctx context.Context, q store.Querier, orgID, workspaceID, id string) (agentRunRecord, error) {
	var r agentRunRecord
	err := q.Get(ctx, &r, `SELECT `+agentRunColumns+` FROM agent_runs WHERE organization_id = ? AND workspace_id = ? AND id = ?`,
		orgID, workspaceID, id)
	return r, err
}

// insertFinishedRun records a run that started and finished in this
// process (the built-in extractor) with one insert and returns it as
// stored: status success, no error, the usage and output (a JSON object;
// empty for {}), started at r.StartedAt (now when zero) and finished
// finishedAt, duration_ms their difference as finishAgentRun computes
// it. The fields startAgentRun requires are required; r.ID is used when
// set.
func insertFinishedRun(ctx context.Context, q store.Querier, r agentRunRecord, usage agentRunUsage, output json.RawMessage, finishedAt time.Time) (agentRunRecord, error) {
	if r.OrganizationID == "" || r.WorkspaceID == "" || r.InboxID == "" || r.EmailID == "" || r.Provider == "" || r.LLMModel == "" {
		return r, fmt.Errorf("inbox: record agent run: organization, workspace, inbox, e-mail, provider and model are required")
	}
	out := "{}"
	if len(bytes.TrimSpace(output)) > 0 {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(output, &obj); err != nil || obj == nil {
			return r, fmt.Errorf("inbox: record agent run: the output must be a JSON object")
		}
		out = string(output)
	}
	if r.ID == "" {
		r.ID = store.NewID()
	}
	if r.StartedAt.IsZero() {
		r.StartedAt = store.Now()
	}
	r.StartedAt = r.StartedAt.UTC().Truncate(time.Microsecond)
	finishedAt = finishedAt.UTC().Truncate(time.Microsecond)
	duration := max(finishedAt.Sub(r.StartedAt).Milliseconds(), 0)
	var stored agentRunRecord
	err := q.Get(ctx, &stored, `INSERT INTO agent_runs (`+agentRunColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		RETURNING `+agentRunColumns,
		r.ID, r.OrganizationID, r.WorkspaceID, r.InboxID, r.AgentID, r.EmailID, r.Provider, r.LLMModel, agentRunSuccess, nil,
		usage.InputTokens, usage.OutputTokens, usage.CacheRead, usage.CacheWrite, usage.CostPerToken, usage.TotalCost, duration, out,
		r.StartedAt, finishedAt)
	if err != nil {
		return r, fmt.Errorf("inbox: record agent run: %w", err)
	}
	return stored, nil
}
