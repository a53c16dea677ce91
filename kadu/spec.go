package kadu

import (
	"context"
	"net/http"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/productkit/approval"
	"github.com/kobana/kobana-mcp/rest"
)

// Spec is Kadu as the binary serves it: its listener, its API at /api/v1
// whose operations its MCP tools mirror, and the approval link for
// destructive calls a client cannot confirm.
func Spec() *productkit.Spec {
	return &productkit.Spec{
		Key:         "kadu",
		Name:        ServerName,
		Title:       ServerTitle,
		Version:     ServerVersion,
		DefaultAddr: "127.0.0.1:8083",
		APIBase:     APIBase,
		Build:       build,
	}
}

func build(b *productkit.Builder) error {
	b.API(rest.Config{MaxBodyBytes: MaxBodyBytes})
	b.MCP(MCPOptions, restbridge.Options{Logger: b.Deps.Logger})
	// Destructive calls a client cannot confirm get an approval link
	// (approvals.go) when there is a database and the built-in sign-in.
	var approvals *approval.Policy
	b.Unconfirmable(func(tools []mcp.Tool) (mcp.ConfirmPolicy, error) {
		p, err := approvalPolicy(b.Deps, b.Auth, tools)
		if err != nil || p == nil {
			return nil, err
		}
		approvals = p
		return p, nil
	})
	b.Routes(func(mux *http.ServeMux) {
		if approvals != nil {
			approvals.Routes(mux)
		}
	})
	b.Lifecycle(nil, func(ctx context.Context) error {
		if approvals == nil {
			return nil
		}
		return approvals.Close(ctx)
	}, nil)
	return nil
}
