package kadu

import (
	"context"
	"github.com/kobana/kobana-mcp/platform/pagetext"
	"log/slog"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/kadu/runtime"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/confirm"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/webhooks"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/productkit/approval"
	"github.com/kobana/kobana-mcp/productkit/restkit"
)

// service is what every Kadu operation, its jobs and the runtime share:
// one per listener.
type service struct {
	db       *store.DB
	accounts *accounts.Store
	jobs     *jobs.Queue
	hooks    *webhooks.Service
	// nonces consume an MCP confirmation (or an approval's) in the
	// transaction of the destructive write it confirms.
	nonces *confirm.Nonces
	// approvals are the stored approval-link calls (productkit/approval),
	// read by kadu_approvals_get and cancelled with their execution.
	approvals *approval.Store
	log       *slog.Logger
	// publicURL is the listener's public base URL (the approval page's
	// links to an execution).
	publicURL string
	cfg       Config
	// runtime is the workflow and agent runtime (kadu/runtime), the worker
	// of kadu.run_execution, built over this service's stores.
	runtime *runtime.Runtime
	// files is the bucket files live in (files_config.go); mail sends
	// results to e-mail destinations (delivery_mail.go), nil without a
	// relay.
	files *fileStore
	mail  *mailer
	// lookupTool and validateWorkflow are what saving a task asks of the
	// deployment and of the runtime's engine (tasks.go): the tools a task
	// may call, nil without a registry (runtime.ToolLookup), and whether
	// its workflow would run (validateWorkflowSteps, workflow_check.go).
	// newService sets both.
	lookupTool       func(name string) (runtime.ToolInfo, bool)
	validateWorkflow func(steps []records.WorkflowStep) error
	// machine is the one write path of executions' statuses, steps and
	// cost (kadu/records), delivering through s (delivery.go).
	machine *records.Machine
	// clientName is an OAuth client's registered name (the built-in
	// sign-in's, as the approval and execution pages show it); nil
	// without it, when an id names itself.
	clientName func(ctx context.Context, clientID string) string
	// now is the clock (store.Now unless a test sets another), so
	// schedules, deadlines and months can be tested without waiting.
	now func() time.Time
}

// newService builds the service of one listener: the organizations
// (accounts), the job queue, the webhooks in Kadu's own namespace.
func newService(deps productkit.Deps, cfg Config) *service {
	s := &service{
		db:       deps.DB,
		accounts: accounts.New(deps.DB, accounts.Options{Watch: deps.Changes}),
		jobs:     deps.Jobs,
		hooks: webhooks.New(deps.DB, deps.Jobs, webhooks.Config{Product: "kadu", SealingSecret: deps.Secret,
			AllowPrivateTargets: deps.Webhooks.AllowPrivateTargets, Retries: deps.Webhooks.Retries, Logger: deps.Logger,
			RotationGrace: webhookRotationGrace}),
		nonces:    deps.Nonces(),
		approvals: approval.NewStore(deps.DB, nil),
		log:       deps.Logger,
		publicURL: deps.PublicURL,
		cfg:       cfg.withDefaults(),
		files:     newFileStore(deps, cfg.Files),
		mail:      newMailer(cfg.Mail),
	}
	if deps.AuthServer != nil {
		s.clientName = func(ctx context.Context, id string) string {
			return deps.AuthServer.ClientName(ctx, pagetext.In(pagetext.English), id)
		}
	}
	s.machine = &records.Machine{Clock: s.clock, ExecutionTimeout: s.cfg.ExecutionTimeout, WaitTimeout: s.cfg.WaitTimeout, Deliver: s}
	s.runtime = s.newRuntime(deps)
	s.lookupTool = runtime.ToolLookup(deps.Tools, cfg.lookupTool)
	s.validateWorkflow = validateWorkflowSteps
	if cfg.validateWorkflow != nil {
		s.validateWorkflow = cfg.validateWorkflow
	}
	return s
}

// newRuntime builds the runtime over the service's stores, state machine
// and bucket, with the deployment's tools, roles and model.
func (s *service) newRuntime(deps productkit.Deps) *runtime.Runtime {
	return runtime.New(runtime.Deps{DB: s.db, Accounts: s.accounts, Jobs: s.jobs, Approvals: s.approvals, Log: s.log,
		Machine: s.machine, Clock: s.clock, Files: s.files, Tools: deps.Tools, Roles: deps.Roles, PublicURL: deps.PublicURL,
		ModelURL: s.cfg.ModelURL, ModelKey: s.cfg.ModelKey, Config: s.cfg.Runtime,
		Limits: runtime.Limits{Plan: s.cfg.Plan, Prices: s.cfg.Prices, MaxSteps: s.cfg.MaxSteps, WaitTimeout: s.cfg.WaitTimeout}})
}

// tenancy is the caller's organization: Kadu's only tenant.
func (s *service) tenancy(ctx context.Context) (restkit.Tenant, error) {
	return restkit.OrganizationTenancy(s.accounts)(ctx)
}

// clock is the current instant as written to the database: UTC,
// microseconds.
func (s *service) clock() time.Time {
	if s.now == nil {
		return store.Now()
	}
	return s.now().UTC().Truncate(time.Microsecond)
}

// webhookRotationGrace is how long a rotated-out signing secret of a
// Kadu webhook keeps signing beside the new one (platform/webhooks
// RotationGrace).
const webhookRotationGrace = 24 * time.Hour
