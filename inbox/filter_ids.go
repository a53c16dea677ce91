package inbox

import (
	"context"
	"errors"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/rest"
)

// The references the Inbox's listings filter on (inbox_id on emails_list,
// agent_runs_list and the webhook API; email_id on agent_runs_list and the
// system events) and a webhook's inbox scope, resolved in the caller's
// workspace before they reach a query: anything the caller cannot see
// answers 404, as its own route does.

// filterInboxID resolves an inbox reference (id or external_id) of the
// caller's workspace to its id: a webhook's scope, or what a listing
// filters on. An inbox the caller cannot see is 404, as its own routes
// answer.
func (s *service) filterInboxID(ctx context.Context, sc scope, ref string) (string, error) {
	ib, err := getInbox(ctx, s.db, sc.OrgID, sc.WorkspaceID, ref)
	if errors.Is(err, store.ErrNotFound) {
		return "", rest.NotFound("inbox")
	}
	if err != nil {
		return "", err
	}
	return ib.ID, nil
}

// filterEmailID checks that an e-mail a listing filters on is a live one
// of the caller's workspace: anything else is 404, as its own route
// answers.
func (s *service) filterEmailID(ctx context.Context, sc scope, id string) (string, error) {
	found, err := liveEmailID(ctx, s.db, sc.OrgID, sc.WorkspaceID, id)
	if errors.Is(err, store.ErrNotFound) {
		return "", rest.NotFound("email")
	}
	return found, err
}
