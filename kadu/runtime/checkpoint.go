package runtime

import (
	"encoding/json"
	"fmt"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/llm"
)

// Checkpoint is what the runtime resumes from, kept in the execution's
// checkpoint column and rewritten with every step's outcome.
type Checkpoint struct {
	// RunnerJob is the River job that owns the running execution.
	RunnerJob int64 `json:"runner_job"`
	// Next is the index of the workflow step to run next; Results the
	// results of the workflow's steps so far, by step id.
	Next    int                        `json:"next,omitempty"`
	Results map[string]json.RawMessage `json:"results,omitempty"`
	// Item is the element of the for_each step Next that runs next, Items
	// the results of its elements before it (foreach.go).
	Item  int               `json:"item,omitempty"`
	Items []json.RawMessage `json:"items,omitempty"`
	// Last is the result of the last workflow step that ran.
	Last json.RawMessage `json:"last,omitempty"`
	// Messages are the agent's conversation; ModelSteps its model calls.
	Messages   []llm.Message `json:"messages,omitempty"`
	ModelSteps int           `json:"model_steps,omitempty"`
	// PromptTokens is the prompt size the model last reported, for the
	// messages up to PromptMessages: the bound of the next prompt starts
	// there.
	PromptTokens   int64 `json:"prompt_tokens,omitempty"`
	PromptMessages int   `json:"prompt_messages,omitempty"`
	// Awaiting is the destructive call the execution waits (or waited) for
	// the person to approve.
	Awaiting *awaitedCall `json:"awaiting,omitempty"`
	// Answer is the input a person gave a kadu_ask step or an agent's
	// kadu_ask call (kadu_executions_continue), moved here from resume_input when the
	// execution runs again and consumed as that step's result.
	Answer json.RawMessage `json:"answer,omitempty"`
	// Asked is the id of the agent's kadu_ask call the execution waits
	// (or waited) at in waiting_input (agent_ask.go): the person's input
	// becomes that call's result.
	Asked string `json:"asked,omitempty"`
	// Budget is the model step the execution waits at in waiting_budget
	// (budget.go); Grant an approved overrun of one step; CeilingRaised
	// that a person raised the execution's ceiling past the task's.
	Budget        *budgetPause `json:"budget,omitempty"`
	Grant         *budgetGrant `json:"grant,omitempty"`
	CeilingRaised bool         `json:"ceiling_raised,omitempty"`
}

// awaitedCall is a call waiting for its approval: which call (the
// workflow step's index or the agent's tool call id), the tool and its
// canonical arguments, and the approval.
type awaitedCall struct {
	Ref        string          `json:"ref"`
	Tool       string          `json:"tool"`
	Arguments  json.RawMessage `json:"arguments"`
	ApprovalID string          `json:"approval_id"`
}

func readCheckpoint(e *records.Execution) (*Checkpoint, error) {
	cp := &Checkpoint{}
	if e.CheckpointJSON == nil || *e.CheckpointJSON == "" {
		return cp, nil
	}
	if err := json.Unmarshal([]byte(*e.CheckpointJSON), cp); err != nil {
		return nil, fmt.Errorf("kadu: execution %s: checkpoint: %w", e.ID, err)
	}
	return cp, nil
}

func (cp *Checkpoint) Encode() *string {
	b, _ := json.Marshal(cp)
	s := string(b)
	return &s
}
