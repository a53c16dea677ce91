package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/pagetext"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/approval"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/productkit/toolreg"
)

// ApprovalOwner names Kadu's executions as the owner of the approvals
// they ask for (productkit/approval Options.Owners).
const ApprovalOwner = "kadu.execution"

// approvedCall is the approval of this very call (same ref, tool and
// canonical arguments) when the person approved it; nil when there is
// none yet.
func (r *run) approvedCall(ctx context.Context, ref, tool string, args json.RawMessage) (*approval.Approval, error) {
	aw := r.cp.Awaiting
	if aw == nil || aw.Ref != ref || aw.Tool != tool {
		return nil, nil
	}
	canon, err := canonicalJSON(args)
	if err != nil || canon != string(aw.Arguments) {
		return nil, err
	}
	a, err := r.s.approvals.Get(ctx, aw.ApprovalID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil || a.Status != approval.StatusApproved {
		return nil, err
	}
	return a, nil
}

// WaitingApproval is what a waiting_approval execution's waiting field
// says: the approval and the exact call.
type WaitingApproval struct {
	Kind        string          `json:"kind"`
	ApprovalID  string          `json:"approval_id"`
	ApprovalURL string          `json:"approval_url,omitempty"`
	Tool        string          `json:"tool"`
	Arguments   json.RawMessage `json:"arguments"`
	Message     string          `json:"message"`
	ExpiresAt   time.Time       `json:"expires_at"`
}

// requestApproval asks the person to approve a destructive call and
// moves the execution to waiting_approval: the approval (with the exact
// tool and canonical arguments, and the tool's own description of what it
// will do, obtained as the person), a message step saying so, the
// checkpoint and the transition, in one transaction. It returns errStop,
// or the tool's own answer when the call cannot go ahead (its target does
// not exist: nothing to approve).
func (r *run) requestApproval(ctx context.Context, ref string, entry *toolreg.Entry, id *identity.Identity, tool string, args json.RawMessage) (toolAnswer, error) {
	canon, err := canonicalJSON(args)
	if err != nil {
		return errorAnswer("invalid_arguments", "nothing was called: "+err.Error()), nil
	}
	msg := fmt.Sprintf("Call %s with %s.", tool, canon)
	if entry.Tool.Confirm != nil {
		m, res, err := entry.Tool.Confirm(identity.With(ctx, id), &mcp.CallToolRequest{Name: tool, Arguments: args})
		if err != nil {
			return toolAnswer{}, err
		}
		if res != nil {
			ans := answerOf(res, wflangMaxResult)
			ans.Failed = true
			if ans.Error == "" {
				ans.Error = records.Summarize(ans.Text, 500)
			}
			return ans, nil
		}
		msg = m
	}
	now := r.s.clock()
	a := &approval.Approval{OrganizationID: r.e.OrganizationID, UserID: restkit.Deref(r.e.TriggeredBy), Email: r.email,
		PrincipalHash: approval.PrincipalHash("kadu-execution\x00" + r.e.ID), Issuer: toolreg.Issuer, Subject: restkit.Deref(r.e.TriggeredBy),
		// The OAuth client whose call queued the execution (none for a
		// schedule's): the approval page and kadu_approvals_get name it
		// as who asks (docs/decisions.md "Kadu: who asks for a step's
		// approval").
		ClientID: restkit.Deref(r.e.ClientID),
		Tool:     tool, Arguments: canon, Message: msg, Owner: ApprovalOwner, OwnerRef: r.e.ID,
		CreatedAt: now, ExpiresAt: now.Add(r.s.cfg.WaitTimeout)}
	err = r.s.db.WithTx(ctx, func(tx *store.Tx) error {
		if err := approval.NewStore(tx, r.s.clock).Create(ctx, a); err != nil {
			return err
		}
		url := ""
		if r.s.rt.publicURL != "" {
			url = strings.TrimSuffix(r.s.rt.publicURL, "/") + approval.PathPrefix + a.ID
		}
		st, err := r.s.machine.BeginStep(ctx, tx, r.e, records.StepStart{Kind: records.StepMessage, Tool: tool, Arguments: args})
		if err != nil {
			return err
		}
		summary := "waiting for the person to approve " + tool + " (" + msg + ")"
		if url != "" {
			summary += ": " + url
		}
		if err := r.s.machine.FinishStep(ctx, tx, r.e, st, records.StepOutcome{Status: records.StepSucceeded, ResultSummary: records.Summarize(summary, 500)}); err != nil {
			return err
		}
		r.cp.Awaiting = &awaitedCall{Ref: ref, Tool: tool, Arguments: json.RawMessage(canon), ApprovalID: a.ID}
		w, _ := json.Marshal(WaitingApproval{Kind: "approval", ApprovalID: a.ID, ApprovalURL: url, Tool: tool,
			Arguments: json.RawMessage(canon), Message: msg, ExpiresAt: a.ExpiresAt})
		ws := string(w)
		return r.s.machine.Transition(ctx, tx, r.e, records.ExecWaitingApproval, records.Change{Waiting: &ws, ApprovalID: &a.ID,
			Checkpoint: r.cp.Encode(), Deadline: &a.ExpiresAt})
	})
	if errors.Is(err, records.ErrStaleExecution) {
		return toolAnswer{}, errStop
	}
	if err != nil {
		return toolAnswer{}, err
	}
	return toolAnswer{}, errStop
}

// decided resumes a waiting_approval execution from its approval: still
// pending, nothing; Cancelar, canceled; expired, failed with the reason;
// approved (or already claimed by a run that died), running again from
// the step that waits.
func (r *run) decided(ctx context.Context) error {
	s, e := r.s, r.e
	if e.ApprovalID == nil {
		return s.fail(ctx, e, "approval_missing", "the execution waited for an approval it does not name")
	}
	a, err := s.approvals.Get(ctx, *e.ApprovalID)
	if errors.Is(err, store.ErrNotFound) {
		return s.fail(ctx, e, "approval_missing", "the approval the execution waited for no longer exists")
	}
	if err != nil {
		return err
	}
	switch a.Status {
	case approval.StatusPending:
		return errStop
	case approval.StatusCancelled:
		return s.failAs(ctx, e, records.ExecCanceled, "approval_cancelled",
			fmt.Sprintf("the person chose Cancelar on the approval of %s: nothing was called", a.Tool))
	case approval.StatusExpired:
		return s.fail(ctx, e, "approval_expired",
			fmt.Sprintf("nobody approved %s before the approval expired at %s: nothing was called", a.Tool, a.ExpiresAt.UTC().Format(time.RFC3339)))
	}
	r.cp.RunnerJob = r.jobID
	if err := s.machine.Transition(ctx, s.db, e, records.ExecRunning, records.Change{Checkpoint: r.cp.Encode()}); err != nil {
		if errors.Is(err, records.ErrStaleExecution) {
			return errStop
		}
		return err
	}
	return nil
}

// ApprovalDecided is Owner.Decided of Kadu's approvals: the person chose
// Continuar or Cancelar on the page, so the execution's job runs again to
// act on it (make the call, or end canceled).
func (s *Runtime) ApprovalDecided(ctx context.Context, a *approval.Approval) error {
	if s.jobs == nil {
		return errors.New("kadu: no job queue to resume the execution on")
	}
	_, err := s.jobs.Enqueue(ctx, RunExecutionArgs{ExecutionID: a.OwnerRef}, nil)
	return err
}

// ApprovalOwners are the approval owners Kadu registers on its approval
// page (productkit/approval Options.Owners).
func (s *Runtime) ApprovalOwners() map[string]approval.Owner {
	return map[string]approval.Owner{ApprovalOwner: {
		Decided: s.ApprovalDecided,
		Requester: func(a *approval.Approval) pagetext.Phrase {
			return pagetext.Phrase{PT: "Kadu — uma execução de tarefa (" + a.OwnerRef + ")", EN: "Kadu — a task execution (" + a.OwnerRef + ")"}
		},
		ToolTitle: func(tool string) string {
			if e, ok := s.rt.tools.Lookup(tool); ok {
				if e.Tool.Title != "" {
					return e.Tool.Title
				}
				if e.Tool.Annotations != nil {
					return e.Tool.Annotations.Title
				}
			}
			return ""
		},
	}}
}

// abandonApproval records that an approved call's outcome is unknown (its
// worker died during it).
func (s *Runtime) abandonApproval(ctx context.Context, id string) {
	_, _ = s.approvals.Finish(ctx, id, approval.StatusFailed, []mcp.Content{mcp.TextContent(
		"The run was interrupted before it recorded an outcome: it may or may not have taken effect. Check before trying again.")})
}
