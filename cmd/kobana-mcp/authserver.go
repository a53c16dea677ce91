package main

import (
	"log/slog"
	"net/http"

	"github.com/kobana/kobana-mcp/oauth/server"
	"github.com/kobana/kobana-mcp/oauth/server/sqlstore"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/app"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
)

// withAuthServer mounts the built-in authorization server beside a product
// on the product's own listener, so the product's origin is its issuer and
// 2025-03-26 clients find /authorize, /token and /register where they look.
// With an external issuer configured, the product is served alone.
func withAuthServer(spec productSpec, product http.Handler, public string, db *store.DB, v *verification, f authFlags, log *slog.Logger) (http.Handler, error) {
	if v.external != "" {
		return product, nil
	}
	as, err := server.New(server.Config{
		Issuer:            public,
		ProductName:       spec.title,
		Resources:         []string{public + app.MCPPath, public + spec.apiBase},
		Scopes:            identity.ProductScopes[spec.key],
		Keys:              v.keySet,
		Store:             sqlstore.New(db),
		Accounts:          sqlstore.Accounts{Store: accounts.New(db, accounts.Options{})},
		Logger:            log.With("product", spec.key, "component", "oauth"),
		AllowInsecureCIMD: *f.devInsecureCIMD == "true",
	})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	as.Routes(mux)
	mux.Handle("/", product)
	return mux, nil
}
