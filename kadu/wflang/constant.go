package wflang

import (
	"errors"
	"fmt"
)

// CheckConstants evaluates, under the budget, every expression of a
// validated workflow that reads nothing of the run (no input, steps,
// item or index) — its value is the same at every run — and refuses the
// workflow when one goes over the budget, naming the step and the path:
// {{ reduce(1..40, #acc + #acc, "ab") }} is refused when the task is
// saved instead of failing every run. It is called when a task is saved,
// not when it runs (a task saved before would then fail as invalid rather
// than with expression_budget_exceeded).
func CheckConstants(steps []Compiled) error {
	for i, st := range steps {
		fail := func(path string, err error) error {
			return &Error{Step: i, StepID: st.ID, Path: path, Message: err.Error()}
		}
		if st.Each != nil {
			if err := overBudget(st.Each.p); err != nil {
				return fail("for_each", err)
			}
		}
		if st.Cond != nil {
			if err := overBudget(st.Cond.p); err != nil {
				return fail("condition", err)
			}
		}
		if st.Args != nil {
			if path, err := constantArgs(st.Args.root, "arguments"); err != nil {
				return fail(path, err)
			}
		}
	}
	return nil
}

// overBudget runs p when it is constant and reports a budget overrun
// (other errors are left to the run, where they fail the step as before).
func overBudget(p *program) error {
	if !p.constant {
		return nil
	}
	if _, err := p.run(Env{}.values()); errors.Is(err, ErrBudget) {
		return err
	}
	return nil
}

func constantArgs(n node, path string) (string, error) {
	switch x := n.(type) {
	case whole:
		return path, overBudget(x.p)
	case interpolated:
		for _, part := range x.parts {
			if p, ok := part.(*program); ok {
				if err := overBudget(p); err != nil {
					return path, err
				}
			}
		}
		// All the markers are within the budget one by one; rendered
		// together they may still not be (constant or not, the run
		// checks it).
	case object:
		for i, k := range x.keys {
			if p, err := constantArgs(x.vals[i], join(path, k)); err != nil {
				return p, err
			}
		}
	case array:
		for i, v := range x {
			if p, err := constantArgs(v, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return p, err
			}
		}
	}
	return path, nil
}
