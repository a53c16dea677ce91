package collection

import (
	"errors"

	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/platform/confirm"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/rest"
)

// The API's answers to the plans' storage errors and refused changes of
// state, shared by the plans', steps', enrollments' and preview's
// handlers.

// errPlanNotFound is the answer for a plan the caller cannot see:
// missing, deleted or another organization's.
func errPlanNotFound() *rest.Error { return rest.NotFound("collection plan") }

// planErr maps storage errors of plan operations to the API's answers.
func planErr(err error) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return errPlanNotFound()
	case errors.Is(err, store.ErrConflict):
		return rest.Conflict("another collection plan of the organization already has this external_id")
	case errors.Is(err, confirm.ErrReplayed):
		// Only an MCP retry can get here, and the endpoint answers it
		// -32602 whatever this says.
		return rest.Conflict("this confirmation was already used")
	}
	return err
}

// planTransitionErr is an illegal change of state as the API answers it:
// UNPROCESSABLE, the message naming both states ("an archived collection
// plan cannot become active").
func planTransitionErr(err error) error {
	var te *lifecycle.TransitionError
	if errors.As(err, &te) || errors.Is(err, lifecycle.ErrIllegalTransition) {
		return rest.Unprocessable(err.Error())
	}
	return err
}
