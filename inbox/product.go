package inbox

import (
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/idempotency"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/webhooks"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/rest"
)

// New builds the Inbox listener: its REST API and the MCP endpoint whose
// tools mirror it.
func New(deps productkit.Deps) (*productkit.Product, error) {
	cfg, _ := deps.Config.(Config)
	cfg = cfg.withDefaults()
	auth := deps.ProductAuth(APIBase, identity.InboxScopes, ServerTitle)
	// Writes replay their first answer for a repeated X-Idempotency-Key,
	// per organization and workspace, for 24 h (product-decisions §4).
	var idem rest.Idempotency
	if deps.DB != nil {
		idem = idempotency.New(deps.DB, idempotency.Options{Namespace: "inbox", Vary: []string{"X-Workspace-Id"}})
	}
	api := rest.New(rest.Config{Authorize: auth.APIAuthorize(), Title: ServerTitle + " API", Version: ServerVersion, BasePath: APIBase, Logger: deps.Logger, Idempotency: idem})
	product := &productkit.Product{Key: "inbox", Name: ServerName, DefaultAddr: "127.0.0.1:8081"}
	var svc *service
	if deps.DB != nil {
		svc = &service{db: deps.DB, accounts: accounts.New(deps.DB, accounts.Options{}), nonces: deps.Nonces(), jobs: deps.Jobs, cfg: cfg, log: deps.Logger}
		svc.hooks = webhooks.New(deps.DB, deps.Jobs, webhooks.Config{Product: "inbox", SealingSecret: deps.Secret, AllowPrivateTargets: cfg.WebhookAllowPrivateTargets, Retries: cfg.WebhookRetries, Logger: deps.Logger})
		registerWorkspaceWrites(api, svc)
		registerWorkspaces(api, svc.accounts, svc.nonces)
		registerInboxes(api, svc)
		registerAgents(api, svc)
		registerEmails(api, svc)
		registerAgentRuns(api, svc)
		registerWebhooks(api, svc)
		registerSystemEvents(api, svc)
		registerProcessing(svc)
		registerMaintenance(svc)
		svc.idempotency = idem.(*idempotency.Store)
	}
	bridge := restbridge.New(api, restbridge.Options{ForwardHeaders: []string{"X-Workspace-Id", "Accept-Language"}, Logger: deps.Logger})
	opts := MCPOptions(deps)
	deps.Protect(auth, &opts)
	catalog := mcp.Catalog{Tools: api.Tools(bridge)}
	if svc != nil {
		catalog.Resources = fixedResources(bridge, svc.accounts)
		catalog.ResourceTemplates = resourceTemplates(bridge)
		catalog.Prompts = prompts(bridge)
	}
	h, err := mcp.NewHandler(opts, catalog)
	if err != nil {
		return nil, err
	}
	mux := productkit.Mux(h, APIBase, api)
	auth.MountIfAny(mux)
	if svc != nil {
		mountIntake(mux, svc)
		product.Start = svc.start
		product.Shutdown = svc.shutdown
		product.Announce = func() []string {
			if a := svc.smtpAddr(); a != nil {
				return []string{ServerName + " SMTP intake: smtp://" + a.String() + " (addresses @" + cfg.MailDomain + ")"}
			}
			return nil
		}
		product.Collectors = append(product.Collectors, svc.hooks.Collector())
	}
	product.Handler = mux
	return product, nil
}
