package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
)

// Budgets that pause (docs/decisions.md "Kadu: budgets that pause"): a
// model step whose bound does not fit in what is left of the execution's
// ceiling is not made, and the execution does not end: it waits in
// waiting_budget, every finished step kept, with what the step could cost
// and what is left. A person resumes it with kadu_executions_continue —
// a raised ceiling (max_cost, within the plan's maximum per execution),
// or an approval of the overrun for that one step — and the model step
// is made then, from the same checkpoint: nothing that ran runs again.
// Nobody deciding within --kadu-wait-timeout ends it cost_exceeded, as a
// ceiling did before. The organization's month is not a ceiling a person
// lifts here: a step that would cross the plan's monthly limit still ends
// the execution cost_exceeded at once.

// WaitingBudget is what a waiting_budget execution's waiting field says:
// the model step that would cross the ceiling, what it could cost (the
// most, with the longest answer allowed; the least, with the shortest
// answer a step is made for) and what is left, in BRL as the API shows
// money.
type WaitingBudget struct {
	Kind string `json:"kind"`
	// ModelStep is the model call that waits (1 for the first).
	ModelStep int `json:"model_step"`
	// StepCost is the most the step could cost; StepCostMin the least.
	StepCost    float64 `json:"step_cost"`
	StepCostMin float64 `json:"step_cost_min"`
	// Left is what remains of the ceiling; Ceiling the execution's
	// ceiling and Cost what it has cost so far.
	Left    float64 `json:"left"`
	Ceiling float64 `json:"ceiling"`
	Cost    float64 `json:"cost"`
	// MinCeiling is the least ceiling that lets the step be made.
	MinCeiling float64   `json:"min_ceiling"`
	Message    string    `json:"message"`
	ExpiresAt  time.Time `json:"expires_at"`
	// ContinueWith names the tool that resumes it.
	ContinueWith string `json:"continue_with"`
}

// BudgetDecision is what kadu_executions_continue gives a waiting_budget
// execution, kept in resume_input until the runtime takes it: a raised
// ceiling (already written to max_cost_cents by the same transaction) or
// an approval of the overrun of the step that waits.
type BudgetDecision struct {
	Kind           string `json:"kind"`
	MaxCostCents   int64  `json:"max_cost_cents,omitempty"`
	ApproveOverrun bool   `json:"approve_overrun,omitempty"`
	By             string `json:"by,omitempty"`
}

// BudgetDecisionKind marks a BudgetDecision in resume_input.
const BudgetDecisionKind = "budget"

// BudgetPause is what a waiting_budget execution waits with, read from
// its checkpoint for kadu_executions_continue: the model step, the most
// and the least it could cost, in cents; ok is false when the execution
// does not wait for its budget.
func BudgetPause(e *records.Execution) (modelStep int, stepCost, minStep int64, ok bool) {
	cp, err := readCheckpoint(e)
	if err != nil || cp.Budget == nil || e.Status != records.ExecWaitingBudget {
		return 0, 0, 0, false
	}
	return cp.Budget.ModelStep, cp.Budget.StepCostCents, cp.Budget.MinStepCents, true
}

// remaining is what the next model step may spend: remainingBudget, or,
// for the step an approved overrun covers, what the approval allows
// (still within the organization's month).
func (r *run) remaining(usage records.Usage) int64 {
	s, e := r.s, r.e
	task := r.t
	if r.cp.CeilingRaised {
		// A person who may raise past the task's ceiling set this
		// execution's ceiling (kadu_executions_continue): it is the one
		// that counts.
		task = nil
	}
	left := s.remainingBudget(e, task, usage)
	if g := r.cp.Grant; g != nil && g.ModelStep == r.cp.ModelSteps+1 {
		month := s.cfg.Plan.MonthlyCostLimitCents - usage.CostCents
		left = max(left, min(g.UpToCents-e.CostCents, month))
	}
	return max(left, 0)
}

// overBudget is the runtime's answer to a model step whose bound (a
// prompt of up to inBound tokens) does not fit in remaining cents: the
// execution waits in waiting_budget, or ends cost_exceeded when the
// organization's month could not pay even the least such step.
func (r *run) overBudget(ctx context.Context, model string, inBound, remaining int64, usage records.Usage) error {
	s, e := r.s, r.e
	n := r.cp.ModelSteps + 1
	least, err := PriceStep(s.cfg.Prices, model, records.Tokens{In: inBound, Out: minOutputTokens})
	if err != nil {
		return err
	}
	most, err := PriceStep(s.cfg.Prices, model, records.Tokens{In: inBound, Out: int64(s.rt.cfg.MaxOutputTokens)})
	if err != nil {
		return err
	}
	month := s.cfg.Plan.MonthlyCostLimitCents - usage.CostCents
	if month < least {
		return s.failAs(ctx, e, records.ExecCostExceeded, "cost_exceeded",
			fmt.Sprintf("stopped before model step %d: it could cost up to %s (a prompt of up to %d tokens), and only %s remain of the organization's monthly limit",
				n, money.Cents(least).String(), inBound, money.Cents(max(month, 0)).String()))
	}
	deadline := s.clock().Add(s.cfg.WaitTimeout)
	pause := &budgetPause{ModelStep: n, StepCostCents: most, MinStepCents: least, CostCents: e.CostCents, MaxCostCents: e.MaxCostCents}
	msg := fmt.Sprintf("paused before model step %d: it could cost up to %s (at least %s), and only %s remain of the ceiling of %s; raise the ceiling or approve the overrun with kadu_executions_continue",
		n, money.Cents(most).String(), money.Cents(least).String(), money.Cents(remaining).String(), money.Cents(e.MaxCostCents).String())
	w, _ := json.Marshal(WaitingBudget{Kind: "budget", ModelStep: n, StepCost: money.Cents(most).Float64(), StepCostMin: money.Cents(least).Float64(),
		Left: money.Cents(remaining).Float64(), Ceiling: money.Cents(e.MaxCostCents).Float64(), Cost: money.Cents(e.CostCents).Float64(),
		MinCeiling: money.Cents(e.CostCents + least).Float64(), Message: msg, ExpiresAt: deadline, ContinueWith: "kadu_executions_continue"})
	ws := string(w)
	err = s.db.WithTx(ctx, func(tx *store.Tx) error {
		st, err := s.machine.BeginStep(ctx, tx, e, records.StepStart{Kind: records.StepMessage, Arguments: stepArgs(map[string]any{
			"model": model, "model_step": n, "step_cost_cents": most, "left_cents": remaining})})
		if err != nil {
			return err
		}
		if err := s.machine.FinishStep(ctx, tx, e, st, records.StepOutcome{Status: records.StepSucceeded, ResultSummary: records.Summarize(msg, 500)}); err != nil {
			return err
		}
		r.cp.Budget, r.cp.Grant = pause, nil
		return s.machine.Transition(ctx, tx, e, records.ExecWaitingBudget, records.Change{Waiting: &ws, Checkpoint: r.cp.Encode(), Deadline: &deadline})
	})
	if err != nil && !errors.Is(err, records.ErrStaleExecution) {
		return err
	}
	return errStop
}

// takeBudgetDecision applies the person's decision on a budget wait to
// the checkpoint, in the write that moves the execution to running: an
// approval becomes a grant for the step that waited; a raised ceiling
// (already the execution's max_cost_cents) says whether it supersedes
// the task's. Without a decision the step is tried again as it stands.
func (r *run) takeBudgetDecision(raw *string) {
	pause := r.cp.Budget
	r.cp.Budget = nil
	if raw == nil {
		return
	}
	var d BudgetDecision
	if json.Unmarshal([]byte(*raw), &d) != nil || d.Kind != BudgetDecisionKind {
		return
	}
	if d.ApproveOverrun {
		r.cp.Grant = &budgetGrant{ModelStep: pause.ModelStep, UpToCents: pause.CostCents + pause.StepCostCents}
	}
	if d.MaxCostCents > 0 && r.t.CostCeilingCents != nil && d.MaxCostCents > *r.t.CostCeilingCents {
		r.cp.CeilingRaised = true
	}
}
