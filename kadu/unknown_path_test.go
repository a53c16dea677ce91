package kadu

import (
	"testing"

	"github.com/kobana/kobana-mcp/productkit/catalogtest"
)

// A path the listener does not serve answers a JSON 404 naming the MCP
// endpoint and the API base, not net/http's bare "404 page not found".
func TestUnknownPathNamesTheDoors(t *testing.T) {
	t.Parallel()
	catalogtest.UnknownPaths(t, Spec(), "not_found", "/v1/mcp")
}
