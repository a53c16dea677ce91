package dunning

import (
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
)

// catalogExtras are what Dunning's MCP endpoint offers besides the tools
// its operations make: the resource templates and the prompts, each with
// completions for its ids.
func catalogExtras(b *restbridge.Bridge, _ []mcp.Tool) (mcp.Catalog, error) {
	return mcp.Catalog{ResourceTemplates: resourceTemplates(b), Prompts: prompts(b)}, nil
}
