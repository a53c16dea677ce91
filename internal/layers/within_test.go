package layers

import (
	"strings"
	"testing"
)

// CheckWithin: a layer may import those below it and the foundations;
// every import up, into the root, or from a foundation into a layer is
// named.
func TestCheckWithinRefusesImportsUp(t *testing.T) {
	t.Parallel()
	root := Module + "/dunning"
	order := []string{"ledger", "collection", "notify"}
	m := func(p string) string { return root + "/" + p }
	allowed := map[string][]string{
		m("collection"):       {m("ledger"), m("calendar"), "context", Module + "/platform/store"},
		m("notify"):           {m("ledger"), m("collection"), m("lifecycle")},
		m("ledger"):           {m("calendar"), m("lifecycle")},
		m("calendar"):         {m("lifecycle")},
		root:                  {m("notify"), m("ledger")},
		root + "_test":        {root, m("notify")},
		m("ledger") + "_test": {m("notify")}, // an external test drives it from above
	}
	if got := CheckWithin(allowed, root, order); len(got) != 0 {
		t.Errorf("allowed imports refused: %v", got)
	}
	cases := []struct{ from, to, want string }{
		{m("ledger"), m("collection"), "layer collection is above layer ledger"},
		{m("collection"), m("notify"), "layer notify is above layer collection"},
		{m("notify"), root, "the product's root is above layer notify"},
		{m("calendar"), m("ledger"), "layer ledger is above a foundation"},
		{m("calendar"), root, "the product's root is above a foundation"},
	}
	for _, c := range cases {
		got := CheckWithin(map[string][]string{c.from: {c.to}}, root, order)
		if len(got) != 1 || !strings.Contains(got[0], c.want) {
			t.Errorf("%s → %s: %v, want one violation saying %q", c.from, c.to, got, c.want)
		}
	}
}
