package webhooks

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/kobana/kobana-mcp/platform/store"
)

// Delivery statuses: pending until an attempt succeeds (success) or the
// last one fails (failed).
const (
	DeliveryPending = "pending"
	DeliverySuccess = "success"
	DeliveryFailed  = "failed"
)

// deliveryRow is a webhook_deliveries row with the header maps as stored.
type deliveryRow struct {
	Delivery
	OrganizationID  string  `db:"organization_id"`
	WorkspaceID     string  `db:"workspace_id"`
	RequestHeaders  string  `db:"request_headers"`
	ResponseHeaders *string `db:"response_headers"`
}

const deliveryColumns = `id, organization_id, workspace_id, webhook_id, system_event_id, event_slug, replay_of, status, attempt,
	request_headers, request_body, response_status, response_headers, response_body, error, duration_ms,
	delivered_at, next_retry_at, created_at, updated_at`

// decode fills the header maps from their JSON text.
func (r *deliveryRow) decode() (Delivery, error) {
	d := r.Delivery
	if err := json.Unmarshal([]byte(r.RequestHeaders), &d.RequestHeaders); err != nil {
		return d, fmt.Errorf("webhooks: delivery %s: request_headers: %w", r.ID, err)
	}
	if r.ResponseHeaders != nil {
		if err := json.Unmarshal([]byte(*r.ResponseHeaders), &d.ResponseHeaders); err != nil {
			return d, fmt.Errorf("webhooks: delivery %s: response_headers: %w", r.ID, err)
		}
	}
	return d, nil
}

// ListDeliveries lists a webhook's deliveries (newest first; see the
// listing convention). A deleted webhook is store.ErrNotFound.
func (s *Service) ListDeliveries(ctx context.Context, orgID, workspaceID, webhookRef, after string, limit int) ([]Delivery, error) {
	w, err := s.load(ctx, s.db, orgID, workspaceID, webhookRef)
	if err != nil {
		return nil, err
	}
	q := `SELECT ` + deliveryColumns + ` FROM webhook_deliveries
		WHERE organization_id = ? AND workspace_id = ? AND product = ? AND webhook_id = ?`
	args := []any{orgID, workspaceID, s.cfg.Product, w.ID}
	if after != "" {
		q += ` AND id < ?`
		args = append(args, after)
	}
	q += ` ORDER BY id DESC LIMIT ?`
	args = append(args, pageSize(limit)+1)
	var rows []deliveryRow
	if err := s.db.Select(ctx, &rows, q, args...); err != nil {
		return nil, err
	}
	out := make([]Delivery, 0, len(rows))
	for i := range rows {
		d, err := rows[i].decode()
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// GetDelivery returns one delivery of a webhook.
func (s *Service) GetDelivery(ctx context.Context, orgID, workspaceID, webhookRef, deliveryID string) (Delivery, error) {
	w, err := s.load(ctx, s.db, orgID, workspaceID, webhookRef)
	if err != nil {
		return Delivery{}, err
	}
	r, err := s.loadDelivery(ctx, s.db, orgID, deliveryID)
	if err != nil {
		return Delivery{}, err
	}
	if r.WebhookID != w.ID || r.WorkspaceID != workspaceID {
		return Delivery{}, store.ErrNotFound
	}
	return r.decode()
}

// loadDelivery reads a delivery of the organization and product by id.
func (s *Service) loadDelivery(ctx context.Context, q store.Querier, orgID, id string) (deliveryRow, error) {
	var r deliveryRow
	err := q.Get(ctx, &r, `SELECT `+deliveryColumns+` FROM webhook_deliveries
		WHERE id = ? AND organization_id = ? AND product = ?`, id, orgID, s.cfg.Product)
	return r, err
}

// Replay sends a delivery's event again to the webhook as it is configured
// now: a new pending delivery (ReplayOf the original, the same system
// event) and its job. An inactive webhook is a ValidationError on status.
func (s *Service) Replay(ctx context.Context, orgID, workspaceID, webhookRef, deliveryID string) (Delivery, error) {
	var out Delivery
	err := s.db.WithTx(ctx, func(tx *store.Tx) error {
		w, err := s.load(ctx, tx, orgID, workspaceID, webhookRef)
		if err != nil {
			return err
		}
		orig, err := s.loadDelivery(ctx, tx, orgID, deliveryID)
		if err != nil {
			return err
		}
		if orig.WebhookID != w.ID || orig.WorkspaceID != workspaceID {
			return store.ErrNotFound
		}
		if w.Status != StatusActive {
			return invalid("status", "the webhook is inactive; activate it to send it events")
		}
		id := orig.ID
		out, err = s.newDelivery(ctx, tx, &w, orig.SystemEventID, orig.EventSlug, &id)
		return err
	})
	return out, err
}
