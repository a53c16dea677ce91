package inbox

import (
	"context"

	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/store"
)

// updateWorkspaceRow writes the fields workspaces_update changes on the
// accounts' workspace row (external id, label, e-mail prefix) of a live
// workspace; store.ErrNotFound when it is gone. The transaction is the
// one that noted the change (accounts.NoteChange), so the caches of the
// workspace pick drop what they read.
func updateWorkspaceRow(ctx context.Context, q store.Querier, w accounts.Workspace) error {
	return store.ExpectOne(q.Exec(ctx, `UPDATE workspaces SET external_id = ?, label = ?, email_prefix = ?
		WHERE organization_id = ? AND id = ? AND deleted_at IS NULL`, w.ExternalID, w.Label, w.EmailPrefix, w.OrganizationID, w.ID))
}
