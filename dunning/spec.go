package dunning

import (
	"github.com/kobana/kobana-mcp/dunning/collection"
	"github.com/kobana/kobana-mcp/dunning/escalation"
	"github.com/kobana/kobana-mcp/dunning/files"
	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/notify"
	"github.com/kobana/kobana-mcp/dunning/portal"
	"github.com/kobana/kobana-mcp/dunning/regua"
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/idempotency"
	"github.com/kobana/kobana-mcp/platform/pagetext"
	"github.com/kobana/kobana-mcp/platform/webhooks"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/productkit/webhookapi"
	"github.com/kobana/kobana-mcp/rest"
)

// Spec is Dunning as the binary serves it: its listener and its API at
// /v1, whose operations its MCP tools mirror, and its own settings (the
// providers of its channels, dunning/ledger's channels.go).
func Spec() *productkit.Spec { return newSpec(&ledger.ChannelConfig{}, nil, nil) }

// specWith is Spec whose service configure adjusts once it is built,
// before any operation is declared: tests inject a clock (ledger.Service.Now)
// this way. nil adjusts nothing. The scheduler's periodic jobs are left
// out: a test that moves the clock itself would race a step runner or a
// sweep started by the queue at an arbitrary moment of it (the
// scheduler's own tests run them when they choose).
func specWith(configure func(*escalation.Service)) *productkit.Spec {
	return newSpec(&ledger.ChannelConfig{}, func(s *escalation.Service) {
		s.NoPeriodic = true
		if configure != nil {
			configure(s)
		}
	}, func(n *regua.Notifier) { n.Periodic = false })
}

// newSpec is Spec with the channel configuration cfg, which the spec's
// settings fill once parsed, configure adjusting the service, and tune
// adjusting the notifier (dunning/regua's notifier.go) before anything serves: tests give
// it a clock, an https link base, fast retries. nil adjusts nothing.
func newSpec(cfg *ledger.ChannelConfig, configure func(*escalation.Service), tune func(*regua.Notifier)) *productkit.Spec {
	return &productkit.Spec{
		Key:               "dunning",
		Name:              ledger.ServerName,
		Title:             ledger.ServerTitle,
		Version:           ledger.ServerVersion,
		DefaultAddr:       "127.0.0.1:8082",
		APIBase:           ledger.APIBase,
		ScopeDescriptions: scopeDescriptions,
		Migrations:        Migrations,
		Settings:          cfg.Settings,
		Build:             func(b *productkit.Builder) error { return build(b, cfg, configure, tune) },
	}
}

// scopeDescriptions say, in plain words, what a person allows when they
// grant each of the Dunning's scopes; the consent page of the built-in
// authorization server shows them (productkit.Spec.ScopeDescriptions).
var scopeDescriptions = map[string]pagetext.Phrase{
	"dunning.debtors":        {PT: "Ver e gerenciar os seus devedores", EN: "See and manage your debtors"},
	"dunning.charges":        {PT: "Ver e gerenciar as cobranças devidas a você", EN: "See and manage the charges owed to you"},
	"dunning.plans":          {PT: "Ver e gerenciar as suas réguas de cobrança (o que é enviado, e quando)", EN: "See and manage your collection plans (what is sent, and when)"},
	"dunning.notifications":  {PT: "Ver e enviar lembretes aos seus devedores", EN: "See and send reminders to your debtors"},
	"dunning.agreements":     {PT: "Ver e fazer acordos de pagamento com devedores", EN: "See and make payment agreements with debtors"},
	"dunning.credit_reports": {PT: "Negativar devedores nos birôs de crédito, e retirar negativações", EN: "Report debtors to credit bureaus, and withdraw reports"},
	"dunning.protests":       {PT: "Ver e gerenciar protestos de títulos não pagos", EN: "See and manage protests of unpaid bills"},
	"dunning.documents":      {PT: "Ver e gerar documentos", EN: "See and generate documents"},
	"dunning.exports":        {PT: "Exportar os seus dados", EN: "Export your data"},
	"dunning.webhooks":       {PT: "Ver e gerenciar os webhooks que avisam os seus outros sistemas", EN: "See and manage the webhooks that notify your other systems"},
}

// webhookEventSlugs are the events Dunning emits, the only slugs a webhook
// may subscribe to (besides "*" and "prefix.*" over them): a charge's
// life, a notification's fate, a debtor's enrollment in a collection
// rule, and the test event.
var webhookEventSlugs = []string{
	"dunning.charge.created",
	"dunning.charge.overdue",
	"dunning.charge.paid",
	"dunning.charge.canceled",
	ledger.EventChargeWaived,
	ledger.EventPaymentRecorded,
	ledger.EventPixUnmatched,
	"dunning.notification.sent",
	"dunning.notification.delivered",
	"dunning.notification.failed",
	"dunning.enrollment.started",
	"dunning.enrollment.completed",
	"dunning.enrollment.stopped",
	files.EventDocumentReady,
	files.EventExportReady,
	escalation.EventCreditReportRequested,
	escalation.EventCreditReportConfirmed,
	escalation.EventCreditReportFailed,
	escalation.EventCreditReportRemoved,
	escalation.EventCreditReportRemovalOverdue,
	escalation.EventProtestRequested,
	escalation.EventProtestConfirmed,
	escalation.EventProtestFailed,
	escalation.EventProtestCanceled,
	escalation.EventAgreementProposed,
	escalation.EventAgreementAccepted,
	escalation.EventAgreementBroken,
	escalation.EventAgreementSettled,
	escalation.EventAgreementCanceled,
	webhooks.TestEventSlug,
}

// layered is svc seen through every layer of Dunning, bottom up: the
// ledger, the collection plans, the notifications, the files, the
// escalation. Each layer's Service embeds the one below, so the one
// returned reaches every operation, and each register function is handed
// the layer it belongs to.
func layered(svc *ledger.Service) *escalation.Service {
	plans := &collection.Service{Service: svc}
	notices := &notify.Service{Service: plans}
	docs := &files.Service{Service: notices}
	return &escalation.Service{Service: docs}
}

func build(b *productkit.Builder, cfg *ledger.ChannelConfig, configure func(*escalation.Service), tune func(*regua.Notifier)) error {
	deps := b.Deps
	// Writes replay their first answer for a repeated X-Idempotency-Key,
	// per organization, for 24 h (platform/idempotency).
	var idem rest.Idempotency
	if deps.DB != nil {
		idem = idempotency.New(deps.DB, idempotency.Options{Namespace: "dunning"})
	}
	// Every answer of the API spells its error code in upper case
	// (dunning/ledger's errors.go).
	api := b.API(rest.Config{MaxBodyBytes: ledger.MaxBodyBytes, ErrorCodes: ledger.ErrorCodes, Idempotency: idem})
	acc := accounts.New(deps.DB, accounts.Options{Watch: deps.Changes})
	hooks := webhooks.New(deps.DB, deps.Jobs, webhooks.Config{Product: "dunning", SealingSecret: deps.Secret,
		AllowPrivateTargets: deps.Webhooks.AllowPrivateTargets, Retries: deps.Webhooks.Retries, Logger: deps.Logger})
	// One service, seen through its layers (docs/decisions.md "Product
	// code layout (issue 24)"): each sub-package's Service embeds the one
	// below and adds its own operations, so the ledger at the bottom is
	// shared by all, and no layer can call one above it.
	svc := ledger.NewService(deps.DB, acc, deps.Jobs, hooks, deps.Logger)
	svc.Nonces = deps.Nonces()
	esc := layered(svc)
	docs := esc.Service
	notices := docs.Service
	plans := notices.Service
	if configure != nil {
		configure(esc)
	}
	// Who the caller is and the settings; debtors; charges and payments.
	ledger.RegisterMe(api, svc)
	ledger.RegisterDebtors(api, svc)
	ledger.RegisterCharges(api, svc)
	// Pix received through the creditor's PSP webhook, reconciled into
	// payments (dunning/ledger's pix_webhook.go), and its tools.
	ledger.RegisterPixReceived(api, svc, deps.PublicURL)
	ledger.MountPixWebhook(b, svc, cfg.PixWebhook)
	// The organization is Dunning's only tenant; lists page by number; a
	// delivery is sent again by "retry".
	webhookapi.Register(api, svc.Hooks, webhookapi.Options{
		Product:    ledger.ServerTitle,
		Prefix:     "dunning_",
		ReplayVerb: "retry",
		Scope:      "dunning.webhooks",
		Events:     webhookEventSlugs,
		Tenancy:    svc.Tenancy,
		Lists:      restkit.NumberedList,
		EventData:  webhookapi.OrganizationData(acc),
		// Seed 002: idempotentHint is false on ordinary writes, an update
		// of a webhook included (the Inbox's and Kadu's seeds say true).
		Annotations: map[webhookapi.Op]mcp.ToolAnnotations{webhookapi.Update: restkit.Write(false)},
	})
	// Collection plans, their steps, enrollments and the preview
	// (dunning/collection: plans.go, steps.go, enrollments.go, preview.go).
	collection.RegisterCollectionPlans(api, plans)
	// Documents, exports and the creditor they print (dunning/files'
	// document_api.go).
	files.RegisterFiles(b, api, docs)
	// Notifications, channels, approvals and the scheduler (dunning/regua's
	// notify.go).
	if err := regua.RegisterNotify(b, api, esc, *cfg, tune); err != nil {
		return err
	}
	// Credit-bureau reports, protests and agreements (dunning/escalation:
	// commands.go, credit_reports.go, agreements.go), and the escalating
	// steps.
	if err := escalation.RegisterEscalation(b, api, esc, *cfg); err != nil {
		return err
	}
	// The debtor page at each debtor's signed link, and its link's
	// operations (dunning/portal).
	portal.Register(b, api, esc, cfg.LinkBase)
	// The approval page names each destructive tool in its own language.
	b.Approvals(productkit.Approvals{ToolTitles: toolTitles})
	b.MCP(ledger.MCPOptions, restbridge.Options{Logger: deps.Logger})
	b.Catalog(catalogExtras) // resources, templates and prompts (resources.go, prompts.go)
	if deps.DB != nil {
		b.Collect(svc.Hooks.Collector(), svc.CountMismatches)
	}
	return nil
}
