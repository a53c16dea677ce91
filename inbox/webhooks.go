package inbox

import (
	"context"

	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/productkit/webhookapi"
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

// registerWebhooks declares the Inbox's webhook API (productkit/webhookapi):
// webhooks of the caller's workspace, optionally scoped to one inbox
// (inbox_id), their deliveries, and the system events, filtered by inbox
// and e-mail. Reads see webhooks and their deliveries; everything else
// needs an admin: a webhook decides where the organization's e-mail data is
// sent, so creating or re-pointing one is as sensitive as deleting one,
// sending a test or a replay out, or rotating the signing secret (the last
// four are also destructive tools).
func registerWebhooks(api *rest.API, s *service) {
	webhookapi.Register(api, s.hooks, webhookapi.Options{
		Product:       ServerTitle,
		RotateVerb:    "regenerate",
		Scope:         "inbox.webhooks",
		Events:        webhookEventSlugs,
		Tenancy:       s.workspaceScope,
		TenantNoun:    "workspace",
		ShowWorkspace: true,
		ScopeField:    &webhookapi.Field{Name: "inbox_id", Noun: "inbox", All: "every inbox", Resolve: s.filterInboxID},
		SystemEvents: &webhookapi.SystemEvents{Scope: "inbox.system_events",
			Subject: &webhookapi.Field{Name: "email_id", Noun: "e-mail", Resolve: s.filterEmailID}},
		Lists: restkit.CursorList,
		// The envelope carries the organization and workspace, as every
		// Inbox event's does (events.go).
		EventData: func(ctx context.Context, t restkit.Tenant, data map[string]any) map[string]any {
			return withTenant(ctx, s.accounts, t.OrgID, t.WorkspaceID, data)
		},
	})
}
