package dunning

import (
	"flag"
	"testing"

	"github.com/kobana/kobana-mcp/productkit/catalogtest"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden catalog snapshots and the tool reference")

// TestCatalogGolden pins the product's whole MCP surface to testdata/golden
// (one file per tool under tools/, their order in tools/index.json), built
// from its spec without a database. Run with -update to accept a change on
// purpose.
func TestCatalogGolden(t *testing.T) {
	catalogtest.Golden(t, Spec(), "testdata/golden", *updateGolden)
}

// TestApprovalToolTitles: the approval page has a title in both of its
// languages for every destructive tool (toolTitles).
func TestApprovalToolTitles(t *testing.T) {
	t.Parallel()
	catalogtest.ToolTitles(t, Spec(), toolTitles)
}

// TestReferenceDoc keeps docs/tools/dunning.md, the product's tool reference,
// what its declarations say.
func TestReferenceDoc(t *testing.T) {
	catalogtest.ReferenceDoc(t, Spec(), "../docs/tools/dunning.md", *updateGolden)
}
