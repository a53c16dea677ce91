package kadu

import (
	"flag"
	"testing"

	"github.com/kobana/kobana-mcp/productkit/catalogtest"
)

var updateGolden = flag.Bool("update", false, "rewrite Kadu's golden catalog snapshots")

// TestCatalogGolden pins Kadu's whole MCP surface to testdata/golden/*.json,
// built from its spec without a database. Run with -update to accept a
// change on purpose.
func TestCatalogGolden(t *testing.T) {
	catalogtest.Golden(t, Spec(), "testdata/golden", *updateGolden)
}
