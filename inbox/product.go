package inbox

import (
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/app"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/rest"
)

// New builds the Inbox listener: its REST API and the MCP endpoint whose
// tools mirror it.
func New(deps app.Deps) (*app.Product, error) {
	auth := deps.ProductAuth(APIBase, identity.InboxScopes, ServerTitle)
	api := rest.New(rest.Config{Authorize: auth.APIAuthorize(), Title: ServerTitle + " API", Version: ServerVersion, BasePath: APIBase, Logger: deps.Logger})
	if deps.DB != nil {
		registerWorkspaces(api, accounts.New(deps.DB, accounts.Options{}), deps.Nonces())
	}
	bridge := restbridge.New(api, restbridge.Options{ForwardHeaders: []string{"X-Workspace-Id", "Accept-Language"}, Logger: deps.Logger})
	opts := MCPOptions(deps)
	deps.Protect(auth, &opts)
	h, err := mcp.NewHandler(opts, mcp.Catalog{Tools: api.Tools(bridge)})
	if err != nil {
		return nil, err
	}
	mux := app.Mux(h, APIBase, api)
	auth.MountIfAny(mux)
	return &app.Product{Key: "inbox", Name: ServerName, DefaultAddr: "127.0.0.1:8081", Handler: mux}, nil
}
