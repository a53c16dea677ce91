package server_test

import (
	"testing"

	"github.com/kobana/kobana-mcp/oauth/server"
)

// testScopeDescriptions stand for what a product's Spec declares
// (productkit.Spec.ScopeDescriptions); the test server is given them as
// the binary gives a product's.
var testScopeDescriptions = map[string]string{
	"inbox.emails":  "Read the e-mails your inboxes received, and act on them",
	"inbox.inboxes": "See and manage your inboxes (the addresses that receive e-mail)",
}

// TestScopeDescriptionsComeFromTheProduct: the consent page's words for a
// scope are the ones the server was given, offline_access keeps the
// server's own, and a scope without words shows its name.
func TestScopeDescriptionsComeFromTheProduct(t *testing.T) {
	e := newEnvSQLite(t)
	for scope, want := range map[string]string{
		"inbox.emails":        testScopeDescriptions["inbox.emails"],
		server.OfflineAccess:  "Keep its access when you are not using it, without asking you again",
		"inbox.system_events": "inbox.system_events",
		"dunning.debtors":     "dunning.debtors",
	} {
		if got := e.as.ScopeDescription(scope); got != want {
			t.Errorf("ScopeDescription(%q) = %q, want %q", scope, got, want)
		}
	}
	other := newEnvSQLite(t, func(c *server.Config) {
		c.ScopeDescriptions = map[string]string{"inbox.emails": "Something else"}
	})
	if got := other.as.ScopeDescription("inbox.emails"); got != "Something else" {
		t.Errorf("another server's description: %q", got)
	}
}
