package kadu

import (
	"context"
	"net/url"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/pagetext"
	"github.com/kobana/kobana-mcp/productkit/approval"
)

// The approval page of a kadu_tasks_run (or kadu_executions_continue)
// that ran must not say the task is done: the call only queued an
// execution. approvalProgress is Kadu's approval.Options.Progress: the
// execution the call answered, read afresh each time the page is shown,
// its status in the page's words, and where to follow it — the execution
// page for people (execution_page.go), the API route and the MCP resource
// (docs/decisions.md "Approval link").

// executionTools are the tools whose answer is an execution that goes on
// after the call.
var executionTools = map[string]bool{"kadu_tasks_run": true, "kadu_executions_continue": true}

// executionWork maps an execution's status to the page's states; notes say
// why one ended without success, when its status alone does not.
var (
	executionWork = map[string]approval.WorkState{
		records.ExecQueued:          approval.WorkQueued,
		records.ExecRunning:         approval.WorkRunning,
		records.ExecWaitingInput:    approval.WorkWaitingInput,
		records.ExecWaitingApproval: approval.WorkWaitingApproval,
		records.ExecWaitingBudget:   approval.WorkWaitingBudget,
		records.ExecSucceeded:       approval.WorkSucceeded,
		records.ExecFailed:          approval.WorkFailed,
		records.ExecCanceled:        approval.WorkCancelled,
		records.ExecTimedOut:        approval.WorkFailed,
		records.ExecCostExceeded:    approval.WorkFailed,
	}
	executionNotes = map[string]pagetext.Phrase{
		records.ExecTimedOut:     {PT: "O tempo limite da execução acabou.", EN: "The execution ran out of time."},
		records.ExecCostExceeded: {PT: "A execução atingiu o seu teto de custo.", EN: "The execution reached its cost ceiling."},
		records.ExecWaitingBudget: {PT: "O próximo passo passaria do teto de custo: aumente o teto ou aprove o excedente (kadu_executions_continue) para ela seguir.",
			EN: "Its next step would cross the cost ceiling: raise the ceiling or approve the overrun (kadu_executions_continue) for it to go on."},
	}
)

// approvalProgress is the execution a succeeded approval's call started,
// as it stands now (nil for any other tool, or an answer naming none).
func (s *service) approvalProgress(ctx context.Context, a *approval.Approval) (*approval.Progress, error) {
	if !executionTools[a.Tool] {
		return nil, nil
	}
	e, err := s.executionInAnswer(ctx, a.OrganizationID, a)
	if err != nil || e == nil {
		return nil, err
	}
	state, ok := executionWork[e.Status]
	if !ok {
		state = approval.WorkWaiting
	}
	return &approval.Progress{
		What:      pagetext.Phrase{PT: "a execução " + e.ID, EN: "execution " + e.ID},
		State:     state,
		Note:      executionNotes[e.Status],
		FollowURL: s.publicURL + APIBase + "/executions/" + url.PathEscape(e.ID),
		Resource:  "kobana://kadu/executions/" + e.ID,
		PageURL:   s.publicURL + ExecutionPagePrefix + url.PathEscape(e.ID),
	}, nil
}
