package kadu

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/approval"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// approvalsRead: reading an approval's outcome. Only the person decides,
// on the page (docs/decisions.md "Approval link"): no API or tool
// approves.
var approvalsRead = mcp.Requirement{Scopes: []string{"kadu.approvals"}, Permission: identity.PermRead}

// approvalJSON is an approval as the API shows it, with the execution it
// started (kadu_tasks_run) or holds (an execution waiting for it).
type approvalJSON struct {
	ID         string          `json:"id"`
	Status     string          `json:"status"`
	Tool       string          `json:"tool"`
	Arguments  json.RawMessage `json:"arguments"`
	Message    string          `json:"message"`
	Result     *string         `json:"result"`
	CreatedAt  time.Time       `json:"created_at"`
	ExpiresAt  time.Time       `json:"expires_at"`
	DecidedAt  *time.Time      `json:"decided_at"`
	FinishedAt *time.Time      `json:"finished_at"`
	// RequestedBy is the OAuth client that asked: the call's client for an
	// approval link, the client that queued the execution for a step's
	// approval; null when none did (a schedule's execution).
	RequestedBy *requesterJSON `json:"requested_by"`
	Execution   *executionJSON `json:"execution"`
}

// requesterJSON names an OAuth client: its id and registered name (the
// id when it has none the deployment knows).
type requesterJSON struct {
	ClientID   string `json:"client_id"`
	ClientName string `json:"client_name"`
}

type approvalRefIn struct {
	ID string `json:"approval_id" in:"path" maxLength:"64" jsonschema:"The approval's id (approval_id of the approval link)."`
}

// approvalsAPI holds the handler of kadu_approvals_get.
type approvalsAPI struct{ *service }

// registerApprovals declares kadu_approvals_get.
func registerApprovals(api *rest.API, s *service) {
	h := &approvalsAPI{s}
	rest.Handle(api, rest.Operation{
		ID: "kadu_approvals_get", Method: "GET", Path: "/approvals/{approval_id}", Tags: []string{"approvals"},
		Title: "Get an approval", Summary: "Reads an approval link's outcome — pending, approved, running, succeeded, failed, cancelled or expired — with what the call answered and the execution it started or that waits for it. Only the person decides, on the approval page; nothing here approves. The person who made the call, or an admin, may read it.",
		Requires: approvalsRead, Annotations: restkit.ReadOnly(),
	}, h.get)
}

// get answers kadu_approvals_get.
func (h *approvalsAPI) get(ctx context.Context, in *approvalRefIn) (*rest.Response, error) {
	return restkit.ReadItem(ctx, h.tenancy, "approval", func(sc restkit.Tenant) (approvalJSON, error) {
		a, err := h.approvals.GetInOrganization(ctx, sc.OrgID, in.ID)
		if err != nil {
			return approvalJSON{}, err
		}
		if a.UserID != sc.Identity.UserID && !sc.Identity.Role.Allows(identity.PermManage) {
			return approvalJSON{}, store.ErrNotFound
		}
		return h.toApprovalJSON(ctx, sc.OrgID, a)
	}, func(j approvalJSON) approvalJSON { return j })
}

func (s *service) toApprovalJSON(ctx context.Context, orgID string, a *approval.Approval) (approvalJSON, error) {
	j := approvalJSON{ID: a.ID, Status: string(a.Status), Tool: a.Tool, Arguments: json.RawMessage(a.Arguments),
		Message: a.Message, CreatedAt: a.CreatedAt, ExpiresAt: a.ExpiresAt, DecidedAt: a.DecidedAt, FinishedAt: a.FinishedAt}
	if !json.Valid(j.Arguments) {
		j.Arguments = json.RawMessage("null")
	}
	if a.ClientID != "" {
		j.RequestedBy = &requesterJSON{ClientID: a.ClientID, ClientName: a.ClientID}
		if s.clientName != nil {
			j.RequestedBy.ClientName = s.clientName(ctx, a.ClientID)
		}
	}
	if a.Status.Final() && a.Result != "" {
		r := a.ResultText()
		j.Result = &r
	}
	e, err := s.executionOfApproval(ctx, orgID, a)
	if err != nil {
		return j, err
	}
	if e != nil {
		ej := toExecutionJSON(e)
		j.Execution = &ej
	}
	return j, nil
}

// executionOfApproval is the execution an approval is about: the one
// waiting on it (an execution's destructive tool call), else the one its
// kadu_tasks_run call queued once it ran (read from the call's answer).
func (s *service) executionOfApproval(ctx context.Context, orgID string, a *approval.Approval) (*records.Execution, error) {
	e, err := records.ExecutionWaitingOn(ctx, s.db, orgID, a.ID)
	if err == nil {
		return e, nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	if a.Tool != "kadu_tasks_run" {
		return nil, nil
	}
	return s.executionInAnswer(ctx, orgID, a)
}

// executionInAnswer is the execution a succeeded approval's call answered
// ({"data":{"id":…}}: kadu_tasks_run's, kadu_executions_continue's), as
// it stands now; nil when the answer names none or it is gone.
func (s *service) executionInAnswer(ctx context.Context, orgID string, a *approval.Approval) (*records.Execution, error) {
	if a.Status != approval.StatusSucceeded {
		return nil, nil
	}
	var answer struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if json.Unmarshal([]byte(a.ResultText()), &answer) != nil || answer.Data.ID == "" {
		return nil, nil
	}
	found, err := records.GetExecution(ctx, s.db, orgID, answer.Data.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	return found, err
}
