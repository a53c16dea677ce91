package kadu

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/kadu/runtime"
	"github.com/kobana/kobana-mcp/kadu/wflang"
	"github.com/kobana/kobana-mcp/rest"
)

// Saving a workflow task checks that it would run (docs/decisions.md
// "Kadu's runtime", Workflow language): its structure here, its
// expressions through the runtime's compiler. newService sets
// validateWorkflowSteps as service.validateWorkflow (a test's
// Config.validateWorkflow stands in for it).

// maxWorkflowSteps is the most steps a workflow holds.
const maxWorkflowSteps = 100

// toolNameRe and stepIDRe are the shapes of a tool's name and of a
// step's id.
var (
	toolNameRe = regexp.MustCompile(`^[a-z][a-z0-9_]{0,99}$`)
	stepIDRe   = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)
)

// validateWorkflowSteps is the check saving a workflow runs
// (service.validateWorkflow): the structure, then every expression
// compiled (kadu/wflang), so a task that cannot run is refused when it is
// saved, naming the step and the field.
func validateWorkflowSteps(steps []records.WorkflowStep) error {
	if err := checkWorkflowStructure(steps); err != nil {
		return err
	}
	compiled, err := runtime.CompileWorkflow(steps)
	if err == nil {
		// What reads nothing of the run is evaluated now, under the
		// budget (wflang.CheckConstants).
		err = wflang.CheckConstants(compiled)
	}
	if err != nil {
		var we *wflang.Error
		if errors.As(err, &we) {
			field := "steps." + strconv.Itoa(we.Step)
			if we.Path != "" {
				field += "." + we.Path
			}
			return rest.Validation("the workflow is invalid", rest.FieldError{Field: field, Message: we.Message})
		}
		return rest.Validation("the workflow is invalid", rest.FieldError{Field: "steps", Message: err.Error()})
	}
	return nil
}

// checkWorkflowStructure is the structural part of the check saving a
// workflow runs (validateWorkflowSteps): each step
// names a tool, on_error is stop or continue, step ids are unique. It
// returns a *rest.Error (422, one detail per field) or nil.
func checkWorkflowStructure(steps []records.WorkflowStep) error {
	var details []rest.FieldError
	if len(steps) == 0 {
		details = append(details, rest.FieldError{Field: "steps", Message: "a workflow needs at least one step"})
	}
	if len(steps) > maxWorkflowSteps {
		details = append(details, rest.FieldError{Field: "steps", Message: fmt.Sprintf("at most %d steps", maxWorkflowSteps)})
	}
	seen := map[string]bool{}
	for i, st := range steps {
		at := fmt.Sprintf("steps.%d", i)
		if !toolNameRe.MatchString(st.Tool) {
			details = append(details, rest.FieldError{Field: at + ".tool", Message: "must name a tool (lower-case letters, digits and _)"})
		}
		switch st.OnError {
		case "", "stop", "continue":
		default:
			details = append(details, rest.FieldError{Field: at + ".on_error", Message: "must be stop or continue"})
		}
		if st.Tool == runtime.AskTool {
			if msg := runtime.CheckAskArguments(st.Arguments); msg != "" {
				details = append(details, rest.FieldError{Field: at + ".arguments.question", Message: msg})
			}
		}
		if st.ID != "" {
			if !stepIDRe.MatchString(st.ID) {
				details = append(details, rest.FieldError{Field: at + ".id", Message: "must be lower-case letters, digits and _, starting with a letter"})
			} else if seen[st.ID] {
				details = append(details, rest.FieldError{Field: at + ".id", Message: "is the id of an earlier step"})
			}
			seen[st.ID] = true
		}
	}
	if len(details) > 0 {
		return rest.Validation("the workflow is invalid", details...)
	}
	return nil
}
