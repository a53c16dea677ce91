package wflang

import (
	"errors"
	"fmt"
)

// The budget of one evaluation (docs/decisions.md "Kadu's runtime",
// Workflow language, Bounds). expr's own VM budget (MemoryBudget) counts
// the elements a range, an array or map literal, sort and a few builtins
// make, but not the bytes a string concatenation, a join, a replace or a
// toJSON makes, nor the iterations of a loop over a list that already
// exists: `reduce(1..40, #acc + #acc, "ab")` passed it and built a
// terabyte. So every expression a tenant writes is rewritten when it is
// compiled (budget_patch.go) so that each operation that can allocate in
// proportion to its input — + on anything that is not two numbers,
// repeat, join, replace, split, toJSON, string, flatten, concat, the
// string functions, fromJSON, the collection functions — charges a meter
// BEFORE it allocates, and every loop of a predicate builtin (map,
// filter, reduce, count, all…) and every deep comparison charges steps.
// One meter serves one rendering of a step's arguments (all its
// markers), one condition or one for_each list.
const (
	// MaxEvalBytes is what one evaluation may allocate, in total (what it
	// frees is not given back): 4 MiB, sixteen times the largest
	// arguments object a step may send (MaxArgumentBytes), so no ordinary
	// template comes near it.
	MaxEvalBytes = 4 << 20
	// MaxEvalSteps is the work one evaluation may do: one step per
	// element a loop visits or a comparison or serialization walks, and
	// one per 64 bytes a string function reads. A million steps is a few
	// tens of milliseconds.
	MaxEvalSteps = 1_000_000
)

// ErrBudget is an evaluation stopped because it would have gone over
// MaxEvalBytes, MaxEvalSteps or expr's MemoryBudget. The Kadu runtime
// fails the step with the code expression_budget_exceeded.
var ErrBudget = errors.New("expression budget exceeded")

// meterName is the name under which an evaluation's meter travels in the
// environment; the rewritten expression passes it to the budgeted
// functions. Names starting with reservedPrefix (and $env, which would
// reach it) are refused in what tenants write.
const (
	meterName      = "__wfm"
	reservedPrefix = "__wf"
)

// meter counts what one evaluation allocated and did.
type meter struct {
	bytes, steps int64
	over         string // what went over, once something did
}

// charge adds what an operation is about to allocate and do, and refuses
// (before the allocation) when it would pass the budget. Negative or
// overflowing figures are over the budget.
func (m *meter) charge(what string, bytes, steps int64) error {
	if m.over != "" {
		return m.err()
	}
	if bytes < 0 || steps < 0 || bytes > MaxEvalBytes-m.bytes || steps > MaxEvalSteps-m.steps {
		m.over = what
		return m.err()
	}
	m.bytes += bytes
	m.steps += steps
	return nil
}

// left is the bytes still allowed, the bound a size walk stops at.
func (m *meter) left() int64 { return MaxEvalBytes - m.bytes }

// stepsLeft is the steps still allowed.
func (m *meter) stepsLeft() int64 { return MaxEvalSteps - m.steps }

func (m *meter) err() error {
	return fmt.Errorf("%w: %s would pass the limit of an evaluation (%d bytes allocated, %d steps)", ErrBudget, m.over, MaxEvalBytes, MaxEvalSteps)
}

// mulOver reports whether a*b passes limit (a, b ≥ 0), without
// overflowing.
func mulOver(a, b, limit int64) bool {
	return a > 0 && b > limit/a
}
