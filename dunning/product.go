package dunning

import (
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/rest"
)

// New builds the Dunning listener: its REST API and the MCP endpoint whose
// tools mirror it.
func New(deps productkit.Deps) (*productkit.Product, error) {
	auth := deps.ProductAuth(APIBase, identity.DunningScopes, ServerTitle)
	api := rest.New(rest.Config{Authorize: auth.APIAuthorize(), Title: ServerTitle + " API", Version: ServerVersion, BasePath: APIBase, MaxBodyBytes: MaxBodyBytes, Logger: deps.Logger})
	bridge := restbridge.New(api, restbridge.Options{Logger: deps.Logger})
	opts := MCPOptions(deps)
	deps.Protect(auth, &opts)
	h, err := mcp.NewHandler(opts, mcp.Catalog{Tools: api.Tools(bridge)})
	if err != nil {
		return nil, err
	}
	mux := productkit.Mux(h, APIBase, api)
	auth.MountIfAny(mux)
	return &productkit.Product{Key: "dunning", Name: ServerName, DefaultAddr: "127.0.0.1:8082", Handler: mux}, nil
}
