package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/oauth/server/sqlstore"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/store"
)

// authFlags choose who issues the tokens the endpoints accept: the
// built-in authorization server (default), or an external one a company
// already runs.
type authFlags struct{ issuer, jwksURL, devInsecureCIMD *string }

func addAuthFlags(s *settings) authFlags {
	return authFlags{
		issuer:  s.Add("oauth-issuer", "KOBANA_OAUTH_ISSUER", "", "trust an external authorization server with this issuer instead of the built-in one"),
		jwksURL: s.Add("oauth-jwks-url", "KOBANA_OAUTH_JWKS_URL", "", "JWKS URL of the external authorization server (with --oauth-issuer)"),
		devInsecureCIMD: s.Add("oauth-dev-allow-insecure-client-metadata", "KOBANA_OAUTH_DEV_ALLOW_INSECURE_CLIENT_METADATA", "false",
			"DEVELOPMENT AND TESTS ONLY: accept http and loopback client metadata document URLs (an SSRF hole in production)"),
	}
}

// verification is what every product's resource servers share.
type verification struct {
	external string
	keys     oauth.KeySource
	keySet   *oauth.KeySet // the built-in key set (also when an external issuer is trusted)
	roles    oauth.RoleLookup
	// changes is the process's one watch of identity and tenancy changes,
	// which the role cache and every product's workspace pick trust their
	// entries by (accounts.ChangeWatch).
	changes *accounts.ChangeWatch
}

// issuer is the issuer a product's tokens must come from: the external one
// when configured, else the product's own listener (the built-in server).
func (v *verification) issuer(public string) string {
	if v.external != "" {
		return v.external
	}
	return public
}

// builtInKeys loads (or creates) the built-in authorization server's signing
// keys, kept sealed in the database so every replica shares them.
func builtInKeys(db *store.DB, secret []byte) (*oauth.KeySet, error) {
	ks, err := oauth.NewDBKeyStore(db, secret)
	if err != nil {
		return nil, err
	}
	return oauth.NewKeySet(ks, oauth.KeySetOptions{})
}

func (f authFlags) verification(ctx context.Context, db *store.DB, secret []byte) (*verification, error) {
	keySet, err := builtInKeys(db, secret)
	if err != nil {
		return nil, fmt.Errorf("signing keys: %w", err)
	}
	changes := accounts.NewChangeWatch(ctx, db, 0)
	v := &verification{keys: oauth.KeySetSource{Keys: keySet}, keySet: keySet, changes: changes,
		// The role and grant read, cached until a change is noted here or
		// announced by another replica, at most a second (sqlstore.RoleCache).
		roles: sqlstore.NewRoleCache(ctx, db, sqlstore.RoleCacheOptions{Watch: changes}).Lookup}
	if *f.issuer != "" {
		if *f.jwksURL == "" {
			return nil, errors.New("--oauth-issuer needs --oauth-jwks-url")
		}
		v.external = *f.issuer
		v.keys = &oauth.RemoteJWKS{URL: *f.jwksURL}
	}
	return v, nil
}
