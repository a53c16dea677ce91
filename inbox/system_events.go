package inbox

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/webhooks"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

var systemEventsRead = mcp.Requirement{Scopes: []string{"inbox.system_events"}, Permission: identity.PermRead}

// systemEventJSON is a stored event as the API shows it. The Inbox emits
// events with the inbox as scope and the e-mail as subject; a webhook.*
// event's subject is the webhook, so it has no email_id.
type systemEventJSON struct {
	ID          string          `json:"id"`
	WorkspaceID string          `json:"workspace_id"`
	InboxID     *string         `json:"inbox_id"`
	EmailID     *string         `json:"email_id"`
	Slug        string          `json:"slug"`
	Payload     json.RawMessage `json:"payload"`
	CreatedAt   time.Time       `json:"created_at"`
}

func toSystemEventJSON(ev webhooks.SystemEvent) systemEventJSON {
	out := systemEventJSON{ID: ev.ID, WorkspaceID: ev.WorkspaceID, InboxID: ev.ScopeID, Slug: ev.Slug, Payload: ev.Payload, CreatedAt: ev.CreatedAt.UTC()}
	if !strings.HasPrefix(ev.Slug, "webhook.") {
		out.EmailID = ev.SubjectID
	}
	if len(out.Payload) == 0 {
		out.Payload = json.RawMessage(`{}`)
	}
	return out
}

type listSystemEventsIn struct {
	Slug    string `json:"slug,omitempty" in:"query" jsonschema:"Only events of this slug (email.received, email.processed, email.failed, email.rejected, agent_run.failed, agent_run.succeeded, webhook.test)."`
	EmailID string `json:"email_id,omitempty" in:"query" jsonschema:"Only events about this e-mail."`
	InboxID string `json:"inbox_id,omitempty" in:"query" jsonschema:"Only events of this inbox (its id or external_id)."`
	Limit   int    `json:"limit,omitempty" in:"query" minimum:"1" maximum:"200" jsonschema:"How many events per page (1-200, default 50)."`
	Cursor  string `json:"cursor,omitempty" in:"query" jsonschema:"The meta.next_cursor of the previous page."`
}

type systemEventIDIn struct {
	ID string `json:"id" in:"path" jsonschema:"The event's id."`
}

// registerSystemEvents declares the read-only operations on the events the
// Inbox emitted (what webhooks were sent, or would have been).
func registerSystemEvents(api *rest.API, s *service) {
	rest.Handle(api, rest.Operation{
		ID: "system_events_list", Method: "GET", Path: "/system-events", Tags: []string{"system events"},
		Title: "List system events", Summary: "Lists the workspace's system events (what happened, as sent to webhooks), newest first, with cursor pagination; filters slug, email_id and inbox_id.",
		Requires: systemEventsRead, Annotations: restkit.ReadOnly(),
	}, func(ctx context.Context, in *listSystemEventsIn) (*rest.Response, error) {
		if in.Slug != "" && !slices.Contains(webhookEventSlugs, in.Slug) {
			return nil, rest.Validation("the request is invalid", rest.FieldError{Field: "slug", Message: "must be one of " + strings.Join(webhookEventSlugs, ", ")})
		}
		sc, after, err := restkit.PageScope(ctx, s.workspaceScope, in.Cursor)
		if err != nil {
			return nil, err
		}
		f := webhooks.EventFilter{Slug: in.Slug, After: after, Limit: restkit.PageLimit(in.Limit)}
		if in.InboxID != "" {
			if f.ScopeID, err = s.filterInboxID(ctx, sc, in.InboxID); err != nil {
				return nil, err
			}
		}
		if in.EmailID != "" {
			if f.SubjectID, err = s.filterEmailID(ctx, sc, in.EmailID); err != nil {
				return nil, err
			}
		}
		rows, err := s.hooks.ListEvents(ctx, sc.OrgID, sc.WorkspaceID, f)
		if err != nil {
			return nil, webhookError(err)
		}
		return restkit.CursorPage(rows, f.Limit, func(e webhooks.SystemEvent) string { return e.ID }, toSystemEventJSON), nil
	})
	rest.Handle(api, rest.Operation{
		ID: "system_events_get", Method: "GET", Path: "/system-events/{id}", Tags: []string{"system events"},
		Title: "Get a system event", Summary: "Gets one system event with its payload (the envelope webhooks receive, without the delivery fields).",
		Requires: systemEventsRead, Annotations: restkit.ReadOnly(),
	}, func(ctx context.Context, in *systemEventIDIn) (*rest.Response, error) {
		return restkit.ReadItem(ctx, s.workspaceScope, "system event", func(sc scope) (webhooks.SystemEvent, error) {
			return s.hooks.GetEvent(ctx, sc.OrgID, sc.WorkspaceID, in.ID)
		}, toSystemEventJSON)
	})
}

// filterEmailID checks that an e-mail a listing filters on is a live one
// of the caller's workspace: anything else is 404, as its own route
// answers.
func (s *service) filterEmailID(ctx context.Context, sc scope, id string) (string, error) {
	var found string
	err := s.db.Get(ctx, &found, `SELECT id FROM emails
		WHERE organization_id = ? AND workspace_id = ? AND id = ? AND deleted_at IS NULL`, sc.OrgID, sc.WorkspaceID, id)
	if errors.Is(err, store.ErrNotFound) {
		return "", rest.NotFound("email")
	}
	return found, err
}
