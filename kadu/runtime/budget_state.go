package runtime

// What a checkpoint keeps of a budget wait and of an approved overrun
// (budget.go acts on them).

// budgetPause is the checkpoint's record of a budget wait, in cents: what
// kadu_executions_continue checks a decision against, and what the
// runtime turns an approval into.
type budgetPause struct {
	ModelStep      int   `json:"model_step"`
	StepCostCents  int64 `json:"step_cost_cents"`
	MinStepCents   int64 `json:"min_step_cents"`
	CostCents      int64 `json:"cost_cents"`
	MaxCostCents   int64 `json:"max_cost_cents"`
	TaskCeilingCap bool  `json:"task_ceiling,omitempty"`
}

// budgetGrant is an approved overrun: model step ModelStep may be made
// while the execution's cost stays within UpToCents, whatever its
// ceiling. Any later step is held to the ceiling again.
type budgetGrant struct {
	ModelStep int   `json:"model_step"`
	UpToCents int64 `json:"up_to_cents"`
}
