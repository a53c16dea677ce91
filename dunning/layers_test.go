package dunning

import (
	"testing"

	"github.com/kobana/kobana-mcp/internal/layers"
)

// dunningLayers are Dunning's sub-domains bottom up (docs/dunning.md
// "Code layout"): the ledger (debtors, charges, payments, settings), the
// collection plans, the notifications, the files (documents, exports),
// the escalation (bureaus, protests, agreements), the debtor page, the
// régua that runs them; the root assembles the Spec, resources and
// prompts.
var dunningLayers = []string{"ledger", "collection", "notify", "files", "escalation", "portal", "regua"}

// TestLayersPointDown: no Dunning package imports one of a layer above
// it, and the foundations (calendar, latefee, lifecycle, …) import no
// layer: the sub-domains' cycles cannot come back.
func TestLayersPointDown(t *testing.T) {
	t.Parallel()
	graph, err := layers.Graph("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := graph[layers.Module+"/dunning/ledger"]; !ok {
		t.Fatal("go list does not show dunning/ledger")
	}
	for _, v := range layers.CheckWithin(graph, layers.Module+"/dunning", dunningLayers) {
		t.Error(v)
	}
}
