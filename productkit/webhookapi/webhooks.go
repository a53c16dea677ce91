package webhookapi

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/webhooks"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// registerWebhooks declares the webhook operations. Storage, signing and
// sending are platform/webhooks'; this file validates input, resolves the
// tenant and the scope field, and shapes answers.
func (x *api) registerWebhooks() {
	o := x.o
	filters := []string{"status"}
	if o.ScopeField != nil {
		filters = append(filters, o.ScopeField.Name)
	}
	declare(x, List, rest.Operation{
		Method: "GET", Path: "/webhooks", Tags: []string{"webhooks"},
		Title: "List webhooks", Summary: fmt.Sprintf("Lists the %s's webhooks, oldest first, %s; filters %s. Signing secrets and credentials are never shown.", o.TenantNoun, x.paging(), and(filters)),
		Requires: x.read(),
	}, "webhooks", nil, x.list)
	declare(x, Get, rest.Operation{
		Method: "GET", Path: "/webhooks/{id}", Tags: []string{"webhooks"},
		Title: "Get a webhook", Summary: "Gets one webhook by id or external_id, with its consecutive failures. The signing secret is never shown.",
		Requires: x.read(),
	}, "", nil, x.get)
	createDesc := fmt.Sprintf("The answer holds signing_secret: it is shown only here (and when %sd); keep it to verify deliveries.", o.RotateVerb)
	var describeCreate func(context.Context, *createIn) (string, error)
	if x.destructive(Create) {
		createDesc += fmt.Sprintf(" Destructive: from then on the %s's subscribed events are sent to this URL.", o.TenantNoun)
		describeCreate = x.describeCreate
	}
	declare(x, Create, rest.Operation{
		Method: "POST", Path: "/webhooks", Tags: []string{"webhooks"},
		Title: "Create a webhook", Summary: "Creates a webhook that receives the subscribed events as signed POSTs (X-Kobana-Signature: sha256=<hex HMAC-SHA256 of the raw body>).",
		Description: createDesc,
		Requires:    x.manage(),
	}, "", describeCreate, x.create)
	fields := "label, url, "
	if f := o.ScopeField; f != nil {
		fields += fmt.Sprintf("%s (\"\" for %s), ", f.Name, f.All)
	}
	updateDesc := ""
	var describeUpdate func(context.Context, *updateIn) (string, error)
	if x.destructive(Update) {
		updateDesc = fmt.Sprintf("Destructive: re-pointing a webhook changes where the %s's events are sent.", o.TenantNoun)
		describeUpdate = x.describeUpdate
	}
	declare(x, Update, rest.Operation{
		Method: "PATCH", Path: "/webhooks/{id}", Tags: []string{"webhooks"},
		Title: "Update a webhook", Summary: "Changes the fields that are sent: " + fields + "auth and its credentials, subscribed_events, status. The signing secret is not shown.",
		Description: updateDesc,
		Requires:    x.manage(),
	}, "", describeUpdate, x.update)
	declare(x, Delete, rest.Operation{
		Method: "DELETE", Path: "/webhooks/{id}", Tags: []string{"webhooks"},
		Title: "Delete a webhook", Summary: "Deletes a webhook by id or external_id: it stops receiving events at once.",
		Description: "Destructive: it cannot be undone.",
		Requires:    x.manage(),
	}, "", x.describeDelete, x.delete)
	see := ""
	if x.ops[ListDeliveries] {
		see = " (see " + x.name(ListDeliveries) + ")"
	}
	declare(x, Test, rest.Operation{
		Method: "POST", Path: "/webhooks/{id}/test", Tags: []string{"webhooks"},
		Title: "Send a test event to a webhook", Summary: "Emits a " + webhooks.TestEventSlug + " system event delivered to this webhook only, and answers 202 with the event; the delivery runs in the background" + see + ".",
		Description: "Destructive: it sends a request out to the webhook's URL.",
		Requires:    x.manage(),
	}, "", x.describeTest, x.test)
	declare(x, RotateSecret, rest.Operation{
		Method: "POST", Path: "/webhooks/{id}/" + o.RotateVerb + "-secret", Tags: []string{"webhooks"},
		Title: capital(o.RotateVerb) + " a webhook's signing secret", Summary: "Replaces the webhook's signing secret and answers the new one (shown only here): deliveries from now on are signed with it.",
		Description: rotationEffect(o.RotationGrace),
		Requires:    x.manage(),
	}, "", x.describeRotateSecret, x.rotateSecret)
}

// get answers one webhook, 404 for another tenant's.
func (x *api) get(ctx context.Context, in *idIn) (*rest.Response, error) {
	_, w, err := x.find(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	return rest.OK(map[string]any{"data": x.show(w)}), nil
}

// describeCreate is the question a destructive create asks: where the
// tenant's events will go.
func (x *api) describeCreate(ctx context.Context, in *createIn) (string, error) {
	if _, err := x.newWebhook(ctx, in); err != nil {
		return "", err
	}
	return fmt.Sprintf("Create webhook '%s', sending the %s's %s events to %s?", in.Label, x.o.TenantNoun, strings.Join(in.SubscribedEvents, ", "), in.URL), nil
}

// create stores a webhook and answers it with its signing secret, the
// only time the secret is shown besides a rotation.
func (x *api) create(ctx context.Context, in *createIn) (*rest.Response, error) {
	nw, err := x.newWebhook(ctx, in)
	if err != nil {
		return nil, err
	}
	w, secret, err := x.svc.Create(ctx, nw)
	if err != nil {
		return nil, x.error(err)
	}
	return rest.Created(map[string]any{"data": append(x.show(w), member{"signing_secret", secret})}), nil
}

// describeUpdate is the question a destructive update asks: the change.
func (x *api) describeUpdate(ctx context.Context, in *updateIn) (string, error) {
	_, cur, _, err := x.patch(ctx, in)
	if err != nil {
		return "", err
	}
	return changeMessage(cur, in), nil
}

// update changes the fields sent and answers the webhook.
func (x *api) update(ctx context.Context, in *updateIn) (*rest.Response, error) {
	t, cur, p, err := x.patch(ctx, in)
	if err != nil {
		return nil, err
	}
	w, err := x.svc.Update(ctx, t.OrgID, t.WorkspaceID, cur.ID, p)
	if err != nil {
		return nil, x.error(err)
	}
	return rest.OK(map[string]any{"data": x.show(w)}), nil
}

// describeDelete is the question a delete asks.
func (x *api) describeDelete(ctx context.Context, in *idIn) (string, error) {
	_, w, err := x.find(ctx, in.ID)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Delete webhook '%s' (%s)? It stops receiving events at once. This cannot be undone.", w.Label, w.URL), nil
}

// delete removes a webhook: it stops receiving events at once.
func (x *api) delete(ctx context.Context, in *idIn) (*rest.Response, error) {
	t, w, err := x.find(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	if err := x.svc.Delete(ctx, t.OrgID, t.WorkspaceID, w.ID); err != nil {
		return nil, x.error(err)
	}
	return rest.NoContent(), nil
}

// describeTest is the question a test event asks: it reaches out to the
// webhook's URL.
func (x *api) describeTest(ctx context.Context, in *idIn) (string, error) {
	_, w, err := x.findActive(ctx, in.ID)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Send a test event (%s) to webhook '%s' at %s?", webhooks.TestEventSlug, w.Label, w.URL), nil
}

// test emits a test event delivered to this webhook only and answers 202
// with the event.
func (x *api) test(ctx context.Context, in *idIn) (*rest.Response, error) {
	t, w, err := x.findActive(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	data := map[string]any{
		"message": "This is a test event from the " + x.o.Product + ".",
		"webhook": map[string]any{"id": w.ID, "external_id": w.ExternalID, "label": w.Label, "url": w.URL},
	}
	if x.o.EventData != nil {
		data = x.o.EventData(ctx, t, data)
	}
	ev, err := x.svc.Test(ctx, t.OrgID, t.WorkspaceID, w.ID, data)
	if err != nil {
		return nil, x.error(err)
	}
	return rest.Accepted(map[string]any{"data": x.showEvent(ev)}), nil
}

// describeRotateSecret is the question a rotation asks, with what
// happens to the old secret.
func (x *api) describeRotateSecret(ctx context.Context, in *idIn) (string, error) {
	_, w, err := x.find(ctx, in.ID)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s the signing secret of webhook '%s' (%s)? %s", capital(x.o.RotateVerb), w.Label, w.URL, rotationConsequence(x.o.RotationGrace)), nil
}

// rotateSecret replaces the signing secret and answers the new one.
func (x *api) rotateSecret(ctx context.Context, in *idIn) (*rest.Response, error) {
	t, w, err := x.find(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	secret, err := x.svc.RotateSecret(ctx, t.OrgID, t.WorkspaceID, w.ID)
	if err != nil {
		return nil, x.error(err)
	}
	return rest.OK(map[string]any{"data": map[string]string{"signing_secret": secret}}), nil
}

// list answers the webhook listing in the product's style.
func (x *api) list(ctx context.Context, in *listIn) (*rest.Response, error) {
	var t restkit.Tenant
	var after string
	var err error
	if x.o.Lists == restkit.NumberedList {
		t, err = x.o.Tenancy(ctx)
	} else {
		t, after, err = restkit.PageScope(ctx, x.o.Tenancy, in.Cursor)
	}
	if err != nil {
		return nil, err
	}
	f := webhooks.ListFilter{Status: in.Status, After: after}
	if in.Scope != "" {
		if f.ScopeID, err = x.o.ScopeField.Resolve(ctx, t, in.Scope); err != nil {
			return nil, err
		}
	}
	if x.o.Lists == restkit.NumberedList {
		page, perPage, offset := restkit.NumberedParams{Page: in.Page, PerPage: in.PerPage}.Window()
		f.Limit = perPage
		rows, total, err := x.svc.ListNumbered(ctx, t.OrgID, t.WorkspaceID, f, offset)
		if err != nil {
			return nil, x.error(err)
		}
		return restkit.NumberedPage(rows, page, perPage, total, x.show), nil
	}
	f.Limit = restkit.PageLimit(in.Limit)
	rows, err := x.svc.List(ctx, t.OrgID, t.WorkspaceID, f)
	if err != nil {
		return nil, x.error(err)
	}
	return cursorPage(x, rows, f.Limit, func(w webhooks.Webhook) string { return w.ID }, x.show), nil
}

// cursorPage is restkit's cursor page in the product's style.
func cursorPage[R any, J any](x *api, rows []R, limit int, idOf func(R) string, show func(R) J) *rest.Response {
	if x.o.Lists == restkit.CursorListWithLimit {
		return restkit.CursorPageWithLimit(rows, limit, idOf, show)
	}
	return restkit.CursorPage(rows, limit, idOf, show)
}

// newWebhook checks a create request and resolves its scope.
func (x *api) newWebhook(ctx context.Context, in *createIn) (webhooks.NewWebhook, error) {
	t, err := x.o.Tenancy(ctx)
	if err != nil {
		return webhooks.NewWebhook{}, err
	}
	auth := in.Auth
	if auth == "" {
		auth = webhooks.AuthNone
	}
	var details []rest.FieldError
	details = append(details, checkURL(in.URL)...)
	details = append(details, x.checkEvents(in.SubscribedEvents)...)
	creds, credErrs := checkCredentials(auth, in.credentialsIn)
	details = append(details, credErrs...)
	if len(details) > 0 {
		return webhooks.NewWebhook{}, rest.Validation("the webhook is invalid", details...)
	}
	nw := webhooks.NewWebhook{OrganizationID: t.OrgID, WorkspaceID: t.WorkspaceID, ExternalID: in.ExternalID,
		Label: in.Label, URL: in.URL, Auth: auth, Credentials: creds, SubscribedEvents: in.SubscribedEvents, Status: in.Status}
	if in.Scope != "" {
		if nw.ScopeID, err = x.o.ScopeField.Resolve(ctx, t, in.Scope); err != nil {
			return webhooks.NewWebhook{}, err
		}
	}
	return nw, nil
}

// patch checks an update request against the webhook as it is and
// returns the change to make.
func (x *api) patch(ctx context.Context, in *updateIn) (restkit.Tenant, webhooks.Webhook, webhooks.WebhookPatch, error) {
	t, cur, err := x.find(ctx, in.ID)
	if err != nil {
		return t, cur, webhooks.WebhookPatch{}, err
	}
	p := webhooks.WebhookPatch{Label: in.Label, URL: in.URL, Status: in.Status}
	var details []rest.FieldError
	if in.URL != nil {
		details = append(details, checkURL(*in.URL)...)
	}
	if in.SubscribedEvents != nil {
		details = append(details, x.checkEvents(in.SubscribedEvents)...)
		p.SubscribedEvents = in.SubscribedEvents
	}
	auth := cur.Auth
	if in.Auth != nil {
		auth = *in.Auth
		p.Auth = in.Auth
	}
	// Credentials are write-only and replaced whole: a new auth kind, or
	// any credential field, needs every field of the kind.
	if auth != cur.Auth || in.credentialsIn.sent() {
		creds, credErrs := checkCredentials(auth, in.credentialsIn)
		details = append(details, credErrs...)
		p.Credentials = &creds
	}
	if len(details) > 0 {
		return t, cur, p, rest.Validation("the webhook is invalid", details...)
	}
	if in.Scope != nil {
		scope := ""
		if *in.Scope != "" {
			if scope, err = x.o.ScopeField.Resolve(ctx, t, *in.Scope); err != nil {
				return t, cur, p, err
			}
		}
		p.ScopeID = &scope
	}
	return t, cur, p, nil
}

// changeMessage is the confirmation of a destructive update: what the
// webhook will do afterwards.
func changeMessage(cur webhooks.Webhook, in *updateIn) string {
	var what []string
	if in.URL != nil && *in.URL != cur.URL {
		what = append(what, "its deliveries go to "+*in.URL)
	}
	if in.SubscribedEvents != nil {
		what = append(what, "it receives "+strings.Join(in.SubscribedEvents, ", "))
	}
	if in.Status != nil && *in.Status != cur.Status {
		what = append(what, "it becomes "+*in.Status)
	}
	if in.Auth != nil || in.credentialsIn.sent() {
		what = append(what, "its credentials change")
	}
	msg := fmt.Sprintf("Change webhook '%s' (%s)?", cur.Label, cur.URL)
	if len(what) > 0 {
		msg += " From now on " + and(what) + "."
	}
	return msg
}

// find resolves the caller's tenant and a webhook of it by id or
// external_id; anything else is 404.
func (x *api) find(ctx context.Context, ref string) (restkit.Tenant, webhooks.Webhook, error) {
	t, err := x.o.Tenancy(ctx)
	if err != nil {
		return t, webhooks.Webhook{}, err
	}
	w, err := x.svc.Get(ctx, t.OrgID, t.WorkspaceID, ref)
	if err != nil {
		return t, w, x.error(err)
	}
	return t, w, nil
}

// findActive is find for what sends something: an inactive webhook is a
// conflict, since nothing would be sent.
func (x *api) findActive(ctx context.Context, ref string) (restkit.Tenant, webhooks.Webhook, error) {
	t, w, err := x.find(ctx, ref)
	if err == nil && w.Status != webhooks.StatusActive {
		err = x.inactive()
	}
	return t, w, err
}

// inactive answers a test or a replay to an inactive webhook.
func (x *api) inactive() error {
	how := "activate it"
	if x.ops[Update] {
		how = "activate it (" + x.name(Update) + " status active)"
	}
	return rest.Conflict("the webhook is inactive: " + how + " to send it events")
}

// error turns the webhook service's errors into API answers; anything
// unexpected stays an internal error.
func (x *api) error(err error) error {
	var re *rest.Error
	var ve *webhooks.ValidationError
	switch {
	case errors.As(err, &re):
		return re
	case errors.Is(err, store.ErrNotFound):
		return rest.NotFound("webhook")
	case errors.Is(err, store.ErrConflict):
		return rest.Conflict("a live webhook of this " + x.o.TenantNoun + " already has this external_id")
	case errors.As(err, &ve):
		return rest.Validation("the webhook is invalid", rest.FieldError{Field: ve.Field, Message: ve.Message})
	}
	return err
}

// rotationEffect is the rotation's description: what happens to the old
// secret.
func rotationEffect(grace time.Duration) string {
	if grace <= 0 {
		return "Destructive: the old secret stops verifying at once, so the receiver must be updated."
	}
	return fmt.Sprintf("Destructive: deliveries are signed with the new secret at once; for %s the old secret signs beside it "+
		"(two signatures in the header), so the receiver can switch to the new secret without losing events.", graceText(grace))
}

// rotationConsequence is what the confirmation tells the person.
func rotationConsequence(grace time.Duration) string {
	if grace <= 0 {
		return "Deliveries are signed with the new secret at once: the receiver must be updated to verify them."
	}
	return fmt.Sprintf("Deliveries are signed with the new secret at once, and for %s also with the old one: the receiver must switch to the new secret within that time.", graceText(grace))
}

// graceText spells a grace period for people: "24 hours", "90 minutes".
func graceText(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		if d == time.Hour {
			return "1 hour"
		}
		return fmt.Sprintf("%d hours", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%d minutes", d/time.Minute)
	default:
		return d.String()
	}
}
