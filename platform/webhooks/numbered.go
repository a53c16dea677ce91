package webhooks

import "context"

// Numbered pages: the same listings as List and ListDeliveries, in the
// same order, for products whose API pages by number (page and per_page,
// with a total) rather than by keyset. Each returns at most limit rows
// after skipping offset (limit as List's: 50 when unset, at most 500), and
// how many rows the whole listing has.

// ListNumbered returns a numbered page of live webhooks (oldest first),
// optionally only those of a status or scope; f.After is ignored.
func (s *Service) ListNumbered(ctx context.Context, orgID, workspaceID string, f ListFilter, offset int) ([]Webhook, int, error) {
	if f.Status != "" {
		if err := checkStatus(f.Status); err != nil {
			return nil, 0, err
		}
	}
	where := ` FROM webhooks WHERE organization_id = ? AND workspace_id = ? AND product = ? AND deleted_at IS NULL`
	args := []any{orgID, workspaceID, s.cfg.Product}
	if f.Status != "" {
		where += ` AND status = ?`
		args = append(args, f.Status)
	}
	if f.ScopeID != "" {
		where += ` AND scope_id = ?`
		args = append(args, f.ScopeID)
	}
	var total int
	if err := s.db.Get(ctx, &total, `SELECT COUNT(*)`+where, args...); err != nil {
		return nil, 0, err
	}
	var rows []webhookRow
	if err := s.db.Select(ctx, &rows, `SELECT `+webhookColumns+where+` ORDER BY id LIMIT ? OFFSET ?`,
		append(args, pageSize(f.Limit), max(offset, 0))...); err != nil {
		return nil, 0, err
	}
	out := make([]Webhook, 0, len(rows))
	for i := range rows {
		if err := rows[i].decode(); err != nil {
			return nil, 0, err
		}
		out = append(out, rows[i].Webhook)
	}
	return out, total, nil
}

// ListDeliveriesNumbered returns a numbered page of a webhook's deliveries
// (newest first), only those of status when it is set. A deleted webhook
// is store.ErrNotFound.
func (s *Service) ListDeliveriesNumbered(ctx context.Context, orgID, workspaceID, webhookRef, status string, offset, limit int) ([]Delivery, int, error) {
	w, err := s.load(ctx, s.db, orgID, workspaceID, webhookRef)
	if err != nil {
		return nil, 0, err
	}
	where := ` FROM webhook_deliveries WHERE organization_id = ? AND workspace_id = ? AND product = ? AND webhook_id = ?`
	args := []any{orgID, workspaceID, s.cfg.Product, w.ID}
	if status != "" {
		where += ` AND status = ?`
		args = append(args, status)
	}
	var total int
	if err := s.db.Get(ctx, &total, `SELECT COUNT(*)`+where, args...); err != nil {
		return nil, 0, err
	}
	var rows []deliveryRow
	if err := s.db.Select(ctx, &rows, `SELECT `+deliveryColumns+where+` ORDER BY id DESC LIMIT ? OFFSET ?`,
		append(args, pageSize(limit), max(offset, 0))...); err != nil {
		return nil, 0, err
	}
	out := make([]Delivery, 0, len(rows))
	for i := range rows {
		d, err := rows[i].decode()
		if err != nil {
			return nil, 0, err
		}
		out = append(out, d)
	}
	return out, total, nil
}
