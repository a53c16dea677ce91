package server

import "slices"

// OfflineAccess is the scope a client asks for to say it wants to stay
// connected. Refresh tokens are issued to every client allowed the
// refresh_token grant whether or not it asks (access tokens live 15
// minutes; a client that could not refresh would send its person back to
// the sign-in page four times an hour), so the scope only documents the
// intent; it is granted when asked and never put in an access token.
const OfflineAccess = "offline_access"

// scopeDescriptions say, in plain words, what a person allows when they
// grant a scope. The consent page shows them; a scope without one shows its
// name.
var scopeDescriptions = map[string]string{
	OfflineAccess: "Keep its access when you are not using it, without asking you again",

	"inbox.workspaces":    "See and manage your workspaces",
	"inbox.inboxes":       "See and manage your inboxes (the addresses that receive e-mail)",
	"inbox.emails":        "Read the e-mails your inboxes received, and act on them",
	"inbox.agents":        "See and configure the agents that process your e-mail",
	"inbox.agent_runs":    "See what your agents did and start them again",
	"inbox.webhooks":      "See and manage the webhooks that notify your other systems",
	"inbox.system_events": "Read the activity log of your account",

	"dunning.debtors":        "See and manage your debtors",
	"dunning.charges":        "See and manage the charges owed to you",
	"dunning.plans":          "See and manage your collection plans (what is sent, and when)",
	"dunning.notifications":  "See and send reminders to your debtors",
	"dunning.agreements":     "See and make payment agreements with debtors",
	"dunning.credit_reports": "Report debtors to credit bureaus, and withdraw reports",
	"dunning.protests":       "See and manage protests of unpaid bills",
	"dunning.documents":      "See and generate documents",
	"dunning.exports":        "Export your data",
	"dunning.webhooks":       "See and manage the webhooks that notify your other systems",

	"kadu.tasks":      "See, create and run your tasks",
	"kadu.executions": "See task runs and what they produced",
	"kadu.files":      "Upload and download files",
	"kadu.approvals":  "See and decide what waits for your approval",
	"kadu.webhooks":   "See and manage the webhooks that notify your other systems",
}

// ScopeDescription is the plain-words description of scope, or the scope
// itself when none is written.
func ScopeDescription(scope string) string {
	if d, ok := scopeDescriptions[scope]; ok {
		return d
	}
	return scope
}

// grantableScopes returns what a request for requested may be granted on
// a product offering offered: the requested product scopes, or all of
// them when the request names none of them (nothing requested, or only
// scopes of no meaning here, such as "openid" or another product's);
// offline_access is kept when asked for. Order follows offered.
func grantableScopes(requested, offered []string) []string {
	var out []string
	for _, s := range offered {
		if slices.Contains(requested, s) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		out = append(out, offered...)
	}
	if slices.Contains(requested, OfflineAccess) {
		out = append(out, OfflineAccess)
	}
	return out
}
