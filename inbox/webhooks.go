package inbox

import (
	"context"
	"errors"
	"fmt"
	"net/url"
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

// webhookEventSlugs are the events the Inbox emits, the only slugs a
// webhook may subscribe to (besides "*" and "prefix.*" wildcards over
// them). Whoever emits a new event adds its slug here, so subscriptions
// to it validate.
var webhookEventSlugs = []string{
	"email.received",
	"email.processed",
	"email.failed",
	"email.rejected",
	"agent_run.failed",
	"agent_run.succeeded",
	"webhook.test",
}

// Reads see webhooks and their deliveries. Everything else needs an
// admin: a webhook decides where the organization's e-mail data is sent,
// so creating or re-pointing one is as sensitive as deleting one, sending
// a test or a replay out, or rotating the signing secret (the last four
// are also destructive tools, product-decisions §2).
var (
	webhooksRead   = mcp.Requirement{Scopes: []string{"inbox.webhooks"}, Permission: identity.PermRead}
	webhooksManage = mcp.Requirement{Scopes: []string{"inbox.webhooks"}, Permission: identity.PermManage}
)

// webhookJSON is a webhook as the API shows it: never its credentials nor
// its signing secret.
type webhookJSON struct {
	ID                  string    `json:"id"`
	ExternalID          string    `json:"external_id"`
	WorkspaceID         string    `json:"workspace_id"`
	InboxID             *string   `json:"inbox_id"`
	Label               string    `json:"label"`
	URL                 string    `json:"url"`
	Auth                string    `json:"auth"`
	SubscribedEvents    []string  `json:"subscribed_events"`
	Status              string    `json:"status"`
	ConsecutiveFailures int       `json:"consecutive_failures"`
	CreatedAt           time.Time `json:"created_at"`
	UpdatedAt           time.Time `json:"updated_at"`
}

// createdWebhookJSON is the answer to webhooks_create: the only time the
// signing secret is shown with the webhook.
type createdWebhookJSON struct {
	webhookJSON
	SigningSecret string `json:"signing_secret"`
}

func toWebhookJSON(w webhooks.Webhook) webhookJSON {
	var inboxID *string
	if w.ScopeID != nil && *w.ScopeID != "" {
		inboxID = w.ScopeID
	}
	events := w.SubscribedEvents
	if events == nil {
		events = []string{}
	}
	return webhookJSON{ID: w.ID, ExternalID: w.ExternalID, WorkspaceID: w.WorkspaceID, InboxID: inboxID, Label: w.Label, URL: w.URL,
		Auth: w.Auth, SubscribedEvents: events, Status: w.Status, ConsecutiveFailures: w.ConsecutiveFailures,
		CreatedAt: w.CreatedAt.UTC(), UpdatedAt: w.UpdatedAt.UTC()}
}

type listWebhooksIn struct {
	Status  string `json:"status,omitempty" in:"query" enum:"active,inactive" jsonschema:"Only webhooks with this status."`
	InboxID string `json:"inbox_id,omitempty" in:"query" jsonschema:"Only webhooks scoped to this inbox (its id or external_id)."`
	Limit   int    `json:"limit,omitempty" in:"query" minimum:"1" maximum:"200" jsonschema:"How many webhooks per page (1-200, default 50)."`
	Cursor  string `json:"cursor,omitempty" in:"query" jsonschema:"The meta.next_cursor of the previous page."`
}

type webhookIDIn struct {
	ID string `json:"id" in:"path" jsonschema:"The webhook's id or external_id."`
}

// webhookCredentialsIn are the write-only credentials of a webhook's
// target; which are required depends on auth.
type webhookCredentialsIn struct {
	Username    *string `json:"username,omitempty" maxLength:"255" jsonschema:"auth basic: the user name (required with basic; write-only)."`
	Password    *string `json:"password,omitempty" maxLength:"1024" jsonschema:"auth basic: the password (required with basic; write-only)."`
	Token       *string `json:"token,omitempty" maxLength:"4096" jsonschema:"auth bearer: the token sent as Authorization: Bearer (required with bearer; write-only)."`
	HeaderName  *string `json:"header_name,omitempty" maxLength:"255" jsonschema:"auth header: the name of the header sent with every delivery (required with header)."`
	HeaderValue *string `json:"header_value,omitempty" maxLength:"4096" jsonschema:"auth header: the value of that header (required with header; write-only)."`
}

func (c webhookCredentialsIn) sent() bool {
	return c.Username != nil || c.Password != nil || c.Token != nil || c.HeaderName != nil || c.HeaderValue != nil
}

type createWebhookIn struct {
	ExternalID       string   `json:"external_id,omitempty" minLength:"1" maxLength:"255" jsonschema:"Your own id for the webhook (default: its generated id); unique among the workspace's live webhooks."`
	Label            string   `json:"label" minLength:"1" maxLength:"255" jsonschema:"A name for people."`
	URL              string   `json:"url" minLength:"1" maxLength:"2048" jsonschema:"Where deliveries are POSTed: an absolute http or https URL."`
	InboxID          string   `json:"inbox_id,omitempty" jsonschema:"Scope the webhook to one inbox (its id or external_id): it then receives only that inbox's events. Default: every inbox."`
	Auth             string   `json:"auth,omitempty" enum:"none,basic,bearer,header" jsonschema:"How deliveries authenticate to the target (default none); basic needs username and password, bearer needs token, header needs header_name and header_value."`
	SubscribedEvents []string `json:"subscribed_events" jsonschema:"The events to deliver: slugs (email.received, email.processed, email.failed, email.rejected, agent_run.failed, agent_run.succeeded, webhook.test), \"*\" for all, or \"prefix.*\" (email.*)."`
	Status           string   `json:"status,omitempty" enum:"active,inactive" jsonschema:"active (default) receives events; inactive receives none."`
	webhookCredentialsIn
}

type updateWebhookIn struct {
	ID               string   `json:"id" in:"path" jsonschema:"The webhook's id or external_id."`
	Label            *string  `json:"label,omitempty" minLength:"1" maxLength:"255" jsonschema:"A name for people."`
	URL              *string  `json:"url,omitempty" minLength:"1" maxLength:"2048" jsonschema:"Where deliveries are POSTed: an absolute http or https URL."`
	InboxID          *string  `json:"inbox_id,omitempty" jsonschema:"Scope the webhook to one inbox (its id or external_id); an empty string removes the scope (every inbox)."`
	Auth             *string  `json:"auth,omitempty" enum:"none,basic,bearer,header" jsonschema:"How deliveries authenticate; changing it needs the new kind's credentials."`
	SubscribedEvents []string `json:"subscribed_events,omitempty" jsonschema:"Replaces the subscribed events: slugs, \"*\" or \"prefix.*\"."`
	Status           *string  `json:"status,omitempty" enum:"active,inactive" jsonschema:"active receives events; inactive receives none."`
	webhookCredentialsIn
}

// registerWebhooks declares the webhook operations and, through
// registerWebhookDeliveries, their deliveries. Storage, signing and sending
// are platform/webhooks'; this file validates input, resolves inboxes and
// shapes answers.
func registerWebhooks(api *rest.API, s *service) {
	rest.Handle(api, rest.Operation{
		ID: "webhooks_list", Method: "GET", Path: "/webhooks", Tags: []string{"webhooks"},
		Title: "List webhooks", Summary: "Lists the workspace's webhooks, oldest first, with cursor pagination; filters status and inbox_id. Signing secrets and credentials are never shown.",
		Requires: webhooksRead, Annotations: restkit.ReadOnly(),
	}, func(ctx context.Context, in *listWebhooksIn) (*rest.Response, error) {
		sc, after, err := restkit.PageScope(ctx, s.workspaceScope, in.Cursor)
		if err != nil {
			return nil, err
		}
		f := webhooks.ListFilter{Status: in.Status, After: after, Limit: restkit.PageLimit(in.Limit)}
		if in.InboxID != "" {
			if f.ScopeID, err = s.filterInboxID(ctx, sc, in.InboxID); err != nil {
				return nil, err
			}
		}
		rows, err := s.hooks.List(ctx, sc.OrgID, sc.WorkspaceID, f)
		if err != nil {
			return nil, webhookError(err)
		}
		return restkit.CursorPage(rows, f.Limit, func(w webhooks.Webhook) string { return w.ID }, toWebhookJSON), nil
	})
	rest.Handle(api, rest.Operation{
		ID: "webhooks_get", Method: "GET", Path: "/webhooks/{id}", Tags: []string{"webhooks"},
		Title: "Get a webhook", Summary: "Gets one webhook by id or external_id, with its consecutive failures. The signing secret is never shown.",
		Requires: webhooksRead, Annotations: restkit.ReadOnly(),
	}, func(ctx context.Context, in *webhookIDIn) (*rest.Response, error) {
		_, w, err := s.findWebhook(ctx, in.ID)
		if err != nil {
			return nil, err
		}
		return rest.OK(map[string]any{"data": toWebhookJSON(w)}), nil
	})
	rest.Handle(api, rest.Operation{
		ID: "webhooks_create", Method: "POST", Path: "/webhooks", Tags: []string{"webhooks"},
		Title: "Create a webhook", Summary: "Creates a webhook that receives the subscribed events as signed POSTs (X-Kobana-Signature: sha256=<hex HMAC-SHA256 of the raw body>).",
		Description: "The answer holds signing_secret: it is shown only here (and when regenerated); keep it to verify deliveries.",
		Requires:    webhooksManage, Annotations: restkit.Write(false),
	}, func(ctx context.Context, in *createWebhookIn) (*rest.Response, error) {
		sc, err := s.workspaceScope(ctx)
		if err != nil {
			return nil, err
		}
		auth := in.Auth
		if auth == "" {
			auth = webhooks.AuthNone
		}
		var details []rest.FieldError
		details = append(details, checkWebhookURL(in.URL)...)
		details = append(details, checkSubscribedEvents(in.SubscribedEvents)...)
		creds, credErrs := checkWebhookCredentials(auth, in.webhookCredentialsIn)
		details = append(details, credErrs...)
		if len(details) > 0 {
			return nil, rest.Validation("the webhook is invalid", details...)
		}
		nw := webhooks.NewWebhook{OrganizationID: sc.OrgID, WorkspaceID: sc.WorkspaceID, ExternalID: in.ExternalID,
			Label: in.Label, URL: in.URL, Auth: auth, Credentials: creds, SubscribedEvents: in.SubscribedEvents, Status: in.Status}
		if in.InboxID != "" {
			if nw.ScopeID, err = s.filterInboxID(ctx, sc, in.InboxID); err != nil {
				return nil, err
			}
		}
		w, secret, err := s.hooks.Create(ctx, nw)
		if err != nil {
			return nil, webhookError(err)
		}
		return rest.Created(map[string]any{"data": createdWebhookJSON{webhookJSON: toWebhookJSON(w), SigningSecret: secret}}), nil
	})
	rest.Handle(api, rest.Operation{
		ID: "webhooks_update", Method: "PATCH", Path: "/webhooks/{id}", Tags: []string{"webhooks"},
		Title: "Update a webhook", Summary: "Changes the fields that are sent: label, url, inbox_id (\"\" for every inbox), auth and its credentials, subscribed_events, status. The signing secret is not shown.",
		Requires: webhooksManage, Annotations: restkit.Write(true),
	}, func(ctx context.Context, in *updateWebhookIn) (*rest.Response, error) {
		sc, cur, err := s.findWebhook(ctx, in.ID)
		if err != nil {
			return nil, err
		}
		p := webhooks.WebhookPatch{Label: in.Label, URL: in.URL, Status: in.Status}
		var details []rest.FieldError
		if in.URL != nil {
			details = append(details, checkWebhookURL(*in.URL)...)
		}
		if in.SubscribedEvents != nil {
			details = append(details, checkSubscribedEvents(in.SubscribedEvents)...)
			p.SubscribedEvents = in.SubscribedEvents
		}
		auth := cur.Auth
		if in.Auth != nil {
			auth = *in.Auth
			p.Auth = in.Auth
		}
		// Credentials are write-only and replaced whole: a new auth kind,
		// or any credential field, needs every field of the kind.
		if auth != cur.Auth || in.webhookCredentialsIn.sent() {
			creds, credErrs := checkWebhookCredentials(auth, in.webhookCredentialsIn)
			details = append(details, credErrs...)
			p.Credentials = &creds
		}
		if len(details) > 0 {
			return nil, rest.Validation("the webhook is invalid", details...)
		}
		if in.InboxID != nil {
			scope := ""
			if *in.InboxID != "" {
				if scope, err = s.filterInboxID(ctx, sc, *in.InboxID); err != nil {
					return nil, err
				}
			}
			p.ScopeID = &scope
		}
		w, err := s.hooks.Update(ctx, sc.OrgID, sc.WorkspaceID, cur.ID, p)
		if err != nil {
			return nil, webhookError(err)
		}
		return rest.OK(map[string]any{"data": toWebhookJSON(w)}), nil
	})
	rest.HandleConfirmed(api, rest.Operation{
		ID: "webhooks_delete", Method: "DELETE", Path: "/webhooks/{id}", Tags: []string{"webhooks"},
		Title: "Delete a webhook", Summary: "Deletes a webhook by id or external_id: it stops receiving events at once.",
		Description: "Destructive: it cannot be undone.",
		Requires:    webhooksManage, Annotations: restkit.Destructive(true),
	}, func(ctx context.Context, in *webhookIDIn) (string, error) {
		_, w, err := s.findWebhook(ctx, in.ID)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("Delete webhook '%s' (%s)? It stops receiving events at once. This cannot be undone.", w.Label, w.URL), nil
	}, func(ctx context.Context, in *webhookIDIn) (*rest.Response, error) {
		sc, w, err := s.findWebhook(ctx, in.ID)
		if err != nil {
			return nil, err
		}
		if err := s.hooks.Delete(ctx, sc.OrgID, sc.WorkspaceID, w.ID); err != nil {
			return nil, webhookError(err)
		}
		return rest.NoContent(), nil
	})
	rest.HandleConfirmed(api, rest.Operation{
		ID: "webhooks_test", Method: "POST", Path: "/webhooks/{id}/test", Tags: []string{"webhooks"},
		Title: "Send a test event to a webhook", Summary: "Emits a webhook.test system event delivered to this webhook only, and answers 202 with the event; the delivery runs in the background (see webhook_deliveries_list).",
		Description: "Destructive: it sends a request out to the webhook's URL.",
		Requires:    webhooksManage, Annotations: restkit.Destructive(false),
	}, func(ctx context.Context, in *webhookIDIn) (string, error) {
		_, w, err := s.findWebhook(ctx, in.ID)
		if err != nil {
			return "", err
		}
		if w.Status != webhooks.StatusActive {
			return "", errWebhookInactive
		}
		return fmt.Sprintf("Send a test event (webhook.test) to webhook '%s' at %s?", w.Label, w.URL), nil
	}, func(ctx context.Context, in *webhookIDIn) (*rest.Response, error) {
		sc, w, err := s.findWebhook(ctx, in.ID)
		if err != nil {
			return nil, err
		}
		if w.Status != webhooks.StatusActive {
			return nil, errWebhookInactive
		}
		data := map[string]any{
			"message": "This is a test event from the Kobana Autonomous Inbox.",
			"webhook": map[string]any{"id": w.ID, "external_id": w.ExternalID, "label": w.Label, "url": w.URL},
		}
		ev, err := s.hooks.Test(ctx, sc.OrgID, sc.WorkspaceID, w.ID, withTenant(ctx, s.accounts, sc.OrgID, sc.WorkspaceID, data))
		if err != nil {
			return nil, webhookError(err)
		}
		return rest.Accepted(map[string]any{"data": toSystemEventJSON(ev)}), nil
	})
	rest.HandleConfirmed(api, rest.Operation{
		ID: "webhooks_rotate_secret", Method: "POST", Path: "/webhooks/{id}/regenerate-secret", Tags: []string{"webhooks"},
		Title: "Regenerate a webhook's signing secret", Summary: "Replaces the webhook's signing secret and answers the new one (shown only here): deliveries from now on are signed with it.",
		Description: "Destructive: the old secret stops verifying at once, so the receiver must be updated.",
		Requires:    webhooksManage, Annotations: restkit.Destructive(false),
	}, func(ctx context.Context, in *webhookIDIn) (string, error) {
		_, w, err := s.findWebhook(ctx, in.ID)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("Regenerate the signing secret of webhook '%s' (%s)? Deliveries are signed with the new secret at once: the receiver must be updated to verify them.", w.Label, w.URL), nil
	}, func(ctx context.Context, in *webhookIDIn) (*rest.Response, error) {
		sc, w, err := s.findWebhook(ctx, in.ID)
		if err != nil {
			return nil, err
		}
		secret, err := s.hooks.RotateSecret(ctx, sc.OrgID, sc.WorkspaceID, w.ID)
		if err != nil {
			return nil, webhookError(err)
		}
		return rest.OK(map[string]any{"data": map[string]string{"signing_secret": secret}}), nil
	})
	registerWebhookDeliveries(api, s)
}

// findWebhook resolves the caller's workspace and a webhook of it by id or
// external_id; anything else is 404.
func (s *service) findWebhook(ctx context.Context, ref string) (scope, webhooks.Webhook, error) {
	sc, err := s.workspaceScope(ctx)
	if err != nil {
		return sc, webhooks.Webhook{}, err
	}
	w, err := s.hooks.Get(ctx, sc.OrgID, sc.WorkspaceID, ref)
	if err != nil {
		return sc, w, webhookError(err)
	}
	return sc, w, nil
}

// filterInboxID resolves an inbox reference (id or external_id) of the
// caller's workspace to its id: a webhook's scope, or what a listing
// filters on. An inbox the caller cannot see is 404, as its own routes
// answer.
func (s *service) filterInboxID(ctx context.Context, sc scope, ref string) (string, error) {
	ib, err := s.getInbox(ctx, s.db, sc.OrgID, sc.WorkspaceID, ref)
	if errors.Is(err, store.ErrNotFound) {
		return "", rest.NotFound("inbox")
	}
	if err != nil {
		return "", err
	}
	return ib.ID, nil
}

// webhookError turns the webhook service's errors into API answers;
// anything unexpected stays an internal error.
func webhookError(err error) error {
	var re *rest.Error
	var ve *webhooks.ValidationError
	switch {
	case errors.As(err, &re):
		return re
	case errors.Is(err, store.ErrNotFound):
		return rest.NotFound("webhook")
	case errors.Is(err, store.ErrConflict):
		return rest.Conflict("a live webhook of this workspace already has this external_id")
	case errors.As(err, &ve):
		return rest.Validation("the webhook is invalid", rest.FieldError{Field: ve.Field, Message: ve.Message})
	}
	return err
}

// checkWebhookURL catches what is plainly not a delivery target; the
// webhook service has the last word on where deliveries may go.
func checkWebhookURL(raw string) []rest.FieldError {
	u, err := url.Parse(raw)
	switch {
	case err != nil || !u.IsAbs() || u.Host == "" || u.Hostname() == "":
		return []rest.FieldError{{Field: "url", Message: "must be an absolute http or https URL"}}
	case u.Scheme != "http" && u.Scheme != "https":
		return []rest.FieldError{{Field: "url", Message: "must use http or https"}}
	case u.User != nil:
		return []rest.FieldError{{Field: "url", Message: "must not hold credentials: use auth"}}
	}
	return nil
}

// checkSubscribedEvents accepts known slugs, "*" and "prefix.*" where some
// known slug has that prefix.
func checkSubscribedEvents(events []string) []rest.FieldError {
	if len(events) == 0 {
		return []rest.FieldError{{Field: "subscribed_events", Message: "must list at least one event (\"*\" for all)"}}
	}
	var out []rest.FieldError
	for i, ev := range events {
		if !knownEventPattern(ev) {
			out = append(out, rest.FieldError{Field: fmt.Sprintf("subscribed_events.%d", i),
				Message: fmt.Sprintf("%q is not an event: use one of %s, \"*\" or \"prefix.*\"", ev, strings.Join(webhookEventSlugs, ", "))})
		}
	}
	return out
}

func knownEventPattern(ev string) bool {
	if ev == "*" || slices.Contains(webhookEventSlugs, ev) {
		return true
	}
	prefix, ok := strings.CutSuffix(ev, ".*")
	if !ok || prefix == "" {
		return false
	}
	for _, slug := range webhookEventSlugs {
		if strings.HasPrefix(slug, prefix+".") {
			return true
		}
	}
	return false
}

// credentialFields are the credential fields each auth kind uses.
var credentialFields = map[string][]string{
	webhooks.AuthNone:   nil,
	webhooks.AuthBasic:  {"username", "password"},
	webhooks.AuthBearer: {"token"},
	webhooks.AuthHeader: {"header_name", "header_value"},
}

// checkWebhookCredentials requires exactly the credential fields auth
// uses, non-empty, and returns them.
func checkWebhookCredentials(auth string, in webhookCredentialsIn) (webhooks.Credentials, []rest.FieldError) {
	given := map[string]*string{"username": in.Username, "password": in.Password, "token": in.Token, "header_name": in.HeaderName, "header_value": in.HeaderValue}
	var out []rest.FieldError
	for _, name := range []string{"header_name", "header_value", "password", "token", "username"} {
		used := slices.Contains(credentialFields[auth], name)
		v := given[name]
		switch {
		case used && (v == nil || *v == ""):
			out = append(out, rest.FieldError{Field: name, Message: "is required with auth " + auth})
		case !used && v != nil:
			out = append(out, rest.FieldError{Field: name, Message: "is not used with auth " + auth})
		}
	}
	val := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	c := webhooks.Credentials{Username: val(in.Username), Password: val(in.Password), Token: val(in.Token), HeaderName: val(in.HeaderName), HeaderValue: val(in.HeaderValue)}
	if auth == webhooks.AuthBasic && strings.Contains(c.Username, ":") {
		out = append(out, rest.FieldError{Field: "username", Message: "must not contain ':'"})
	}
	if auth == webhooks.AuthHeader && c.HeaderName != "" {
		if msg := checkHeaderName(c.HeaderName); msg != "" {
			out = append(out, rest.FieldError{Field: "header_name", Message: msg})
		}
	}
	if strings.ContainsAny(c.HeaderValue+c.Token+c.Username+c.Password, "\r\n\x00") {
		out = append(out, rest.FieldError{Field: "", Message: "credentials must not contain line breaks or NUL"})
	}
	slices.SortFunc(out, func(a, b rest.FieldError) int { return strings.Compare(a.Field, b.Field) })
	return c, out
}

// checkHeaderName accepts an HTTP field name (RFC 9110 token) that the
// delivery does not set itself.
func checkHeaderName(name string) string {
	for _, r := range name {
		if r > 0x7e || r <= 0x20 || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return "must be an HTTP header name (letters, digits and !#$%&'*+-.^_`|~)"
		}
	}
	switch c := strings.ToLower(name); {
	case strings.HasPrefix(c, "x-kobana-"), c == "host", c == "content-type", c == "content-length", c == "user-agent", c == "transfer-encoding", c == "connection":
		return "is set by the delivery itself: pick another header"
	}
	return ""
}
