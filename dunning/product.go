package dunning

import (
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
	"github.com/kobana/kobana-mcp/platform/app"
	"github.com/kobana/kobana-mcp/rest"
)

// New builds the Dunning listener: its REST API and the MCP endpoint whose
// tools mirror it.
func New(deps app.Deps) (*app.Product, error) {
	api := rest.New(rest.Config{Title: ServerTitle + " API", Version: ServerVersion, BasePath: APIBase, MaxBodyBytes: MaxBodyBytes, Logger: deps.Logger})
	bridge := restbridge.New(api, restbridge.Options{Logger: deps.Logger})
	h, err := mcp.NewHandler(MCPOptions(deps), mcp.Catalog{Tools: api.Tools(bridge)})
	if err != nil {
		return nil, err
	}
	return &app.Product{Key: "dunning", Name: ServerName, DefaultAddr: "127.0.0.1:8082", Handler: app.Mux(h, APIBase, api)}, nil
}
