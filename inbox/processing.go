package inbox

import (
	"context"

	"github.com/kobana/kobana-mcp/platform/store"
)

// processArgs is the job that runs the processing agent on one approved
// e-mail (after intake, or on reprocess).
type processArgs struct {
	OrganizationID string `json:"organization_id"`
	EmailID        string `json:"email_id"`
	Reprocess      bool   `json:"reprocess"`
}

// Kind names the job in the queue.
func (processArgs) Kind() string { return "inbox.process_email" }

// registerProcessing registers the processing worker. (Being written.)
func registerProcessing(s *service) {}

// enqueueProcessing schedules the agent for an e-mail, in tx: the job
// exists exactly when the e-mail's new status is committed.
func (s *service) enqueueProcessing(ctx context.Context, tx *store.Tx, orgID, emailID string, reprocess bool) error {
	if s.jobs == nil {
		return nil
	}
	_, err := s.jobs.EnqueueTx(ctx, tx, processArgs{OrganizationID: orgID, EmailID: emailID, Reprocess: reprocess}, nil)
	return err
}
