package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/kadu/wflang"
	"github.com/kobana/kobana-mcp/platform/store"
)

// Workflow mode: the task's steps in order, each a tool call whose
// arguments are templates over the run's input and the earlier steps'
// results, with an optional condition ("if") and on_error stop|continue
// (kadu/wflang is the language), and an optional for_each that calls the
// tool once per element of a list (foreach.go). No model, no
// cost: each step, and each element of a loop, counts against the
// execution's step limit.

// CompileWorkflow compiles a task's steps (the product checks a
// workflow with it when the task is saved).
func CompileWorkflow(steps []records.WorkflowStep) ([]wflang.Compiled, error) {
	specs := make([]wflang.StepSpec, len(steps))
	for i, st := range steps {
		specs[i] = wflang.StepSpec{ID: st.ID, Tool: st.Tool, Arguments: st.Arguments, OnError: st.OnError}
		if raw, ok := st.Extra["condition"]; ok {
			var cond string
			if err := json.Unmarshal(raw, &cond); err != nil {
				return nil, &wflang.Error{Step: i, StepID: st.ID, Path: "condition", Message: "a condition is a string holding one expression"}
			}
			specs[i].If = cond
		}
		if raw, ok := st.Extra["for_each"]; ok {
			var each string
			if err := json.Unmarshal(raw, &each); err != nil || strings.TrimSpace(each) == "" {
				return nil, &wflang.Error{Step: i, StepID: st.ID, Path: "for_each", Message: "for_each is a string holding one expression that gives a list"}
			}
			if st.Tool == AskTool {
				return nil, &wflang.Error{Step: i, StepID: st.ID, Path: "for_each", Message: "a kadu_ask step asks once; it cannot loop"}
			}
			specs[i].ForEach = each
		}
		for k := range st.Extra {
			if k != "condition" && k != "for_each" {
				return nil, &wflang.Error{Step: i, StepID: st.ID, Path: k, Message: "is not a field of a step (id, tool, arguments, condition, for_each, on_error)"}
			}
		}
	}
	return wflang.Validate(specs, nil)
}

// workflow runs the workflow from the checkpoint's next step.
func (r *run) workflow(ctx context.Context) error {
	s, e := r.s, r.e
	steps, err := CompileWorkflow(r.t.Steps)
	if err != nil {
		return s.fail(ctx, e, "invalid_workflow", err.Error())
	}
	var input map[string]any
	if err := json.Unmarshal([]byte(e.InputJSON), &input); err != nil {
		return s.fail(ctx, e, "invalid_input", "the run's input is not a JSON object")
	}
	if r.cp.Results == nil {
		r.cp.Results = map[string]json.RawMessage{}
	}
	for i := r.cp.Next; i < len(steps); i++ {
		if err := r.stillRunning(ctx); err != nil {
			return err
		}
		if err := r.workflowStep(ctx, i, steps[i], input); err != nil {
			return err
		}
	}
	out := map[string]any{"steps": r.cp.Results, "last": r.cp.Last}
	if b, _ := json.Marshal(out); len(b) > wflangMaxResult {
		out = map[string]any{"last": r.cp.Last, "note": "the steps' results are too large to keep here; read them step by step"}
	}
	return s.succeed(ctx, e, out)
}

// workflowStep runs step i: its loop (forEach), or its condition and
// then the question (ask) or the call (callStep). nil goes on to the
// next step; an error (errStop among them) ends the slice.
func (r *run) workflowStep(ctx context.Context, i int, st wflang.Compiled, input map[string]any) error {
	env, err := r.env(input)
	if err != nil {
		return err
	}
	if st.Each != nil {
		return r.forEach(ctx, i, st, env)
	}
	next := func(tx *store.Tx, value json.RawMessage) error {
		if st.ID != "" {
			r.cp.Results[st.ID] = value
		}
		r.cp.Last, r.cp.Next = value, i+1
		return r.s.saveCheckpoint(ctx, tx, r.e, r.cp)
	}
	if st.Cond != nil {
		ok, err := st.Cond.Eval(env)
		if err != nil {
			return r.stepError(ctx, i, st, exprFailure("condition_error", "", err), next)
		}
		if !ok {
			return r.skip(ctx, i, st, next)
		}
	}
	if st.Tool == AskTool {
		return r.ask(ctx, i, st, env, next)
	}
	return r.callStep(ctx, i, st, env, next)
}

// callStep renders step i's arguments and calls its tool, applying
// on_error to a failure (arguments that do not render call nothing).
func (r *run) callStep(ctx context.Context, i int, st wflang.Compiled, env wflang.Env, next func(*store.Tx, json.RawMessage) error) error {
	args, err := st.Args.Render(env)
	if err != nil {
		ans := exprFailure("arguments_error", "nothing was called: ", err)
		if err := r.recordFailedCall(ctx, st.Tool, nil, ans, func(tx *store.Tx) error { return next(tx, ans.Value) }); err != nil {
			return err
		}
		return r.afterFailure(ctx, i, st, ans)
	}
	ans, err := r.callTool(ctx, strconv.Itoa(i), st.Tool, args, func(tx *store.Tx, ans toolAnswer) error { return next(tx, ans.Value) })
	if err != nil {
		return err
	}
	if ans.Failed {
		return r.afterFailure(ctx, i, st, ans)
	}
	return nil
}

// env is what the step's expressions see.
func (r *run) env(input map[string]any) (wflang.Env, error) {
	steps := make(map[string]any, len(r.cp.Results))
	for id, raw := range r.cp.Results {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return wflang.Env{}, err
		}
		steps[id] = v
	}
	return wflang.Env{Input: input, Steps: steps}, nil
}

// skip records a step its condition skipped: a message step, its result
// nil.
func (r *run) skip(ctx context.Context, i int, st wflang.Compiled, next func(*store.Tx, json.RawMessage) error) error {
	return r.s.db.WithTx(ctx, func(tx *store.Tx) error {
		rec, err := r.s.machine.BeginStep(ctx, tx, r.e, records.StepStart{Kind: records.StepMessage, Tool: st.Tool})
		if err != nil {
			return err
		}
		if err := r.s.machine.FinishStep(ctx, tx, r.e, rec, records.StepOutcome{Status: records.StepSucceeded,
			ResultSummary: fmt.Sprintf("step %d%s skipped: its condition is false (%s)", i+1, idNote(st.ID), st.If)}); err != nil {
			return err
		}
		return next(tx, json.RawMessage("null"))
	})
}
