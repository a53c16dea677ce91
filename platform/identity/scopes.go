package identity

// Scopes of each product, one per resource, as the products' public APIs
// name them (inbox.<resource>, dunning.<resource>, kadu.<resource>).
var (
	InboxScopes = []string{
		"inbox.workspaces", "inbox.inboxes", "inbox.emails", "inbox.agents",
		"inbox.agent_runs", "inbox.webhooks", "inbox.system_events",
	}
	DunningScopes = []string{
		"dunning.debtors", "dunning.charges", "dunning.plans", "dunning.notifications",
		"dunning.agreements", "dunning.credit_reports", "dunning.protests",
		"dunning.documents", "dunning.exports", "dunning.webhooks",
	}
	KaduScopes = []string{
		"kadu.tasks", "kadu.executions", "kadu.files", "kadu.approvals", "kadu.webhooks",
	}
)

// ProductScopes maps a product key to its scopes.
var ProductScopes = map[string][]string{
	"inbox":   InboxScopes,
	"dunning": DunningScopes,
	"kadu":    KaduScopes,
}
