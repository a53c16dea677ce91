package webhooks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
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

// EmitAll is Emit for several events in one transaction (tx as for
// Emit), stored with one insert and fanned out with one look-up of the
// webhooks for each workspace and scope among them instead of one per
// event: what an e-mail's intake and processing outcome emit (two events
// each, on PostgreSQL a round trip per statement; docs/decisions.md,
// "Inbox intake on PostgreSQL"). The events, and each one's deliveries,
// are stored in the order given, exactly as that many Emit calls would
// store them; an invalid event stores none of them.
func (s *Service) EmitAll(ctx context.Context, tx *store.Tx, evs ...Event) ([]SystemEvent, error) {
	if len(evs) == 0 {
		return nil, nil
	}
	ses := make([]SystemEvent, len(evs))
	for i, ev := range evs {
		se, err := prepare(ev)
		if err != nil {
			return nil, err
		}
		ses[i] = se
	}
	run := func(tx *store.Tx) error {
		maybe, err := s.insertEvents(ctx, tx, evs, ses)
		if err != nil {
			return err
		}
		if !maybe {
			return nil // no webhook of the workspace could receive them
		}
		type key struct{ org, ws, scope string }
		found := map[key][]webhookRow{}
		for i, ev := range evs {
			k := key{ev.OrganizationID, ev.WorkspaceID, ev.ScopeID}
			all, ok := found[k]
			if !ok {
				var err error
				if all, err = s.candidates(ctx, tx, ev); err != nil {
					return err
				}
				found[k] = all
			}
			for j := range all {
				if !matches(all[j].SubscribedEvents, ev.Slug) {
					continue
				}
				w := all[j]
				if _, err := s.newDelivery(ctx, tx, &w, ses[i].ID, ses[i].Slug, nil); err != nil {
					return err
				}
			}
		}
		return nil
	}
	var err error
	if tx != nil {
		err = run(tx)
	} else {
		err = s.db.WithTx(ctx, run)
	}
	if err != nil {
		return nil, fmt.Errorf("webhooks: emit %s: %w", evs[0].Slug, err)
	}
	return ses, nil
}

// prepare checks an event and builds what is stored of it: its id, time
// and payload (the envelope).
func prepare(ev Event) (SystemEvent, error) {
	if ev.OrganizationID == "" || ev.WorkspaceID == "" {
		return SystemEvent{}, fmt.Errorf("webhooks: emit %q: organization and workspace are required", ev.Slug)
	}
	if !validSlug(ev.Slug) {
		return SystemEvent{}, fmt.Errorf("webhooks: emit: %q is not an event slug", ev.Slug)
	}
	data, err := eventData(ev.Data)
	if err != nil {
		return SystemEvent{}, fmt.Errorf("webhooks: emit %s: data: %w", ev.Slug, err)
	}
	se := SystemEvent{ID: store.NewID(), WorkspaceID: ev.WorkspaceID, Slug: ev.Slug, CreatedAt: store.Now(),
		ScopeID: optional(ev.ScopeID), SubjectID: optional(ev.SubjectID)}
	se.Payload, err = encodeEnvelope(se, data)
	return se, err
}

// eventData is an event's data as JSON, compact: json.Marshal's bytes.
// Marshaled data is those bytes already; a json.RawMessage (data encoded once for several events) is compacted
// and checked in one pass (and escaped for HTML as json.Marshal does),
// instead of json.Marshal's two passes.
func eventData(v any) ([]byte, error) {
	switch d := v.(type) {
	case nil:
		return []byte(`{}`), nil
	case Marshaled:
		if d == nil {
			return []byte(`{}`), nil
		}
		return d, nil
	case json.RawMessage:
		var b bytes.Buffer
		b.Grow(len(d))
		if err := json.Compact(&b, d); err != nil {
			return nil, err
		}
		if !bytes.ContainsAny(b.Bytes(), "<>&\u2028\u2029") {
			return b.Bytes(), nil
		}
		// json.Marshal escapes these for HTML (data encoded by
		// json.Marshal has them escaped already).
		var e bytes.Buffer
		json.HTMLEscape(&e, b.Bytes())
		return e.Bytes(), nil
	}
	return json.Marshal(v)
}

// encodeEnvelope is json.Marshal of the event's envelope with data, whose
// compact bytes are copied as they are (json.Marshal would scan them
// again: with an e-mail's body, the largest part of an Inbox event's CPU).
func encodeEnvelope(se SystemEvent, data []byte) ([]byte, error) {
	id, err := json.Marshal(se.ID)
	if err != nil {
		return nil, err
	}
	slug, err := json.Marshal(se.Slug)
	if err != nil {
		return nil, err
	}
	at, err := se.CreatedAt.MarshalJSON()
	if err != nil {
		return nil, err
	}
	ws, err := json.Marshal(se.WorkspaceID)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(data)+len(id)+len(slug)+len(at)+len(ws)+64)
	b = append(append(append(b, `{"event":{"id":`...), id...), `,"slug":`...)
	b = append(append(append(b, slug...), `},"created_at":`...), at...)
	b = append(append(append(b, `,"workspace_id":`...), ws...), `,"data":`...)
	b = append(append(b, data...), '}')
	return b, nil
}

// insertEvents stores prepared events with one statement. maybe is false
// when it is known that no webhook can receive any of them: on
// PostgreSQL the insert answers whether the events' workspace has a live,
// active webhook of the product at all (one workspace for all the events;
// a statement less per emit when it has none, the usual case, and one
// round trip less); on SQLite, which has no round trips to save, and for
// events of several workspaces, maybe is true and the look-up decides.
func (s *Service) insertEvents(ctx context.Context, tx *store.Tx, evs []Event, ses []SystemEvent) (maybe bool, err error) {
	var q strings.Builder
	q.WriteString(`INSERT INTO system_events (id, organization_id, workspace_id, product, slug, scope_id, subject_id, payload, created_at) VALUES `)
	args := make([]any, 0, 9*len(ses)+4)
	oneWorkspace := true
	for i, se := range ses {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?)")
		args = append(args, se.ID, evs[i].OrganizationID, se.WorkspaceID, s.cfg.Product, se.Slug, se.ScopeID, se.SubjectID, string(se.Payload), se.CreatedAt)
		oneWorkspace = oneWorkspace && evs[i].OrganizationID == evs[0].OrganizationID && evs[i].WorkspaceID == evs[0].WorkspaceID
	}
	if tx.Dialect() != store.Postgres || !oneWorkspace {
		_, err := tx.Exec(ctx, q.String(), args...)
		return true, err
	}
	q.WriteString(` RETURNING EXISTS (SELECT 1 FROM webhooks
		WHERE organization_id = ? AND workspace_id = ? AND product = ? AND deleted_at IS NULL AND status = ?)`)
	args = append(args, evs[0].OrganizationID, evs[0].WorkspaceID, s.cfg.Product, StatusActive)
	var found []bool
	if err := tx.Select(ctx, &found, q.String(), args...); err != nil {
		return false, err
	}
	return len(found) == 0 || found[0], nil
}

// emit is Emit, or with only set, the delivery of the event to that one
// webhook whatever it subscribes to (Test).
func (s *Service) emit(ctx context.Context, tx *store.Tx, ev Event, only *webhookRow) (SystemEvent, error) {
	if only == nil {
		ses, err := s.EmitAll(ctx, tx, ev)
		if err != nil {
			return SystemEvent{}, err
		}
		return ses[0], nil
	}
	se, err := prepare(ev)
	if err != nil {
		return SystemEvent{}, err
	}
	run := func(tx *store.Tx) error {
		if _, err := s.insertEvents(ctx, tx, []Event{ev}, []SystemEvent{se}); err != nil {
			return err
		}
		_, err := s.newDelivery(ctx, tx, only, se.ID, se.Slug, nil)
		return err
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

// candidates are the live, active webhooks of the event's workspace and
// product whose scope admits the event's, decoded; which of them
// subscribe to a slug is matches'.
func (s *Service) candidates(ctx context.Context, q store.Querier, ev Event) ([]webhookRow, error) {
	var rows []webhookRow
	err := q.Select(ctx, &rows, `SELECT `+webhookColumns+` FROM webhooks
		WHERE organization_id = ? AND workspace_id = ? AND product = ? AND deleted_at IS NULL
		  AND status = ? AND (scope_id IS NULL OR scope_id = ?)
		ORDER BY id`,
		ev.OrganizationID, ev.WorkspaceID, s.cfg.Product, StatusActive, ev.ScopeID)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		if err := rows[i].decode(); err != nil {
			return nil, err
		}
	}
	return rows, nil
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
