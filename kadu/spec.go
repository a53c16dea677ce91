package kadu

import (
	"net/url"

	"github.com/kobana/kobana-mcp/kadu/runtime"
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
	"github.com/kobana/kobana-mcp/platform/idempotency"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/pagetext"
	"github.com/kobana/kobana-mcp/platform/webhooks"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/productkit/approval"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/productkit/webhookapi"
	"github.com/kobana/kobana-mcp/rest"
)

// Spec is Kadu as the binary serves it: its listener, its settings (the
// plan, the model price table, the model API), its API at /api/v1 whose
// operations its MCP tools mirror, its jobs (schedules, timeouts, the
// runtime's executions), and the approval link for destructive calls a
// client cannot confirm. Its configuration starts at the documented
// defaults; the binary's settings overwrite them.
func Spec() *productkit.Spec { return specWith(Config{}) }

// specWith is Spec starting from cfg instead of the defaults (tests that
// need a model API or another plan).
func specWith(start Config) *productkit.Spec {
	cfg := &start
	return &productkit.Spec{
		Key:               "kadu",
		Name:              ServerName,
		Title:             ServerTitle,
		Version:           ServerVersion,
		DefaultAddr:       "127.0.0.1:8083",
		APIBase:           APIBase,
		ScopeDescriptions: scopeDescriptions,
		Migrations:        Migrations,
		PagePaths:         []string{ExecutionPagePrefix},
		Settings:          cfg.settings,
		Build:             func(b *productkit.Builder) error { return build(b, *cfg) },
	}
}

// scopeDescriptions say, in plain words, what a person allows when they
// grant each of the Kadu's scopes; the consent page of the built-in
// authorization server shows them (productkit.Spec.ScopeDescriptions).
var scopeDescriptions = map[string]pagetext.Phrase{
	"kadu.tasks":      {PT: "Ver, criar e executar as suas tarefas", EN: "See, create and run your tasks"},
	"kadu.executions": {PT: "Ver as execuções de tarefas e o que elas produziram", EN: "See task runs and what they produced"},
	"kadu.files":      {PT: "Enviar e baixar arquivos", EN: "Upload and download files"},
	"kadu.approvals":  {PT: "Ver e decidir o que aguarda a sua aprovação", EN: "See and decide what waits for your approval"},
	"kadu.webhooks":   {PT: "Ver e gerenciar os webhooks que avisam os seus outros sistemas", EN: "See and manage the webhooks that notify your other systems"},
}

// webhookEventSlugs are the events Kadu emits, the only slugs a webhook
// may subscribe to (besides "*" and "prefix.*" over them): how an
// execution ended or what it waits for, and the test event.
var webhookEventSlugs = []string{
	"kadu.execution.succeeded",
	"kadu.execution.failed",
	"kadu.execution.canceled",
	"kadu.execution.cost_exceeded",
	"kadu.execution.waiting_approval",
	"kadu.execution.waiting_input",
	"kadu.execution.waiting_budget",
	webhooks.TestEventSlug,
}

func build(b *productkit.Builder, cfg Config) error {
	deps := b.Deps
	// Writes replay their first answer for a repeated X-Idempotency-Key,
	// per organization, for 24 h (platform/idempotency).
	var idem rest.Idempotency
	if deps.DB != nil {
		idem = idempotency.New(deps.DB, idempotency.Options{Namespace: "kadu"})
	}
	api := b.API(rest.Config{MaxBodyBytes: MaxBodyBytes, Idempotency: idem})
	svc := newService(deps, cfg)
	acc, hooks := svc.accounts, svc.hooks
	registerTasks(api, svc)
	registerExecutions(api, svc)
	registerMe(api, svc)
	registerApprovals(api, svc)
	registerFiles(api, svc)
	registerCalendar(api, svc)
	// The organization is Kadu's only tenant; lists page by cursor and say
	// their limit. Creating or re-pointing a webhook changes where an
	// execution's data goes, so both are destructive here: confirmed in
	// the chat, or through the approval link.
	webhookapi.Register(api, hooks, webhookapi.Options{
		Product: ServerTitle,
		Prefix:  "kadu_",
		Scope:   "kadu.webhooks",
		Events:  webhookEventSlugs,
		Tenancy: restkit.OrganizationTenancy(acc),
		Lists:   restkit.CursorListWithLimit,
		Annotations: map[webhookapi.Op]mcp.ToolAnnotations{
			webhookapi.Create: restkit.Destructive(false),
			webhookapi.Update: restkit.Destructive(true),
		},
		EventData:     webhookapi.OrganizationData(acc),
		RotationGrace: webhookRotationGrace,
	})
	b.Jobs(func(q *jobs.Queue) { registerJobs(svc, q) })
	b.MCP(MCPOptions, restbridge.Options{Logger: deps.Logger})
	b.Catalog(withFilesCatalog(catalogExtras)) // resources, templates and prompts (resources.go, prompts.go, files_resources.go)
	if deps.DB != nil {
		b.Collect(hooks.Collector())
	}
	// Destructive calls a client cannot confirm get an approval link
	// (productkit.Approvals) when there is a database and the built-in
	// sign-in: as a normal result, Kadu's answer since it has one, with
	// times on the pages in Brasília time. An execution's destructive
	// step is approved on the same page; the decision resumes the
	// execution (kadu/runtime approvals.go, Runtime.ApprovalDecided).
	// A run's (or continue's) answer is an execution that goes on after
	// the call: the page follows it (approval_progress.go).
	// The page of a step's approval links the execution's page: what
	// the execution did before the step it asks about.
	owners := svc.runtime.ApprovalOwners()
	if o, ok := owners[runtime.ApprovalOwner]; ok {
		o.Page = func(a *approval.Approval) string {
			return svc.publicURL + ExecutionPagePrefix + url.PathEscape(a.OwnerRef)
		}
		owners[runtime.ApprovalOwner] = o
	}
	b.Approvals(productkit.Approvals{AsResult: true, Owners: owners, Location: productkit.Brasilia(),
		ToolTitles: toolTitles, Progress: svc.approvalProgress})
	b.Routes(svc.fileRoutes)
	// The execution page for people (execution_page.go), signed in like
	// the approval page; sign-in returns to it (Spec.PagePaths).
	b.Routes(svc.executionRoutes(deps))
	return nil
}

// registerJobs adds Kadu's job kinds to a queue: the runtime's
// kadu.run_execution, the scheduler and the timeouts sweep. serve, worker
// and tests all come here (productkit.Builder.Jobs).
func registerJobs(s *service, q *jobs.Queue) {
	jobs.AddWorker(q, s.runtime.Worker())
	registerSchedules(s, q)
	registerFileJobs(s, q)
	registerDelivery(s, q)
}
