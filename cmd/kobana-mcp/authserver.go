package main

import (
	"log/slog"
	"net/http"

	"github.com/kobana/kobana-mcp/oauth/server"
	"github.com/kobana/kobana-mcp/oauth/server/sqlstore"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/httpx"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit"
)

// newAuthServer builds the built-in authorization server of a product's
// listener (its issuer is the product's own origin), or nil with an
// external issuer configured. The product gets it too (productkit.Deps.AuthServer):
// its own pages — Kadu's approval page — sign people in through it.
func newAuthServer(spec *productkit.Spec, public string, db *store.DB, v *verification, f authFlags, limiters func(string, server.Limit) server.Limiter, log *slog.Logger) (*server.Server, error) {
	if v.external != "" {
		return nil, nil
	}
	return server.New(server.Config{
		Issuer:            public,
		ProductName:       spec.Title,
		Resources:         []string{public + productkit.MCPPath, public + spec.APIBase},
		Scopes:            spec.Scopes(),
		ScopeDescriptions: spec.ScopeDescriptions, // the consent page's words, from the product
		Keys:              v.keySet,
		Store:             sqlstore.New(db),
		Accounts:          sqlstore.Accounts{Store: accounts.New(db, accounts.Options{})},
		Logger:            log.With("product", spec.Key, "component", "oauth"),
		AllowInsecureCIMD: *f.devInsecureCIMD == "true",
		NewLimiter:        limiters, // shared in Redis when configured (limits.go)
		// Sign-in may return to the approval pages (productkit/approval)
		// and the product's own pages (Kadu's execution page).
		ReturnPaths: spec.ReturnPaths(),
	})
}

// withAuthServer mounts the built-in authorization server beside a product
// on the product's own listener, so 2025-03-26 clients find /authorize,
// /token and /register where they look. With an external issuer (as nil)
// the product is served alone.
func withAuthServer(as *server.Server, product http.Handler) http.Handler {
	if as == nil {
		return product
	}
	mux := http.NewServeMux()
	as.Routes(mux)
	mux.Handle("/", product)
	return httpx.FastPath(mux, productkit.MCPPath, "/")
}
