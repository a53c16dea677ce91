package webhooks

import (
	"context"

	"github.com/kobana/kobana-mcp/platform/store"
)

// eventRow is a system_events row as read.
type eventRow struct {
	SystemEvent
	Payload string `db:"payload"`
}

const eventColumns = `id, workspace_id, scope_id, subject_id, slug, payload, created_at`

func (r eventRow) event() SystemEvent {
	e := r.SystemEvent
	e.Payload = []byte(r.Payload)
	return e
}

// ListEvents lists system events (newest first; see the listing
// convention), optionally only those of a slug, scope or subject.
func (s *Service) ListEvents(ctx context.Context, orgID, workspaceID string, f EventFilter) ([]SystemEvent, error) {
	q := `SELECT ` + eventColumns + ` FROM system_events WHERE organization_id = ? AND workspace_id = ? AND product = ?`
	args := []any{orgID, workspaceID, s.cfg.Product}
	for _, c := range []struct{ col, v string }{{"slug", f.Slug}, {"scope_id", f.ScopeID}, {"subject_id", f.SubjectID}} {
		if c.v != "" {
			q += ` AND ` + c.col + ` = ?`
			args = append(args, c.v)
		}
	}
	if f.After != "" {
		q += ` AND id < ?`
		args = append(args, f.After)
	}
	q += ` ORDER BY id DESC LIMIT ?`
	args = append(args, pageSize(f.Limit)+1)
	var rows []eventRow
	if err := s.db.Select(ctx, &rows, q, args...); err != nil {
		return nil, err
	}
	out := make([]SystemEvent, 0, len(rows))
	for _, r := range rows {
		out = append(out, r.event())
	}
	return out, nil
}

// GetEvent returns one system event.
func (s *Service) GetEvent(ctx context.Context, orgID, workspaceID, id string) (SystemEvent, error) {
	return s.getEvent(ctx, s.db, orgID, workspaceID, id)
}

func (s *Service) getEvent(ctx context.Context, q store.Querier, orgID, workspaceID, id string) (SystemEvent, error) {
	var r eventRow
	err := q.Get(ctx, &r, `SELECT `+eventColumns+` FROM system_events
		WHERE id = ? AND organization_id = ? AND workspace_id = ? AND product = ?`,
		id, orgID, workspaceID, s.cfg.Product)
	return r.event(), err
}
