package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/kadu/wflang"
	"github.com/kobana/kobana-mcp/platform/store"
)

// A workflow asks the person for input with a kadu_ask step
// (docs/decisions.md "Kadu: the MCP surface and the walkthrough"):
//
//	{"id": "month", "tool": "kadu_ask", "arguments": {"question": "Qual mês? (AAAA-MM)"}}
//
// It calls no tool. Reaching it records a message step with the question
// (its arguments rendered like any step's, so the question may quote
// earlier results) and moves the execution to waiting_input, whose
// waiting field holds the question; kadu_executions_continue gives the
// input, which becomes the step's result ({{steps.month.month}}), and the
// workflow goes on from the next step. Nobody answering within
// --kadu-wait-timeout ends it failed (input_timeout, the timeouts sweep).

// AskTool is the step tool of a question to the person. It is Kadu's
// runtime's own, not a tool of another product: never in allowed_tools,
// never granted a scope.
const AskTool = "kadu_ask"

// maxQuestion bounds a rendered question.
const maxQuestion = 2000

// WaitingInput is what a waiting_input execution's waiting field says.
type WaitingInput struct {
	Kind   string `json:"kind"`
	Step   int    `json:"step,omitempty"`
	StepID string `json:"step_id,omitempty"`
	// CallID is the agent's kadu_ask call (agent tasks; Step and StepID
	// are a workflow's).
	CallID    string          `json:"call_id,omitempty"`
	Question  string          `json:"question"`
	Arguments json.RawMessage `json:"arguments"`
	ExpiresAt time.Time       `json:"expires_at"`
	// ContinueWith names the tool that answers it.
	ContinueWith string `json:"continue_with"`
}

// CheckAskArguments is the saved check of a kadu_ask step's arguments:
// a question, a non-blank string ("" when fine).
func CheckAskArguments(raw json.RawMessage) string {
	var args struct {
		Question *string `json:"question"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &args) != nil || args.Question == nil {
		return "a kadu_ask step asks a question: arguments.question, a string"
	}
	if strings.TrimSpace(*args.Question) == "" {
		return "must not be blank"
	}
	return ""
}

// ask runs a kadu_ask step: the answer the person gave, when there is
// one, is the step's result; otherwise the question is recorded and the
// execution waits for input (errStop ends the job).
func (r *run) ask(ctx context.Context, i int, st wflang.Compiled, env wflang.Env, next func(*store.Tx, json.RawMessage) error) error {
	s, e := r.s, r.e
	if r.cp.Answer != nil {
		answer := r.cp.Answer
		return s.db.WithTx(ctx, func(tx *store.Tx) error {
			r.cp.Answer = nil
			return next(tx, answer)
		})
	}
	args, err := st.Args.Render(env)
	var q struct {
		Question string `json:"question"`
	}
	if err == nil {
		if json.Unmarshal(args, &q) != nil || strings.TrimSpace(q.Question) == "" {
			err = errors.New("the question is not a non-blank string")
		} else if len([]rune(q.Question)) > maxQuestion {
			err = fmt.Errorf("the question is longer than %d characters", maxQuestion)
		}
	}
	if err != nil {
		ans := exprFailure("arguments_error", "nobody was asked: ", err)
		if err := r.recordFailedCall(ctx, st.Tool, nil, ans, func(tx *store.Tx) error { return next(tx, ans.Value) }); err != nil {
			return err
		}
		return r.afterFailure(ctx, i, st, ans)
	}
	deadline := s.clock().Add(s.cfg.WaitTimeout)
	err = s.db.WithTx(ctx, func(tx *store.Tx) error {
		rec, err := s.machine.BeginStep(ctx, tx, e, records.StepStart{Kind: records.StepMessage, Tool: AskTool, Arguments: args})
		if err != nil {
			return err
		}
		if err := s.machine.FinishStep(ctx, tx, e, rec, records.StepOutcome{Status: records.StepSucceeded,
			ResultSummary: records.Summarize("waiting for the person's input: "+q.Question, 500)}); err != nil {
			return err
		}
		w, _ := json.Marshal(WaitingInput{Kind: "input", Step: i + 1, StepID: st.ID, Question: q.Question, Arguments: args,
			ExpiresAt: deadline, ContinueWith: "kadu_executions_continue"})
		ws := string(w)
		return s.machine.Transition(ctx, tx, e, records.ExecWaitingInput, records.Change{Waiting: &ws, Checkpoint: r.cp.Encode(), Deadline: &deadline})
	})
	if err != nil && !errors.Is(err, records.ErrStaleExecution) {
		return err
	}
	return errStop
}
