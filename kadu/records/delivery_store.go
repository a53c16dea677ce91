package records

import (
	"context"

	"github.com/kobana/kobana-mcp/platform/store"
)

// FirstWorkspace is the organization's oldest live workspace: the one a
// Kadu webhook event names (Kadu's tenant is the organization; webhooks
// are kept per workspace, platform/webhooks).
func FirstWorkspace(ctx context.Context, q store.Querier, orgID string) (string, error) {
	var ws string
	err := q.Get(ctx, &ws, `SELECT id FROM workspaces WHERE organization_id = ? AND deleted_at IS NULL ORDER BY created_at, id LIMIT 1`, orgID)
	return ws, err
}
