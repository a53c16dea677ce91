package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/llm"
	"github.com/kobana/kobana-mcp/platform/store"
)

// An agent asks the person with the kadu_ask function (docs/decisions.md
// "Kadu: agent tasks may ask the person"), the same wait as a workflow's
// kadu_ask step (ask.go): the call records a message step with the
// question and moves the execution to waiting_input, its checkpoint
// naming the call (Checkpoint.Asked) and the call left without an answer
// in the conversation. kadu_executions_continue queues it again with the
// person's input; the run that takes it moves the input into the
// checkpoint (Checkpoint.Answer) in the write that clears resume_input,
// and the pending call is answered with it — the function's result the
// model reads next — in the write that saves the conversation. A worker
// killed anywhere in between finds either the input still in
// resume_input, or in the checkpoint, or already in the conversation:
// the input is given once, and the question is never asked again.

// askFunction is kadu_ask as the model is offered it.
func askFunction() llm.Tool {
	return llm.FunctionTool(AskTool,
		"Asks the person who runs the task a question and waits for their answer, which is this function's result (JSON). Use it only for what the input, the instructions and the other functions cannot tell you.",
		json.RawMessage(`{"type":"object","properties":{"question":{"type":"string","description":"The question, in the person's language, short and precise."}},"required":["question"],"additionalProperties":false}`))
}

// agentAsk answers the model's kadu_ask call with the person's input when
// there is one; otherwise it records the question and parks the execution
// in waiting_input (errStop ends the job). A call without a usable
// question is answered to the model as an error, and the loop goes on.
func (r *run) agentAsk(ctx context.Context, call llm.ToolCall, args json.RawMessage) error {
	s, e := r.s, r.e
	if r.cp.Answer != nil && r.cp.Asked == call.ID {
		answer := r.cp.Answer
		return s.db.WithTx(ctx, func(tx *store.Tx) error {
			r.cp.Answer, r.cp.Asked = nil, ""
			r.cp.Messages = append(r.cp.Messages, llm.Message{Role: llm.RoleTool, ToolCallID: call.ID, Content: string(answer)})
			return s.saveCheckpoint(ctx, tx, e, r.cp)
		})
	}
	var q struct {
		Question string `json:"question"`
	}
	var problem string
	switch {
	case json.Unmarshal(args, &q) != nil || strings.TrimSpace(q.Question) == "":
		problem = "kadu_ask takes a question, a non-blank string"
	case len([]rune(q.Question)) > maxQuestion:
		problem = fmt.Sprintf("the question is longer than %d characters", maxQuestion)
	}
	if problem != "" {
		ans := errorAnswer("invalid_arguments", "nobody was asked: "+problem)
		return r.recordFailedCall(ctx, AskTool, args, ans, func(tx *store.Tx) error {
			r.cp.Messages = append(r.cp.Messages, llm.Message{Role: llm.RoleTool, ToolCallID: call.ID, Content: ans.Text})
			return s.saveCheckpoint(ctx, tx, e, r.cp)
		})
	}
	deadline := s.clock().Add(s.cfg.WaitTimeout)
	err := s.db.WithTx(ctx, func(tx *store.Tx) error {
		rec, err := s.machine.BeginStep(ctx, tx, e, records.StepStart{Kind: records.StepMessage, Tool: AskTool, Arguments: args})
		if err != nil {
			return err
		}
		if err := s.machine.FinishStep(ctx, tx, e, rec, records.StepOutcome{Status: records.StepSucceeded,
			ResultSummary: records.Summarize("waiting for the person's input: "+q.Question, 500)}); err != nil {
			return err
		}
		r.cp.Asked, r.cp.Answer = call.ID, nil
		w, _ := json.Marshal(WaitingInput{Kind: "input", CallID: call.ID, Question: q.Question, Arguments: args,
			ExpiresAt: deadline, ContinueWith: "kadu_executions_continue"})
		ws := string(w)
		return s.machine.Transition(ctx, tx, e, records.ExecWaitingInput, records.Change{Waiting: &ws, Checkpoint: r.cp.Encode(), Deadline: &deadline})
	})
	if err != nil && !errors.Is(err, records.ErrStaleExecution) {
		return err
	}
	return errStop
}
