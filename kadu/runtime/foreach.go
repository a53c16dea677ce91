package runtime

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/kadu/wflang"
	"github.com/kobana/kobana-mcp/platform/store"
)

// A workflow step with for_each (docs/decisions.md "Kadu's runtime",
// Workflow language): its list is evaluated (at most wflang.MaxItems
// elements, or the step fails — never cut), and each element is one
// recorded step of its own, with item and index visible to the arguments
// and the condition. Each element's outcome is written with the
// checkpoint naming the next element (checkpoint.Item) and the results
// so far (checkpoint.Items), so a worker that dies mid-loop resumes at
// the first unfinished element; the last element's transaction also sets
// steps.<id> to the list of results and moves to the next step. A call
// left started is settled by recover exactly as a single call is. A
// destructive tool waits for an approval per element: the approval's ref
// names the step and the element ("2.1").

// forEach runs step i's loop from the checkpoint's element.
func (r *run) forEach(ctx context.Context, i int, st wflang.Compiled, env wflang.Env) error {
	finish := func(tx *store.Tx, value json.RawMessage) error {
		if st.ID != "" {
			r.cp.Results[st.ID] = value
		}
		r.cp.Last, r.cp.Next, r.cp.Item, r.cp.Items = value, i+1, 0, nil
		return r.s.saveCheckpoint(ctx, tx, r.e, r.cp)
	}
	items, err := st.Each.Eval(env)
	if err != nil {
		return r.stepError(ctx, i, st, exprFailure("for_each_error", "nothing was called: ", err), finish)
	}
	if len(items) == 0 {
		return r.note(ctx, st, fmt.Sprintf("step %d%s: for_each gave no items; nothing was called", i+1, idNote(st.ID)),
			func(tx *store.Tx) error { return finish(tx, json.RawMessage("[]")) })
	}
	for j := r.cp.Item; j < len(items); j++ {
		if j > 0 {
			// Each element counts against the limits on its own (the
			// first was checked with the step).
			if err := r.stillRunning(ctx); err != nil {
				return err
			}
		}
		if err := r.forEachItem(ctx, i, j, st, env, items, finish); err != nil {
			return err
		}
	}
	return nil
}

// forEachItem runs element j of step i's loop over items: its condition,
// then its call, with item and index visible; its outcome is written with
// the checkpoint naming the next element, and the last one's by finish.
// nil goes on to the next element.
func (r *run) forEachItem(ctx context.Context, i, j int, st wflang.Compiled, env wflang.Env, items []any, finish func(*store.Tx, json.RawMessage) error) error {
	label := fmt.Sprintf("step %d%s item %d of %d", i+1, idNote(st.ID), j+1, len(items))
	ienv := env
	ienv.Loop, ienv.Item, ienv.Index = true, items[j], j
	next := func(tx *store.Tx, value json.RawMessage) error {
		r.cp.Items = append(r.cp.Items, value)
		r.cp.Item = j + 1
		if j+1 == len(items) {
			all, err := json.Marshal(r.cp.Items)
			if err != nil {
				return err
			}
			return finish(tx, all)
		}
		return r.s.saveCheckpoint(ctx, tx, r.e, r.cp)
	}
	if st.Cond != nil {
		ok, err := st.Cond.Eval(ienv)
		if err != nil {
			return r.itemFailedBeforeCall(ctx, label, st, exprFailure("condition_error", "", err), next)
		}
		if !ok {
			return r.note(ctx, st, fmt.Sprintf("%s skipped: its condition is false (%s)", label, st.If),
				func(tx *store.Tx) error { return next(tx, json.RawMessage("null")) })
		}
	}
	args, err := st.Args.Render(ienv)
	if err != nil {
		return r.itemFailedBeforeCall(ctx, label, st, exprFailure("arguments_error", "nothing was called: ", err), next)
	}
	ans, err := r.callTool(ctx, fmt.Sprintf("%d.%d", i, j), st.Tool, args, func(tx *store.Tx, ans toolAnswer) error { return next(tx, ans.Value) })
	if err != nil {
		return err
	}
	if ans.Failed {
		return r.afterItemFailure(ctx, label, st, ans)
	}
	return nil
}

// itemFailedBeforeCall records an element whose condition or arguments
// did not evaluate (nothing was called) and applies on_error to it.
func (r *run) itemFailedBeforeCall(ctx context.Context, label string, st wflang.Compiled, ans toolAnswer, next func(*store.Tx, json.RawMessage) error) error {
	if err := r.recordFailedCall(ctx, st.Tool, nil, ans, func(tx *store.Tx) error { return next(tx, ans.Value) }); err != nil {
		return err
	}
	return r.afterItemFailure(ctx, label, st, ans)
}

// note records a message step (a skipped element, an empty loop) and the
// checkpoint after it in one transaction.
func (r *run) note(ctx context.Context, st wflang.Compiled, summary string, persist func(tx *store.Tx) error) error {
	return r.s.db.WithTx(ctx, func(tx *store.Tx) error {
		rec, err := r.s.machine.BeginStep(ctx, tx, r.e, records.StepStart{Kind: records.StepMessage, Tool: st.Tool})
		if err != nil {
			return err
		}
		if err := r.s.machine.FinishStep(ctx, tx, r.e, rec, records.StepOutcome{Status: records.StepSucceeded, ResultSummary: summary}); err != nil {
			return err
		}
		return persist(tx)
	})
}

// afterItemFailure applies on_error to one element: stop fails the
// execution, continue goes on to the next element (the element's result
// is its error body).
func (r *run) afterItemFailure(ctx context.Context, label string, st wflang.Compiled, ans toolAnswer) error {
	if st.OnError == "continue" {
		return nil
	}
	return r.s.fail(ctx, r.e, failureCode(ans), fmt.Sprintf("%s (%s) failed: %s", label, st.Tool, ans.Error))
}
