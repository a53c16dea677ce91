package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/productkit"
)

const tokenUsage = `Prints an access token for a product's MCP endpoint (or its API), signed
by the built-in authorization server's keys, for scripts and tests:

  TOKEN=$(kobana-mcp token --product inbox --user owner@demo.local)
  curl -H "Authorization: Bearer $TOKEN" ...

The token is bound to the product's issuer and resource, so use the same
--data-dir / --database-url, --state-secrets and --<product>-public-url (or
--<product>-addr) as the serve that will verify it.
`

// tokenCmd mints a developer token. It signs exactly as the built-in
// authorization server does, and the token is verified exactly like one
// from a real sign-in: same issuer, audience, scopes and role lookup.
func tokenCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var s settings
	db := addDBFlags(&s)
	secrets := s.Add("state-secrets", "KOBANA_STATE_SECRETS", "", "the deployment secrets, as given to serve")
	specs := products()
	pf, _ := addProductFlags(&s, specs, false)
	product := s.Add("product", "", "inbox", "inbox, dunning or kadu")
	user := s.Add("user", "", "", "the person's e-mail")
	org := s.Add("org", "", "", "organization id or name (needed when the person belongs to several)")
	scopes := s.Add("scopes", "", "", "comma-separated scopes (default: every scope of the product)")
	ttl := s.Add("ttl", "", "15m", "lifetime of the token")
	resource := s.Add("resource", "", "mcp", "mcp (the MCP endpoint) or api (the REST API)")
	if code := parseCmd(s, "token", args, stderr); code >= 0 {
		if code == 0 {
			fmt.Fprint(stderr, "\n"+tokenUsage)
		}
		return code
	}
	if code := required(stderr, "token", map[string]*string{"user": user}); code >= 0 {
		return code
	}
	var spec *productkit.Spec
	for _, p := range specs {
		if p.Key == *product {
			spec = p
		}
	}
	if spec == nil {
		return fail(stderr, "token", fmt.Errorf("unknown product %q (%s)", *product, productKeys()))
	}
	lifetime, err := time.ParseDuration(*ttl)
	if err != nil || lifetime <= 0 || lifetime > 24*time.Hour {
		return fail(stderr, "token", fmt.Errorf("--ttl must be a duration between 1s and 24h"))
	}
	all := spec.Scopes()
	granted := all
	if *scopes != "" {
		granted = splitList(*scopes)
		for _, sc := range granted {
			if !slices.Contains(all, sc) {
				return fail(stderr, "token", fmt.Errorf("%s is not a scope of %s (scopes: %s)", sc, spec.Key, strings.Join(all, ", ")))
			}
		}
	}
	// The issuer is the product's public URL: as given, else as the
	// running serve recorded it in the data directory, else the default
	// address.
	public := pf[spec.Key].public(*pf[spec.Key].addr)
	if !s.Explicit(spec.Key+"-public-url") && !s.Explicit(spec.Key+"-addr") {
		if u := recordedEndpoint(*db.dataDir, spec.Key); u != "" {
			public = u
		}
	}
	audience := public + "/mcp"
	if *resource == "api" {
		audience = public + spec.APIBase
	} else if *resource != "mcp" {
		return fail(stderr, "token", fmt.Errorf("--resource must be mcp or api"))
	}
	_, secret, err := loadSealer(*secrets, *db.dataDir)
	if err != nil {
		return fail(stderr, "token", err)
	}
	conn, _, err := openMigrated(ctx, *db.dataDir, *db.url)
	if err != nil {
		return fail(stderr, "token", err)
	}
	defer conn.Close()
	acc := accounts.New(conn, accounts.Options{})
	u, err := findUser(ctx, acc, *user)
	if err != nil {
		return fail(stderr, "token", err)
	}
	members, err := acc.Memberships(ctx, u.ID)
	if err != nil {
		return fail(stderr, "token", err)
	}
	var orgID string
	switch {
	case *org != "":
		o, err := findOrganization(ctx, acc, *org)
		if err != nil {
			return fail(stderr, "token", err)
		}
		orgID = o.ID
		if !slices.ContainsFunc(members, func(m accounts.Membership) bool { return m.OrganizationID == orgID }) {
			return fail(stderr, "token", fmt.Errorf("%s does not belong to organization %s", u.Email, o.Name))
		}
	case len(members) == 1:
		orgID = members[0].OrganizationID
	case len(members) == 0:
		return fail(stderr, "token", fmt.Errorf("%s belongs to no organization", u.Email))
	default:
		return fail(stderr, "token", fmt.Errorf("%s belongs to %d organizations; choose one with --org", u.Email, len(members)))
	}
	keys, err := builtInKeys(conn, secret)
	if err != nil {
		return fail(stderr, "token", err)
	}
	is := &oauth.Issuer{URL: public, Keys: keys}
	tok, _, err := is.Issue(oauth.Grant{Subject: u.ID, UserID: u.ID, Email: u.Email, OrganizationID: orgID, ClientID: "kobana-mcp-cli",
		Audience: audience, Scopes: granted, TTL: lifetime})
	if err != nil {
		return fail(stderr, "token", err)
	}
	fmt.Fprintln(stdout, tok)
	return 0
}
