package inbox

import (
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/idempotency"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/pagetext"
	"github.com/kobana/kobana-mcp/platform/webhooks"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/rest"
)

// Spec is the Inbox as the binary serves it: its listener, settings,
// migrations, operations, catalog extras, jobs and intake. cfg is its
// configuration before settings are parsed (the zero Config: the
// documented defaults); the binary's settings overwrite it.
func Spec(cfg Config) *productkit.Spec {
	p := &cfg
	return &productkit.Spec{
		Key:               "inbox",
		Name:              ServerName,
		Title:             ServerTitle,
		Version:           ServerVersion,
		DefaultAddr:       "127.0.0.1:8081",
		APIBase:           APIBase,
		AllowedOrigins:    true,
		ScopeDescriptions: scopeDescriptions,
		Migrations:        Migrations,
		Settings:          p.settings,
		Build:             func(b *productkit.Builder) error { return build(b, p.withDefaults()) },
	}
}

// scopeDescriptions say, in plain words, what a person allows when they
// grant each of the Inbox's scopes; the consent page of the built-in
// authorization server shows them (productkit.Spec.ScopeDescriptions).
var scopeDescriptions = map[string]pagetext.Phrase{
	"inbox.workspaces":    {PT: "Ver e gerenciar os seus espaços de trabalho", EN: "See and manage your workspaces"},
	"inbox.inboxes":       {PT: "Ver e gerenciar as suas caixas de entrada (os endereços que recebem e-mail)", EN: "See and manage your inboxes (the addresses that receive e-mail)"},
	"inbox.emails":        {PT: "Ler os e-mails que as suas caixas receberam e agir sobre eles", EN: "Read the e-mails your inboxes received, and act on them"},
	"inbox.agents":        {PT: "Ver e configurar os agentes que processam o seu e-mail", EN: "See and configure the agents that process your e-mail"},
	"inbox.agent_runs":    {PT: "Ver o que os seus agentes fizeram e executá-los de novo", EN: "See what your agents did and start them again"},
	"inbox.webhooks":      {PT: "Ver e gerenciar os webhooks que avisam os seus outros sistemas", EN: "See and manage the webhooks that notify your other systems"},
	"inbox.system_events": {PT: "Ler o registro de atividades da sua conta", EN: "Read the activity log of your account"},
}

// build declares the Inbox on b: every operation on the API, the catalog
// extras, the jobs, the HTTP and SMTP intake.
func build(b *productkit.Builder, cfg Config) error {
	deps := b.Deps
	// Writes replay their first answer for a repeated X-Idempotency-Key,
	// per organization and workspace, for 24 h (docs/decisions.md, "API conventions").
	idem := idempotency.New(deps.DB, idempotency.Options{Namespace: "inbox", Vary: []string{"X-Workspace-Id"}})
	var apiIdem rest.Idempotency
	if deps.DB != nil {
		apiIdem = idem
	}
	api := b.API(rest.Config{Idempotency: apiIdem})
	svc := &service{db: deps.DB, accounts: accounts.New(deps.DB, accounts.Options{Watch: deps.Changes}), nonces: deps.Nonces(), jobs: deps.Jobs, cfg: cfg, log: deps.Logger, idempotency: idem, tracer: tracerOf(deps.Tracer), limits: deps.RateLimits}
	svc.hooks = webhooks.New(deps.DB, deps.Jobs, webhooks.Config{Product: "inbox", SealingSecret: deps.Secret,
		AllowPrivateTargets: deps.Webhooks.AllowPrivateTargets || cfg.WebhookAllowPrivateTargets, Retries: firstNonEmpty(cfg.WebhookRetries, deps.Webhooks.Retries), Logger: deps.Logger})
	registerWorkspaceReads(api, svc)
	registerWorkspaceWrites(api, svc)
	registerWorkspaceDelete(api, svc.accounts, svc.nonces)
	registerInboxes(api, svc)
	registerInboxRecipients(api, svc)
	registerAgents(api, svc)
	registerEmails(api, svc)
	registerAgentRuns(api, svc)
	registerWebhooks(api, svc)
	b.Jobs(func(q *jobs.Queue) {
		registerProcessing(svc, q)
		registerMaintenance(svc, q)
	})
	// The approval page names each destructive tool in its own language.
	b.Approvals(productkit.Approvals{ToolTitles: toolTitles})
	b.MCP(MCPOptions, restbridge.Options{ForwardHeaders: []string{"X-Workspace-Id", "Accept-Language"}, Logger: deps.Logger})
	b.Catalog(func(bridge *restbridge.Bridge, _ []mcp.Tool) (mcp.Catalog, error) {
		return mcp.Catalog{Resources: fixedResources(bridge, svc.accounts), ResourceTemplates: resourceTemplates(bridge), Prompts: prompts(bridge)}, nil
	})
	if deps.DB == nil {
		return nil // a catalog only: no intake to serve
	}
	smtpIn := &smtpIntake{s: svc}
	b.Lifecycle(smtpIn.start, smtpIn.shutdown, func() []string {
		if a := smtpIn.addr(); a != nil {
			return []string{ServerName + " SMTP intake: smtp://" + a.String() + " (addresses @" + cfg.MailDomain + ")"}
		}
		return nil
	})
	b.Collect(svc.hooks.Collector())
	return nil
}

func firstNonEmpty[T any](lists ...[]T) []T {
	for _, l := range lists {
		if len(l) > 0 {
			return l
		}
	}
	return nil
}
