package kadu

import (
	"errors"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/rest"
)

// The API's errors that more than one aggregate answers: a refusal with
// its own code, and the store's not-found as each aggregate names it.

// refusal is a refusal the API answers as it is: its status, its code,
// a message for people (docs/decisions.md "Kadu: tasks, executions, costs
// and schedules", Refusals of a run).
func refusal(status int, code, msg string) *rest.Error {
	return &rest.Error{Status: status, Code: code, Message: msg}
}

// executionErr maps the store's errors to the API's.
func executionErr(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return rest.NotFound("execution")
	}
	return err
}

// taskErr maps the store's errors to the API's.
func taskErr(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return rest.NotFound("task")
	}
	return err
}

// fileErr maps the store's errors to the API's.
func fileErr(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return rest.NotFound("file")
	}
	return err
}
