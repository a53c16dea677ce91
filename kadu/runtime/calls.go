package runtime

import (
	"context"
	"encoding/json"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/approval"
)

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
