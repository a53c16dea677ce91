package collection

import (
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/identity"
)

// Permissions of the plans' operations: every role reads, members write,
// admins run what is destructive (deleting, archiving, enrolling a
// charge, which starts contacting its debtor).
var (
	PlansRead   = mcp.Requirement{Scopes: []string{"dunning.plans"}, Permission: identity.PermRead}
	PlansWrite  = mcp.Requirement{Scopes: []string{"dunning.plans"}, Permission: identity.PermWrite}
	plansManage = mcp.Requirement{Scopes: []string{"dunning.plans"}, Permission: identity.PermManage}
)
