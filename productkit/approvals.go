package productkit

import (
	"context"
	"errors"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/pagetext"
	"github.com/kobana/kobana-mcp/productkit/approval"
)

// Approvals configure a product's approval link (productkit/approval,
// docs/decisions.md "Approval link"): the answer to a destructive call
// from a client that cannot confirm it in the chat (any 2025 client, a
// 2026-07-28 client without form elicitation). Every product gets the
// link when the process has a database and either the built-in
// authorization server (whose sign-in the pages use) or a job queue (a
// worker, which only runs approved calls); otherwise the product's own
// MCPOptions choice (mcp.Refuse) stays. One confirmation story for every
// product: the same pages, single use and expiry, on the product's own
// listener (approval.PathPrefix).
type Approvals struct {
	// AsResult answers the link as a normal result (approval.LinkResult),
	// as Kadu does. The default answers it inside the seeds'
	// confirmation_required error (approval.LinkError), as the Inbox and
	// Dunning do: a client that stops at the code stops as before, and the
	// person still has a way forward.
	AsResult bool
	// Owners are the handlers of approvals the product asks for itself
	// (approval.Options.Owners; Kadu's executions).
	Owners map[string]approval.Owner
	// Location is the time zone of the pages' times; nil is Brasília time
	// (the pages are for Brazilian companies, in Portuguese unless the
	// browser asks for English).
	Location *time.Location
	// ToolTitles are the product's destructive tools' titles in both of
	// the pages' languages (approval.Options.ToolTitles); a tool without
	// one shows its catalog title, in English.
	ToolTitles map[string]pagetext.Phrase
	// Progress reads what a succeeded call's result started that goes on
	// after it (approval.Options.Progress): Kadu's executions.
	Progress approval.ProgressFunc
}

// approvalPolicy builds the product's approval policy, or nil when the
// process cannot offer it (no database, no authentication, neither a
// sign-in nor a queue). Approved calls run as jobs on Deps.Jobs through
// Deps.Approvals, the queue's one runner, made here when the caller gave
// none.
func (b *Builder) approvalPolicy(tools []mcp.Tool) (*approval.Policy, error) {
	deps := b.Deps
	if deps.DB == nil || b.Auth == nil || (deps.AuthServer == nil && deps.Jobs == nil) {
		return nil, nil
	}
	var signIn approval.SignIn
	if deps.AuthServer != nil {
		signIn = deps.AuthServer
	}
	runners := deps.Approvals
	if runners == nil && deps.Jobs != nil {
		runners = approval.NewRunners(deps.DB, deps.Jobs)
	}
	loc := b.approvals.Location
	if loc == nil {
		loc = Brasilia()
	}
	log := deps.Logger
	if log != nil {
		log = log.With("component", "approval")
	}
	return approval.New(approval.Options{
		DB: deps.DB, PublicURL: deps.PublicURL, ProductName: b.spec.Title, Tools: tools,
		SignIn: signIn, Jobs: deps.Jobs, Runners: runners, Roles: deps.Roles, Access: b.Auth.MCP.Access,
		Location: loc, Logger: log, Owners: b.approvals.Owners, AsError: !b.approvals.AsResult,
		ToolTitles: b.approvals.ToolTitles, Progress: b.approvals.Progress,
	})
}

// Brasilia is America/Sao_Paulo when the system knows the zone, else UTC:
// the time zone of the approval pages, whose readers are in Brazil.
func Brasilia() *time.Location {
	loc, err := time.LoadLocation("America/Sao_Paulo")
	if err != nil {
		return time.UTC
	}
	return loc
}

// withApprovalsClosed is a listener's Shutdown that also waits for the
// approved calls the policy runs in goroutines (without a queue).
func withApprovalsClosed(shutdown func(context.Context) error, p *approval.Policy) func(context.Context) error {
	return func(ctx context.Context) error {
		var err error
		if shutdown != nil {
			err = shutdown(ctx)
		}
		return errors.Join(err, p.Close(ctx))
	}
}
