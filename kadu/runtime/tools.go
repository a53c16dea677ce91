package runtime

import (
	"context"
	"encoding/json"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/mcp"
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

func (r *run) toolCall(tool string, args json.RawMessage) toolreg.Call {
	return toolreg.Call{Tool: tool, Arguments: args, OrganizationID: r.e.OrganizationID, UserID: restkit.Deref(r.e.TriggeredBy),
		Email: r.email, Allowed: r.t.AllowedTools, Granted: r.t.GrantedScopes, Client: "kadu-execution",
		WorkspaceID: restkit.Deref(r.t.WorkspaceID)}
}

// callTool makes one tool call of the execution. ref names the call (a
// workflow step's index, an agent's tool call id) so an approval is tied
// to it. persist writes the runtime's checkpoint in the transaction that
// records the call's outcome. It returns the answer, or errStop when the
// execution now waits for an approval (or was moved meanwhile).
func (r *run) callTool(ctx context.Context, ref, tool string, args json.RawMessage, persist func(tx *store.Tx, ans toolAnswer) error) (toolAnswer, error) {
	if isFileTool(tool) { // the runtime's own (files.go)
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

// ToolLookup is what saving a task knows of the deployment's tools
// (kadu's service.lookupTool): Kadu's file tools, then the registry's. A test's
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
