package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/kadu/wflang"
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/approval"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/productkit/toolreg"
)

// The tools an execution calls: the other products' MCP tools, through
// the registry the binary fills (productkit/toolreg), in-process, as the
// person the execution runs for, restricted to the task's allowed tools,
// the person's role read at the moment of the call, and the scopes the
// task was granted. A destructive tool is never called directly: the
// execution waits (waiting_approval) for the person to approve that very
// call on the approval page, and makes it once approved.

// approvalOwner names Kadu's executions as the owner of the approvals
// they ask for (productkit/approval Options.Owners).
const ApprovalOwner = "kadu.execution"

// toolAnswer is what a tool call gave: its text, the same as a JSON value
// (the text itself when it is JSON, else a JSON string), and whether it
// failed.
type toolAnswer struct {
	Text   string
	Value  json.RawMessage
	Failed bool
	// Error says why it failed, for people and for the step's record.
	Error string
	// Code is the error code of a failure the runtime made itself
	// (errorAnswer), empty for a tool's own answer.
	Code string
}

// errorAnswer is a failure as the workflow and the model read it:
// {"error":{"code":…,"message":…}}, as the products' own errors are.
func errorAnswer(code, msg string) toolAnswer {
	b, _ := json.Marshal(map[string]any{"error": map[string]string{"code": code, "message": msg}})
	return toolAnswer{Text: string(b), Value: b, Failed: true, Error: code + ": " + msg, Code: code}
}

// codeBudget is the code of a step whose expression went over the
// evaluation budget (kadu/wflang, budget.go); the execution it stops
// fails with the same code.
const codeBudget = "expression_budget_exceeded"

// exprFailure is a step that failed evaluating one of its expressions:
// code, or codeBudget when the evaluation went over the budget.
func exprFailure(code, prefix string, err error) toolAnswer {
	if errors.Is(err, wflang.ErrBudget) {
		code = codeBudget
	}
	return errorAnswer(code, prefix+err.Error())
}

// failureCode is the execution's error code when a step's failure stops
// it.
func failureCode(ans toolAnswer) string {
	if ans.Code == codeBudget {
		return codeBudget
	}
	return "step_failed"
}

func answerOf(res *mcp.CallToolResult, limit int) toolAnswer {
	var parts []string
	for _, c := range res.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	text := strings.Join(parts, "\n")
	a := toolAnswer{Text: text, Failed: res.IsError}
	if len(text) > limit {
		a.Text = text[:limit]
		b, _ := json.Marshal(map[string]any{"truncated": true, "text": a.Text})
		a.Value = b
	} else if json.Valid([]byte(text)) && text != "" {
		a.Value = json.RawMessage(text)
	} else {
		a.Value, _ = json.Marshal(text)
	}
	if a.Failed {
		a.Error = records.Summarize(text, 500)
	}
	return a
}

// canonicalJSON is the RFC 8785 form of a call's arguments, as approvals
// store them ({} for none).
func canonicalJSON(raw json.RawMessage) (string, error) {
	if len(strings.TrimSpace(string(raw))) == 0 {
		return "{}", nil
	}
	v := jsontext.Value(raw).Clone()
	if err := v.Canonicalize(); err != nil {
		return "", err
	}
	return string(v), nil
}

func (r *run) toolCall(tool string, args json.RawMessage) toolreg.Call {
	return toolreg.Call{Tool: tool, Arguments: args, OrganizationID: r.e.OrganizationID, UserID: restkit.Deref(r.e.TriggeredBy),
		Email: r.email, Allowed: r.t.AllowedTools, Granted: r.t.GrantedScopes, Client: "kadu-execution"}
}

// recordFailedCall records a tool call that was refused or could not be
// made: a step begun and finished failed, with persist in the same
// transaction.
func (r *run) recordFailedCall(ctx context.Context, tool string, args json.RawMessage, ans toolAnswer, persist func(tx *store.Tx) error) error {
	return r.s.db.WithTx(ctx, func(tx *store.Tx) error {
		st, err := r.s.machine.BeginStep(ctx, tx, r.e, records.StepStart{Kind: records.StepToolCall, Tool: tool, Arguments: argsOrNull(args)})
		if err != nil {
			return err
		}
		if err := r.s.machine.FinishStep(ctx, tx, r.e, st, records.StepOutcome{Status: records.StepFailed, Error: ans.Error, ResultSummary: records.Summarize(ans.Text, 500)}); err != nil {
			return err
		}
		return persist(tx)
	})
}

func argsOrNull(args json.RawMessage) json.RawMessage {
	if json.Valid(args) {
		return args
	}
	b, _ := json.Marshal(string(args))
	return b
}

// callTool makes one tool call of the execution. ref names the call (a
// workflow step's index, an agent's tool call id) so an approval is tied
// to it. persist writes the runtime's checkpoint in the transaction that
// records the call's outcome. It returns the answer, or errStop when the
// execution now waits for an approval (or was moved meanwhile).
func (r *run) callTool(ctx context.Context, ref, tool string, args json.RawMessage, persist func(tx *store.Tx, ans toolAnswer) error) (toolAnswer, error) {
	if isFileTool(tool) { // the runtime's own (files_exec.go)
		return r.callFileTool(ctx, tool, args, persist)
	}
	reg, roles := r.s.rt.tools, r.s.rt.roles
	call := r.toolCall(tool, args)
	entry, id, err := reg.Check(ctx, roles, call)
	if ref, ok := toolreg.IsRefusal(err); ok {
		ans := errorAnswer(ref.Code, "nothing was called: "+ref.Message)
		return ans, r.recordFailedCall(ctx, tool, args, ans, func(tx *store.Tx) error { return persist(tx, ans) })
	}
	if err != nil {
		return toolAnswer{}, err
	}
	if !json.Valid(args) {
		ans := errorAnswer("invalid_arguments", "nothing was called: the arguments are not JSON")
		return ans, r.recordFailedCall(ctx, tool, args, ans, func(tx *store.Tx) error { return persist(tx, ans) })
	}
	var approved *approval.Approval
	if entry.Tool.IsDestructive() {
		approved, err = r.approvedCall(ctx, ref, tool, args)
		if err != nil {
			return toolAnswer{}, err
		}
		if approved == nil {
			ans, err := r.requestApproval(ctx, ref, entry, id, tool, args)
			if err != nil {
				return toolAnswer{}, err
			}
			// The target does not exist (the describe step answered the
			// tool's own error): nothing to approve.
			return ans, r.recordFailedCall(ctx, tool, args, ans, func(tx *store.Tx) error { return persist(tx, ans) })
		}
	}
	st, err := r.s.machine.BeginStep(ctx, r.s.db, r.e, records.StepStart{Kind: records.StepToolCall, Tool: tool, Arguments: args})
	if err != nil {
		return toolAnswer{}, err
	}
	if approved != nil {
		claimed, err := r.s.approvals.Claim(ctx, approved.ID)
		if err != nil {
			return toolAnswer{}, err
		}
		if !claimed {
			ans := errorAnswer("approval_claimed", "nothing was called: the approval was already used by another run")
			if err := r.finishCall(ctx, st, ans, nil, persist); err != nil {
				return toolAnswer{}, err
			}
			return ans, r.s.fail(ctx, r.e, "approval_claimed", "the approval of "+tool+" was already used by another run of this execution")
		}
		call.Confirmation = &mcp.Confirmation{Nonce: "approval:" + approved.ID,
			Expires: time.Now().Add(r.s.cfg.WaitTimeout + time.Hour), Message: approved.Message}
	}
	res, callErr := reg.Call(ctx, roles, call)
	var ans toolAnswer
	switch {
	case callErr != nil:
		if ref, ok := toolreg.IsRefusal(callErr); ok {
			ans = errorAnswer(ref.Code, "nothing was called: "+ref.Message)
		} else {
			ans = errorAnswer("tool_error", "the tool failed with an internal error; it may not have finished")
		}
	case res == nil:
		ans = errorAnswer("tool_error", "the tool returned no result")
	default:
		ans = answerOf(res, wflangMaxResult)
	}
	if err := r.finishCall(ctx, st, ans, approved, persist); err != nil {
		return toolAnswer{}, err
	}
	if callErr != nil && r.s.log != nil {
		r.s.log.Error("kadu: a tool call failed", "execution", r.e.ID, "tool", tool, "error", callErr)
	}
	return ans, nil
}

// wflangMaxResult is how much of a tool's answer a step keeps.
const wflangMaxResult = 256 << 10

// finishCall records a call's outcome, the checkpoint and, for an
// approved call, the approval's outcome, in one transaction.
func (r *run) finishCall(ctx context.Context, st *records.Step, ans toolAnswer, approved *approval.Approval, persist func(tx *store.Tx, ans toolAnswer) error) error {
	out := records.StepOutcome{Status: records.StepSucceeded, ResultSummary: records.Summarize(ans.Text, 500)}
	if ans.Failed {
		out.Status, out.Error = records.StepFailed, ans.Error
	}
	// Recorded even when the job's context ended during the call.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	return r.s.db.WithTx(wctx, func(tx *store.Tx) error {
		if err := r.s.machine.FinishStep(wctx, tx, r.e, st, out); err != nil {
			return err
		}
		r.cp.Awaiting = nil
		if err := persist(tx, ans); err != nil {
			return err
		}
		if approved != nil {
			status := approval.StatusSucceeded
			if ans.Failed {
				status = approval.StatusFailed
			}
			if _, err := approval.NewStore(tx, r.s.clock).Finish(wctx, approved.ID, status, []mcp.Content{mcp.TextContent(ans.Text)}); err != nil {
				return err
			}
		}
		return nil
	})
}

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

// waitingApproval is what a waiting_approval execution's waiting field
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
		Tool: tool, Arguments: canon, Message: msg, Owner: ApprovalOwner, OwnerRef: r.e.ID,
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
		Requester: func(a *approval.Approval) string {
			return "Kadu — uma execução de tarefa (" + a.OwnerRef + ")"
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

// ToolLookup is what saving a task knows of the deployment's tools
// (service.lookupTool): Kadu's file tools, then the registry's. A test's
// override stands in for the registry; with neither it is nil, and any
// well-formed name is accepted and granted no scope.
func ToolLookup(reg *toolreg.Registry, override func(name string) (ToolInfo, bool)) func(name string) (ToolInfo, bool) {
	other := override
	if other == nil && reg != nil {
		other = func(name string) (ToolInfo, bool) {
			e, ok := reg.Lookup(name)
			if !ok {
				return ToolInfo{}, false
			}
			return ToolInfo{Product: e.Product, Scopes: e.Tool.Requires.Scopes, Permission: e.Tool.Requires.Permission,
				Destructive: e.Tool.IsDestructive()}, true
		}
	}
	if other == nil {
		return nil
	}
	return func(name string) (ToolInfo, bool) {
		if info, ok := fileToolInfo(name); ok {
			return info, true
		}
		return other(name)
	}
}

// ToolInfo is what Kadu must know of another product's tool for a task to
// call it: the product it belongs to, the scopes and permission its
// requirement names, and whether it is destructive (an execution then
// waits for an approval before calling it).
type ToolInfo struct {
	Product     string
	Scopes      []string
	Permission  string
	Destructive bool
}

// CallTool makes one tool call as a step of the running execution e of
// task t, as a workflow step does: through the registry, recorded as
// started and then with its outcome and the checkpoint cp (Last is the
// answer). It answers the tool's answer and whether it failed; the
// product's BenchmarkToolCallOverhead measures the runtime's share with
// it.
func (s *Runtime) CallTool(ctx context.Context, e *records.Execution, t *records.Task, cp *Checkpoint, ref, tool string, args json.RawMessage) (json.RawMessage, bool, error) {
	r := &run{s: s, e: e, t: t, cp: cp}
	ans, err := r.callTool(ctx, ref, tool, args, func(tx *store.Tx, ans toolAnswer) error {
		r.cp.Last = ans.Value
		return s.saveCheckpoint(ctx, tx, e, r.cp)
	})
	return ans.Value, ans.Failed, err
}
