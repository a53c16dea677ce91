package kadu

// continueIn is kadu_executions_continue's input: an input for a
// waiting_input execution, or a decision for a waiting_budget one
// (budget_continue.go).
type continueIn struct {
	ID    string         `json:"execution_id" in:"path" jsonschema:"The waiting_input or waiting_budget execution."`
	Input map[string]any `json:"input,omitempty" jsonschema:"For waiting_input: what the execution asked for (its waiting field says what)."`
	// MaxCost and ApproveOverrun answer a waiting_budget execution
	// (budget_continue.go): one of them.
	MaxCost        *float64 `json:"max_cost,omitempty" minimum:"0" jsonschema:"For waiting_budget: the execution's new ceiling in BRL, above the current one and at least its waiting field's min_ceiling, at most the plan's maximum per execution; beyond the task's own ceiling only for the task's owner or an admin."`
	ApproveOverrun bool     `json:"approve_overrun,omitempty" jsonschema:"For waiting_budget: approve crossing the ceiling for the step that waits only (up to its waiting field's step_cost); the task's owner or an admin."`
}
