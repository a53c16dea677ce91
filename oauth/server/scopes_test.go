package server_test

import (
	"testing"

	"github.com/kobana/kobana-mcp/oauth/server"
	"github.com/kobana/kobana-mcp/platform/pagetext"
)

// testScopeDescriptions stand for what a product's Spec declares
// (productkit.Spec.ScopeDescriptions); the test server is given them as
// the binary gives a product's.
var testScopeDescriptions = map[string]pagetext.Phrase{
	"inbox.emails":  {PT: "Ler os e-mails que as suas caixas receberam e agir sobre eles", EN: "Read the e-mails your inboxes received, and act on them"},
	"inbox.inboxes": {PT: "Ver e gerenciar as suas caixas de entrada", EN: "See and manage your inboxes (the addresses that receive e-mail)"},
}

// TestScopeDescriptionsComeFromTheProduct: the consent page's words for a
// scope are the ones the server was given, offline_access keeps the
// server's own (the catalogue's), a scope without words shows its name,
// and each is in the page's language.
func TestScopeDescriptionsComeFromTheProduct(t *testing.T) {
	e := newEnvSQLite(t)
	pt, en := pagetext.In(pagetext.PortugueseBR), pagetext.In(pagetext.English)
	for scope, want := range map[string][2]string{
		"inbox.emails":        {testScopeDescriptions["inbox.emails"].PT, testScopeDescriptions["inbox.emails"].EN},
		server.OfflineAccess:  {"Manter o acesso quando você não o estiver usando, sem perguntar de novo", "Keep its access when you are not using it, without asking you again"},
		"inbox.system_events": {"inbox.system_events", "inbox.system_events"},
		"dunning.debtors":     {"dunning.debtors", "dunning.debtors"},
	} {
		if got := e.as.ScopeDescription(pt, scope); got != want[0] {
			t.Errorf("pt-BR ScopeDescription(%q) = %q, want %q", scope, got, want[0])
		}
		if got := e.as.ScopeDescription(en, scope); got != want[1] {
			t.Errorf("en ScopeDescription(%q) = %q, want %q", scope, got, want[1])
		}
	}
	other := newEnvSQLite(t, func(c *server.Config) {
		c.ScopeDescriptions = map[string]pagetext.Phrase{"inbox.emails": {PT: "Outra coisa", EN: "Something else"}}
	})
	if got := other.as.ScopeDescription(pt, "inbox.emails"); got != "Outra coisa" {
		t.Errorf("another server's description: %q", got)
	}
}
