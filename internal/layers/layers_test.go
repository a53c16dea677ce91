package layers

import (
	"strings"
	"testing"
)

// TestImportRules checks the real package graph of the module (go list)
// against the floors: a new import that points the wrong way fails here.
func TestImportRules(t *testing.T) {
	t.Parallel()
	graph, err := Graph("../..")
	if err != nil {
		t.Fatal(err)
	}
	if len(graph) < 20 {
		t.Fatalf("go list found only %d packages", len(graph))
	}
	for _, v := range Check(graph) {
		t.Error(v)
	}
}

// TestCheckRefusesEachKindOfViolation: each rule, broken once, is named.
func TestCheckRefusesEachKindOfViolation(t *testing.T) {
	t.Parallel()
	m := func(p string) string { return Module + "/" + p }
	cases := []struct {
		from, to, want string
	}{
		{"mcp", "platform/identity", "mcp knows nothing"},
		{"mcp/restbridge", "rest", "mcp knows nothing"},
		{"inbox", "dunning", "never imports another product"},
		{"kadu/runtime", "inbox/extract", "never imports another product"},
		{"platform/httpx", "productkit", "productkit is a floor above platform"},
		{"platform/webhooks", "oauth/server", "oauth is a floor above platform"},
		{"platform/jobs", "inbox", "inbox is a floor above platform"},
		{"platform/bankcalendar", "dunning/ledger", "dunning is a floor above platform"},
		{"kadu", "dunning/ledger", "never imports another product"},
		{"oauth", "productkit/approval", "productkit is a floor above oauth"},
		{"productkit", "kadu", "kadu is a floor above productkit"},
		{"rest", "platform/store", "platform is a floor above rest"},
		{"mcp_test", "rest", "mcp knows nothing"},
		{"inbox_test", "kadu", "never imports another product"},
	}
	for _, c := range cases {
		got := Check(map[string][]string{m(c.from): {m(c.to)}})
		if len(got) != 1 || !strings.Contains(got[0], c.want) {
			t.Errorf("%s → %s: %v, want one violation saying %q", c.from, c.to, got, c.want)
		}
	}
	allowed := map[string][]string{
		m("mcp/restbridge"):    {m("mcp"), m("internal/jsonscan"), "net/http"},
		m("rest"):              {m("mcp"), m("mcp/restbridge")},
		m("platform/webhooks"): {m("platform/safehttp"), m("platform/jobs")},
		m("oauth/server"):      {m("platform/identity"), m("oauth")},
		m("productkit"):        {m("oauth/server"), m("rest"), m("platform/jobs")},
		m("inbox"):             {m("productkit"), m("platform/brazil"), m("inbox/extract")},
		m("dunning/ledger"):    {m("platform/bankcalendar")},
		m("kadu"):              {m("platform/bankcalendar")},
		m("cmd/kobana-mcp"):    {m("inbox"), m("dunning"), m("kadu")},
	}
	if got := Check(allowed); len(got) != 0 {
		t.Errorf("allowed imports refused: %v", got)
	}
}
