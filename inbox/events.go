package inbox

import (
	"context"

	"github.com/kobana/kobana-mcp/platform/store"
)

// withTenant adds to an event's data who it belongs to, as the Inbox's
// webhook envelope carries it (domain.md §A1, §D5): the organization
// ({id, name}) and the workspace ({id, external_id, label}), so a receiver
// serving several workspaces routes a delivery without calling back. q is
// the transaction the event is emitted in. A lookup that fails leaves the
// snapshot out rather than losing the event.
func (s *service) withTenant(ctx context.Context, q store.Querier, orgID, workspaceID string, data map[string]any) map[string]any {
	var org struct {
		ID   string `db:"id"`
		Name string `db:"name"`
	}
	if err := q.Get(ctx, &org, `SELECT id, name FROM organizations WHERE id = ?`, orgID); err == nil {
		data["organization"] = map[string]any{"id": org.ID, "name": org.Name}
	}
	var ws struct {
		ID         string `db:"id"`
		ExternalID string `db:"external_id"`
		Label      string `db:"label"`
	}
	if err := q.Get(ctx, &ws, `SELECT id, external_id, label FROM workspaces WHERE organization_id = ? AND id = ?`, orgID, workspaceID); err == nil {
		data["workspace"] = map[string]any{"id": ws.ID, "external_id": ws.ExternalID, "label": ws.Label}
	}
	return data
}
