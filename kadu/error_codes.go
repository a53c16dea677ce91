package kadu

import "github.com/kobana/kobana-mcp/kadu/runtime"

// Kadu's own refusals, each with its code (docs/decisions.md "The rules
// we build on": lower-case codes), so a client tells them apart without
// reading the message.
const (
	codePlanLimitReached   = "plan_limit_reached"
	codeCostCeilingTooLow  = "cost_ceiling_too_low"
	codeModelNotConfigured = runtime.CodeModelNotConfigured
	codeNotAllowed         = "not_allowed_to_trigger"
	codeTaskPaused         = "task_paused"
	codeNotWaiting         = "execution_not_waiting"
	codeNotAllowedBudget   = "not_allowed_to_raise_budget"
	codeFinished           = "execution_finished"
)
