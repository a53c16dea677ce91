package kadu

import (
	"time"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/productkit/approval"
)

// approvalPolicy is Kadu's answer to a destructive call from a client that
// cannot confirm it in the chat (docs/decisions.md "Approval link"): an approval link
// to a page of this listener, where the person who made the call sees
// exactly what will run and chooses Continuar or Cancelar
// (productkit/approval). It needs the database (the approvals) and the
// built-in authorization server (the page's sign-in); without either it is
// nil and MCPOptions' Refuse stays. Approved calls run as jobs on
// deps.Jobs; a process with the queue but no sign-in (the worker) gets a
// policy that only runs them, and offers no links.
func approvalPolicy(deps productkit.Deps, auth *productkit.Auth, tools []mcp.Tool, owners map[string]approval.Owner) (*approval.Policy, error) {
	if deps.DB == nil || auth == nil || (deps.AuthServer == nil && deps.Jobs == nil) {
		return nil, nil
	}
	var signIn approval.SignIn
	if deps.AuthServer != nil {
		signIn = deps.AuthServer
	}
	// Kadu is Brazilian first: times on the pages in Brasília time when
	// the system knows the zone.
	loc, err := time.LoadLocation("America/Sao_Paulo")
	if err != nil {
		loc = time.UTC
	}
	log := deps.Logger
	if log != nil {
		log = log.With("component", "approval")
	}
	return approval.New(approval.Options{
		DB: deps.DB, PublicURL: deps.PublicURL, ProductName: ServerTitle, Tools: tools,
		SignIn: signIn, Jobs: deps.Jobs, Roles: deps.Roles, Access: auth.MCP.Access, Location: loc, Logger: log,
		// An execution's destructive step is approved on the same page; the
		// decision resumes the execution (kadu/runtime approvals.go,
		// Runtime.ApprovalDecided).
		Owners: owners,
	})
}
