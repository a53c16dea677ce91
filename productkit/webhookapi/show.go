package webhookapi

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/kobana/kobana-mcp/platform/webhooks"
)

// The answers' objects have members that depend on the product (its
// scope field, workspace_id), in a fixed order, so they are written as
// ordered lists of members rather than structs.

// member is one name and value of an object.
type member struct {
	name  string
	value any
}

// object is a JSON object whose members keep their order.
type object []member

// MarshalJSON writes the members in order, without HTML escaping, as the
// API's encoder writes everything else.
func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := enc.Encode(m.name); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1) // Encode's newline
		b.WriteByte(':')
		if err := enc.Encode(m.value); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// show is a webhook as the API shows it: never its credentials nor its
// signing secret.
func (x *api) show(w webhooks.Webhook) object {
	events := w.SubscribedEvents
	if events == nil {
		events = []string{}
	}
	o := object{{"id", w.ID}, {"external_id", w.ExternalID}}
	if x.o.ShowWorkspace {
		o = append(o, member{"workspace_id", w.WorkspaceID})
	}
	if f := x.o.ScopeField; f != nil {
		var scope *string
		if w.ScopeID != nil && *w.ScopeID != "" {
			scope = w.ScopeID
		}
		o = append(o, member{f.Name, scope})
	}
	return append(o, member{"label", w.Label}, member{"url", w.URL}, member{"auth", w.Auth},
		member{"subscribed_events", events}, member{"status", w.Status}, member{"consecutive_failures", w.ConsecutiveFailures},
		member{"created_at", w.CreatedAt.UTC()}, member{"updated_at", w.UpdatedAt.UTC()})
}

// showEvent is a stored event as the API shows it. Its scope and subject
// are the product's (the Inbox's inbox and e-mail); a webhook.* event's
// subject is the webhook (webhooks.Service.Test), which is not shown as
// the product's subject.
func (x *api) showEvent(ev webhooks.SystemEvent) object {
	o := object{{"id", ev.ID}}
	if x.o.ShowWorkspace {
		o = append(o, member{"workspace_id", ev.WorkspaceID})
	}
	if f := x.o.ScopeField; f != nil {
		o = append(o, member{f.Name, ev.ScopeID})
	}
	if e := x.o.SystemEvents; e != nil && e.Subject != nil {
		var subject *string
		if !strings.HasPrefix(ev.Slug, "webhook.") {
			subject = ev.SubjectID
		}
		o = append(o, member{e.Subject.Name, subject})
	}
	payload := ev.Payload
	if len(payload) == 0 {
		payload = json.RawMessage(`{}`)
	}
	return append(o, member{"slug", ev.Slug}, member{"payload", payload}, member{"created_at", ev.CreatedAt.UTC()})
}
