package webhookapi

import (
	"context"
	"fmt"
	"strings"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/webhooks"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// registerEvents declares the read-only operations on the events the
// product emitted (what webhooks were sent, or would have been).
func (x *api) registerEvents() {
	e := x.o.SystemEvents
	if e == nil {
		return
	}
	read := mcp.Requirement{Scopes: []string{e.Scope}, Permission: identity.PermRead}
	filters := []string{"slug"}
	if e.Subject != nil {
		filters = append(filters, e.Subject.Name)
	}
	if x.o.ScopeField != nil {
		filters = append(filters, x.o.ScopeField.Name)
	}
	declare(x, ListEvents, rest.Operation{
		Method: "GET", Path: "/system-events", Tags: []string{"system events"},
		Title: "List system events", Summary: fmt.Sprintf("Lists the %s's system events (what happened, as sent to webhooks), newest first, %s; filters %s.", x.o.TenantNoun, x.paging(), and(filters)),
		Requires: read,
	}, "events", nil, x.listEvents)
	declare(x, GetEvent, rest.Operation{
		Method: "GET", Path: "/system-events/{id}", Tags: []string{"system events"},
		Title: "Get a system event", Summary: "Gets one system event with its payload (the envelope webhooks receive, without the delivery fields).",
		Requires: read,
	}, "", nil, x.getEvent)
}

// listEvents answers the tenant's system events, newest first, filtered
// by slug, subject and scope.
func (x *api) listEvents(ctx context.Context, in *listEventsIn) (*rest.Response, error) {
	e := x.o.SystemEvents
	if in.Slug != "" && !x.known(in.Slug) {
		return nil, rest.Validation("the request is invalid", rest.FieldError{Field: "slug", Message: "must be one of " + strings.Join(x.o.Events, ", ")})
	}
	t, after, err := restkit.PageScope(ctx, x.o.Tenancy, in.Cursor)
	if err != nil {
		return nil, err
	}
	f := webhooks.EventFilter{Slug: in.Slug, After: after, Limit: restkit.PageLimit(in.Limit)}
	if in.Scope != "" {
		if f.ScopeID, err = x.o.ScopeField.Resolve(ctx, t, in.Scope); err != nil {
			return nil, err
		}
	}
	if in.Subject != "" {
		if f.SubjectID, err = e.Subject.Resolve(ctx, t, in.Subject); err != nil {
			return nil, err
		}
	}
	rows, err := x.svc.ListEvents(ctx, t.OrgID, t.WorkspaceID, f)
	if err != nil {
		return nil, x.error(err)
	}
	return cursorPage(x, rows, f.Limit, func(e webhooks.SystemEvent) string { return e.ID }, x.showEvent), nil
}

// getEvent answers one system event with its payload.
func (x *api) getEvent(ctx context.Context, in *eventIDIn) (*rest.Response, error) {
	return restkit.ReadItem(ctx, x.o.Tenancy, "system event", func(t restkit.Tenant) (webhooks.SystemEvent, error) {
		return x.svc.GetEvent(ctx, t.OrgID, t.WorkspaceID, in.ID)
	}, x.showEvent)
}
