package webhooks

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
)

// TestEventSlug is the event Test sends.
const TestEventSlug = "webhook.test"

// envelope is a stored event's payload; the body of each delivery adds
// delivered_at and delivery to it (see deliveryBody).
type envelope struct {
	Event       eventRef        `json:"event"`
	CreatedAt   time.Time       `json:"created_at"`
	WorkspaceID string          `json:"workspace_id"`
	Data        json.RawMessage `json:"data"`
}

type eventRef struct {
	ID   string `json:"id"`
	Slug string `json:"slug"`
}

// Emit stores the event and, in the same transaction, one pending delivery
// per matching webhook with its delivery job. A webhook matches when it is
// live and active, belongs to the event's workspace and the Service's
// product, subscribes to the slug (exactly, "*", or "prefix.*"), and has no
// scope or the event's. tx may be nil: Emit then runs in a transaction of
// its own; given, nothing is stored or enqueued unless it commits.
func (s *Service) Emit(ctx context.Context, tx *store.Tx, ev Event) (SystemEvent, error) {
	return s.emit(ctx, tx, ev, nil)
}

// emit is Emit, or with only set, the delivery of the event to that one
// webhook whatever it subscribes to (Test).
func (s *Service) emit(ctx context.Context, tx *store.Tx, ev Event, only *webhookRow) (SystemEvent, error) {
	if ev.OrganizationID == "" || ev.WorkspaceID == "" {
		return SystemEvent{}, fmt.Errorf("webhooks: emit %q: organization and workspace are required", ev.Slug)
	}
	if !validSlug(ev.Slug) {
		return SystemEvent{}, fmt.Errorf("webhooks: emit: %q is not an event slug", ev.Slug)
	}
	data := json.RawMessage(`{}`)
	if ev.Data != nil {
		b, err := json.Marshal(ev.Data)
		if err != nil {
			return SystemEvent{}, fmt.Errorf("webhooks: emit %s: data: %w", ev.Slug, err)
		}
		data = b
	}
	se := SystemEvent{ID: store.NewID(), WorkspaceID: ev.WorkspaceID, Slug: ev.Slug, CreatedAt: store.Now(),
		ScopeID: optional(ev.ScopeID), SubjectID: optional(ev.SubjectID)}
	payload, err := json.Marshal(envelope{Event: eventRef{ID: se.ID, Slug: se.Slug}, CreatedAt: se.CreatedAt, WorkspaceID: se.WorkspaceID, Data: data})
	if err != nil {
		return SystemEvent{}, err
	}
	se.Payload = payload
	run := func(tx *store.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO system_events (id, organization_id, workspace_id, product, slug, scope_id, subject_id, payload, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			se.ID, ev.OrganizationID, se.WorkspaceID, s.cfg.Product, se.Slug, se.ScopeID, se.SubjectID, string(payload), se.CreatedAt); err != nil {
			return err
		}
		targets := []webhookRow{}
		if only != nil {
			targets = append(targets, *only)
		} else {
			var err error
			if targets, err = s.subscribers(ctx, tx, ev); err != nil {
				return err
			}
		}
		for i := range targets {
			if _, err := s.newDelivery(ctx, tx, &targets[i], se.ID, se.Slug, nil); err != nil {
				return err
			}
		}
		return nil
	}
	if tx != nil {
		err = run(tx)
	} else {
		err = s.db.WithTx(ctx, run)
	}
	if err != nil {
		return SystemEvent{}, fmt.Errorf("webhooks: emit %s: %w", ev.Slug, err)
	}
	return se, nil
}

// subscribers are the webhooks an event fans out to.
func (s *Service) subscribers(ctx context.Context, q store.Querier, ev Event) ([]webhookRow, error) {
	var rows []webhookRow
	err := q.Select(ctx, &rows, `SELECT `+webhookColumns+` FROM webhooks
		WHERE organization_id = ? AND workspace_id = ? AND product = ? AND deleted_at IS NULL
		  AND status = ? AND (scope_id IS NULL OR scope_id = ?)
		ORDER BY id`,
		ev.OrganizationID, ev.WorkspaceID, s.cfg.Product, StatusActive, ev.ScopeID)
	if err != nil {
		return nil, err
	}
	out := rows[:0]
	for _, r := range rows {
		if err := r.decode(); err != nil {
			return nil, err
		}
		if matches(r.SubscribedEvents, ev.Slug) {
			out = append(out, r)
		}
	}
	return out, nil
}

// newDelivery stores a pending delivery of an event to a webhook and
// enqueues its job in the same transaction.
func (s *Service) newDelivery(ctx context.Context, tx *store.Tx, w *webhookRow, eventID, slug string, replayOf *string) (Delivery, error) {
	now := store.Now()
	d := Delivery{ID: store.NewID(), WebhookID: w.ID, SystemEventID: eventID, EventSlug: slug, ReplayOf: replayOf,
		Status: DeliveryPending, RequestHeaders: map[string]string{}, CreatedAt: now, UpdatedAt: now}
	if _, err := tx.Exec(ctx, `INSERT INTO webhook_deliveries (id, organization_id, workspace_id, product, webhook_id,
			system_event_id, event_slug, replay_of, status, attempt, request_headers, request_body, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, '{}', '', ?, ?)`,
		d.ID, w.OrganizationID, w.WorkspaceID, s.cfg.Product, d.WebhookID, eventID, slug, replayOf, d.Status, now, now); err != nil {
		return Delivery{}, err
	}
	if err := s.enqueue(ctx, tx, w.OrganizationID, d.ID); err != nil {
		return Delivery{}, err
	}
	return d, nil
}

// Test emits a webhook.test event delivered to this webhook only, even if
// it does not subscribe to it, and returns the event. data is the event's
// "data" (nil: the webhook's id, external id and label). An inactive
// webhook is a ValidationError on status: nothing would be sent.
func (s *Service) Test(ctx context.Context, orgID, workspaceID, ref string, data any) (SystemEvent, error) {
	var se SystemEvent
	err := s.db.WithTx(ctx, func(tx *store.Tx) error {
		r, err := s.load(ctx, tx, orgID, workspaceID, ref)
		if err != nil {
			return err
		}
		if r.Status != StatusActive {
			return invalid("status", "the webhook is inactive; activate it to send it events")
		}
		if data == nil {
			data = map[string]any{"webhook": map[string]string{"id": r.ID, "external_id": r.ExternalID, "label": r.Label}}
		}
		scope := ""
		if r.ScopeID != nil {
			scope = *r.ScopeID
		}
		se, err = s.emit(ctx, tx, Event{OrganizationID: orgID, WorkspaceID: workspaceID, Slug: TestEventSlug,
			ScopeID: scope, SubjectID: r.ID, Data: data}, &r)
		return err
	})
	return se, err
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
