package kadu

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/kadu/runtime"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/rest"
)

// kadu_executions_continue on a waiting_budget execution (docs/decisions.md
// "Kadu: budgets that pause"; the runtime's side is kadu/runtime
// budget.go). The person either raises the execution's ceiling (max_cost:
// above the current one, enough for the least the waiting step costs, at
// most the plan's maximum per execution — the bound planRun applies when
// an execution is queued) or approves the overrun of that one step (up to
// the most it could cost). Whoever may act on the execution may raise it
// up to the task's own ceiling; past it, and any overrun, only the task's
// owner or an admin, who could change the task's ceiling anyway.

// budgetChoice is a checked budget decision.
type budgetChoice struct {
	decision  runtime.BudgetDecision
	modelStep int
	stepCost  int64
}

// budgetDecision checks a continue of the waiting_budget execution e.
func (s *service) budgetDecision(id *identity.Identity, t *records.Task, e *records.Execution, in *continueIn) (budgetChoice, error) {
	var c budgetChoice
	step, most, least, ok := runtime.BudgetPause(e)
	if !ok {
		return c, refusal(http.StatusConflict, codeNotWaiting, "the execution is "+e.Status+", not waiting_budget")
	}
	c.modelStep, c.stepCost = step, most
	invalid := func(field, msg string) error {
		return rest.Validation("the request is invalid", rest.FieldError{Field: field, Message: msg})
	}
	if in.Input != nil {
		return c, invalid("input", "a waiting_budget execution takes max_cost (a raised ceiling) or approve_overrun, not input")
	}
	if (in.MaxCost != nil) == in.ApproveOverrun {
		return c, invalid("max_cost", "give either max_cost (a raised ceiling) or approve_overrun: true, one of them")
	}
	c.decision = runtime.BudgetDecision{Kind: runtime.BudgetDecisionKind, By: who(id)}
	editor := mayEdit(id, t) == nil
	if in.ApproveOverrun {
		if !editor {
			return c, refusal(http.StatusForbidden, codeNotAllowedBudget,
				"only the task's owner or an admin may approve crossing the execution's ceiling; you may raise it up to the task's ceiling with max_cost")
		}
		c.decision.ApproveOverrun = true
		return c, nil
	}
	ceiling, err := money.FromFloatAtMost(*in.MaxCost, maxAmount)
	if err != nil {
		return c, invalid("max_cost", err.Error())
	}
	n := int64(ceiling)
	switch {
	case n <= e.MaxCostCents:
		return c, invalid("max_cost", fmt.Sprintf("must be above the execution's ceiling of %s", money.Cents(e.MaxCostCents).String()))
	case n < e.CostCents+least:
		return c, invalid("max_cost", fmt.Sprintf("must be at least %s: the execution cost %s so far and its next model step costs at least %s",
			money.Cents(e.CostCents+least).String(), money.Cents(e.CostCents).String(), money.Cents(least).String()))
	case n > s.cfg.Plan.MaxCostPerExecutionCents:
		return c, invalid("max_cost", fmt.Sprintf("must be at most the plan's maximum per execution, %s", money.Cents(s.cfg.Plan.MaxCostPerExecutionCents).String()))
	case t.CostCeilingCents != nil && n > *t.CostCeilingCents && !editor:
		return c, refusal(http.StatusForbidden, codeNotAllowedBudget, fmt.Sprintf(
			"only the task's owner or an admin may raise an execution's ceiling past the task's own, %s", money.Cents(*t.CostCeilingCents).String()))
	}
	c.decision.MaxCostCents = n
	return c, nil
}

// describe is the confirmation of a budget decision.
func (c budgetChoice) describe(t *records.Task, e *records.Execution) string {
	if c.decision.ApproveOverrun {
		return fmt.Sprintf("Approve crossing the ceiling of %s for model step %d of the execution of task '%s' (cost so far %s; the step may cost up to %s) and resume it? Later steps are held to the ceiling again.",
			money.Cents(e.MaxCostCents).String(), c.modelStep, t.Name, money.Cents(e.CostCents).String(), money.Cents(c.stepCost).String())
	}
	return fmt.Sprintf("Raise the ceiling of the execution of task '%s' from %s to %s and resume it (cost so far %s; its next model step may cost up to %s)? It resumes acting with the task's tools.",
		t.Name, money.Cents(e.MaxCostCents).String(), money.Cents(c.decision.MaxCostCents).String(), money.Cents(e.CostCents).String(), money.Cents(c.stepCost).String())
}

// continueBudget applies a budget decision in tx (the execution locked):
// a message step saying who decided what, the new ceiling, the decision
// kept in resume_input for the runtime, queued, and its job.
func (h *service) continueBudget(ctx context.Context, tx *store.Tx, id *identity.Identity, t *records.Task, e *records.Execution, in *continueIn) error {
	c, err := h.budgetDecision(id, t, e, in)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(c.decision)
	if err != nil {
		return err
	}
	summary := fmt.Sprintf("overrun of model step %d approved by %s (up to %s)", c.modelStep, c.decision.By, money.Cents(c.stepCost).String())
	ch := records.Change{}
	if c.decision.MaxCostCents > 0 {
		summary = fmt.Sprintf("ceiling raised from %s to %s by %s", money.Cents(e.MaxCostCents).String(), money.Cents(c.decision.MaxCostCents).String(), c.decision.By)
		ch.MaxCostCents = &c.decision.MaxCostCents
	}
	st, err := h.machine.BeginStep(ctx, tx, e, records.StepStart{Kind: records.StepMessage, Arguments: raw})
	if err != nil {
		return err
	}
	if err := h.machine.FinishStep(ctx, tx, e, st, records.StepOutcome{Status: records.StepSucceeded, ResultSummary: summary}); err != nil {
		return err
	}
	ri := string(raw)
	ch.ResumeInput = &ri
	if err := h.machine.Transition(ctx, tx, e, records.ExecQueued, ch); err != nil {
		return err
	}
	return h.enqueueRun(ctx, tx, e)
}

// budgetWaitMessage is what a waiting_budget execution's waiting field
// says it waited for (its message), for the record of how it ended.
func budgetWaitMessage(e *records.Execution) string {
	var w runtime.WaitingBudget
	if e.WaitingJSON != nil && json.Unmarshal([]byte(*e.WaitingJSON), &w) == nil && w.Message != "" {
		return w.Message
	}
	return "the execution waited at its ceiling"
}

// maxBudgetWaitsListed bounds kadu_usage_get's waiting_budget list; the
// rest are in kadu_executions_list?status=waiting_budget.
const maxBudgetWaitsListed = 50

// budgetWaitJSON is an execution paused at its ceiling, as kadu_usage_get
// lists it: its waiting field says what the step could cost and what is
// left.
type budgetWaitJSON struct {
	ExecutionID string          `json:"execution_id"`
	TaskID      string          `json:"task_id"`
	Cost        float64         `json:"cost"`
	MaxCost     float64         `json:"max_cost"`
	Waiting     json.RawMessage `json:"waiting"`
}

// budgetWaits are the organization's executions waiting for their budget
// now, newest first (the status index's order).
func (s *service) budgetWaits(ctx context.Context, orgID string) ([]budgetWaitJSON, error) {
	rows, err := records.ListExecutions(ctx, s.db, orgID, records.ExecutionFilter{Status: records.ExecWaitingBudget, Limit: maxBudgetWaitsListed})
	if err != nil {
		return nil, err
	}
	out := []budgetWaitJSON{}
	for i, e := range rows {
		if i == maxBudgetWaitsListed {
			break
		}
		out = append(out, budgetWaitJSON{ExecutionID: e.ID, TaskID: e.TaskID, Cost: money.Cents(e.CostCents).Float64(),
			MaxCost: money.Cents(e.MaxCostCents).Float64(), Waiting: rawOrNull(e.WaitingJSON)})
	}
	return out, nil
}
