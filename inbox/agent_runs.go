package inbox

import (
	"context"
	"errors"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

var agentRunsRead = mcp.Requirement{Scopes: []string{"inbox.agent_runs"}, Permission: identity.PermRead}

type listAgentRunsIn struct {
	AgentID string `json:"agent_id,omitempty" in:"query" jsonschema:"Only runs of this agent (its id or external_id)."`
	EmailID string `json:"email_id,omitempty" in:"query" jsonschema:"Only runs on this e-mail."`
	InboxID string `json:"inbox_id,omitempty" in:"query" jsonschema:"Only runs on e-mails of this inbox (its id or external_id)."`
	Status  string `json:"status,omitempty" in:"query" enum:"running,success,failed" jsonschema:"Only runs with this status."`
	Limit   int    `json:"limit,omitempty" in:"query" minimum:"1" maximum:"200" jsonschema:"How many runs per page (1-200, default 50)."`
	Cursor  string `json:"cursor,omitempty" in:"query" jsonschema:"The meta.next_cursor of the previous page."`
}

type agentRunIDIn struct {
	ID string `json:"id" in:"path" jsonschema:"The run's id."`
}

// agentRunsAPI holds the handlers of the agent run operations.
type agentRunsAPI struct{ *service }

// registerAgentRuns declares the read-only operations on agent runs: what
// the processing agent did with each e-mail, and what it cost.
func registerAgentRuns(api *rest.API, s *service) {
	h := &agentRunsAPI{s}
	rest.Handle(api, rest.Operation{
		ID: "agent_runs_list", Method: "GET", Path: "/agent-runs", Tags: []string{"agent runs"},
		Title: "List agent runs", Summary: "Lists the workspace's agent runs (one per processing of an e-mail), newest first, with cursor pagination; filters agent_id, email_id, inbox_id and status.",
		Requires: agentRunsRead, Annotations: restkit.ReadOnly(),
	}, h.list)
	rest.Handle(api, rest.Operation{
		ID: "agent_runs_get", Method: "GET", Path: "/agent-runs/{id}", Tags: []string{"agent runs"},
		Title: "Get an agent run", Summary: "Gets one agent run: model, status, error, token usage, cost, duration and the agent's output.",
		Requires: agentRunsRead, Annotations: restkit.ReadOnly(),
	}, h.get)
}

// list answers agent_runs_list.
func (h *agentRunsAPI) list(ctx context.Context, in *listAgentRunsIn) (*rest.Response, error) {
	sc, before, err := restkit.PageScope(ctx, h.workspaceScope, in.Cursor)
	if err != nil {
		return nil, err
	}
	f := agentRunFilter{Status: in.Status, Before: before, Limit: restkit.PageLimit(in.Limit)}
	if in.AgentID != "" {
		a, err := getAgent(ctx, h.db, sc.OrgID, sc.WorkspaceID, in.AgentID)
		if errors.Is(err, store.ErrNotFound) {
			return nil, rest.NotFound("agent")
		}
		if err != nil {
			return nil, err
		}
		f.AgentID = a.ID
	}
	if in.InboxID != "" {
		if f.InboxID, err = h.filterInboxID(ctx, sc, in.InboxID); err != nil {
			return nil, err
		}
	}
	if in.EmailID != "" {
		if f.EmailID, err = h.filterEmailID(ctx, sc, in.EmailID); err != nil {
			return nil, err
		}
	}
	rows, err := listAgentRuns(ctx, h.db, sc.OrgID, sc.WorkspaceID, f)
	if err != nil {
		return nil, err
	}
	return restkit.CursorPage(rows, f.Limit, func(r agentRunRecord) string { return r.ID }, toAgentRunJSON), nil
}

// get answers agent_runs_get.
func (h *agentRunsAPI) get(ctx context.Context, in *agentRunIDIn) (*rest.Response, error) {
	return restkit.ReadItem(ctx, h.workspaceScope, "agent run", func(sc scope) (agentRunRecord, error) {
		return getAgentRun(ctx, h.db, sc.OrgID, sc.WorkspaceID, in.ID)
	}, toAgentRunJSON)
}
