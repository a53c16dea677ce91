package kadu

import (
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
)

// catalogExtras are what Kadu's MCP endpoint offers besides the tools its
// operations make: the resources, the resource templates and the prompts,
// each with completions for its ids.
func catalogExtras(b *restbridge.Bridge, _ []mcp.Tool) (mcp.Catalog, error) {
	return mcp.Catalog{Resources: resources(b), ResourceTemplates: resourceTemplates(b), Prompts: prompts(b)}, nil
}
