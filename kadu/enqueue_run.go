package kadu

import (
	"context"
	"errors"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/kadu/runtime"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
)

// enqueueRun queues the job that carries e on (the runtime's worker), in
// the transaction that queued or resumed e.
func (s *service) enqueueRun(ctx context.Context, tx *store.Tx, e *records.Execution) error {
	if s.jobs == nil {
		return errors.New("kadu: no job queue to run executions on")
	}
	_, err := s.jobs.EnqueueTx(ctx, tx, runtime.RunExecutionArgs{ExecutionID: e.ID}, nil)
	return err
}

// who names the caller in an execution's record.
func who(id *identity.Identity) string {
	switch {
	case id == nil:
		return "someone"
	case id.Email != "":
		return id.Email
	case id.UserID != "":
		return id.UserID
	}
	return id.ClientID
}
