package dunning

import (
	"github.com/kobana/kobana-mcp/mcp/restbridge"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/rest"
)

// Spec is Dunning as the binary serves it: its listener and its API at
// /v1, whose operations its MCP tools mirror.
func Spec() *productkit.Spec {
	return &productkit.Spec{
		Key:         "dunning",
		Name:        ServerName,
		Title:       ServerTitle,
		Version:     ServerVersion,
		DefaultAddr: "127.0.0.1:8082",
		APIBase:     APIBase,
		Build:       build,
	}
}

func build(b *productkit.Builder) error {
	b.API(rest.Config{MaxBodyBytes: MaxBodyBytes, ErrorCodes: ErrorCodes})
	b.MCP(MCPOptions, restbridge.Options{Logger: b.Deps.Logger})
	return nil
}
