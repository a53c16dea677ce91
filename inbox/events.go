package inbox

import (
	"context"

	"github.com/kobana/kobana-mcp/platform/accounts"
)

// withTenant adds to an event's data who it belongs to, as the Inbox's
// webhook envelope carries it (docs/decisions.md "The Autonomous Inbox"): the organization
// ({id, name}) and the workspace ({id, external_id, label}), so a receiver
// serving several workspaces routes a delivery without calling back. acc
// reads in the transaction the event is emitted in (accounts.InTx). A
// lookup that fails leaves the snapshot out rather than losing the event.
func withTenant(ctx context.Context, acc *accounts.Store, orgID, workspaceID string, data map[string]any) map[string]any {
	return readTenant(ctx, acc, orgID, workspaceID).add(orgID, workspaceID, data)
}
