package inbox

import (
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
	"github.com/kobana/kobana-mcp/platform/app"
	"github.com/kobana/kobana-mcp/rest"
)

// New builds the Inbox listener: its REST API and the MCP endpoint whose
// tools mirror it.
func New(deps app.Deps) (*app.Product, error) {
	api := rest.New(rest.Config{Title: ServerTitle + " API", Version: ServerVersion, BasePath: APIBase, Logger: deps.Logger})
	bridge := restbridge.New(api, restbridge.Options{ForwardHeaders: []string{"X-Workspace-Id", "Accept-Language"}, Logger: deps.Logger})
	h, err := mcp.NewHandler(MCPOptions(deps), mcp.Catalog{Tools: api.Tools(bridge)})
	if err != nil {
		return nil, err
	}
	return &app.Product{Key: "inbox", Name: ServerName, DefaultAddr: "127.0.0.1:8081", Handler: app.Mux(h, APIBase, api)}, nil
}
