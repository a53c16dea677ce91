// Package records is the bottom of Kadu: the rows Kadu's operations, jobs
// and runtime share (kadu/migrations, from 00300), their org-scoped
// stores and the executions' state machine (docs/decisions.md "Kadu:
// tasks, executions, costs and schedules"). Package kadu (the API) and
// kadu/runtime both read and write through it, so its signatures are
// shared by both: keep them stable.
//
// The rows and their codecs are in records.go (tasks, executions, steps)
// and files.go; the SQL of each aggregate is in its *_store.go
// (tasks_store.go, executions_store.go, files_store.go,
// schedule_store.go, usage_store.go, delivery_store.go), and every query
// filters on the organization. Machine (machine.go) is the one write path
// of an execution's status — one table of transitions, checked by
// CheckTransition and written with a compare-and-set on the status read
// (ErrStaleExecution when someone moved it first) — and of its steps
// (steps.go: BeginStep, FinishStep) and their cost (usage.go:
// RecordStepCost), delivering each status change through the product's
// Deliverer in the same transaction.
package records
