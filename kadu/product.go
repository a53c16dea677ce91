package kadu

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/rest"
)

// localhostOrigins accepts any origin on localhost, 127.0.0.0/8 or [::1],
// whatever host the request was addressed to: the seed lets local tools
// (a desktop client's web view, the Inspector) reach Kadu.
func localhostOrigins(origin string, _ *http.Request) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	h := u.Hostname()
	return strings.EqualFold(h, "localhost") || h == "::1" || strings.HasPrefix(h, "127.")
}

// New builds the Kadu listener: its REST API and the MCP endpoint whose
// tools mirror it.
func New(deps productkit.Deps) (*productkit.Product, error) {
	auth := deps.ProductAuth(APIBase, identity.KaduScopes, ServerTitle)
	api := rest.New(rest.Config{Authorize: auth.APIAuthorize(), Title: ServerTitle + " API", Version: ServerVersion, BasePath: APIBase, MaxBodyBytes: MaxBodyBytes, Logger: deps.Logger})
	bridge := restbridge.New(api, restbridge.Options{Logger: deps.Logger})
	opts := MCPOptions(deps)
	deps.Protect(auth, &opts)
	tools := api.Tools(bridge)
	// Destructive calls a client cannot confirm get an approval link
	// (approvals.go) when there is a database and the built-in sign-in.
	approvals, err := approvalPolicy(deps, auth, tools)
	if err != nil {
		return nil, err
	}
	if approvals != nil {
		opts.Confirm.Unconfirmable = approvals
	}
	h, err := mcp.NewHandler(opts, mcp.Catalog{Tools: tools})
	if err != nil {
		return nil, err
	}
	mux := productkit.Mux(h, APIBase, api)
	auth.MountIfAny(mux)
	p := &productkit.Product{Key: "kadu", Name: ServerName, DefaultAddr: "127.0.0.1:8083", Handler: mux}
	if approvals != nil {
		approvals.Routes(mux)
		p.Shutdown = approvals.Close
	}
	return p, nil
}
