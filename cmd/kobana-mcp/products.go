package main

import (
	"strings"

	"github.com/kobana/kobana-mcp/dunning"
	"github.com/kobana/kobana-mcp/inbox"
	"github.com/kobana/kobana-mcp/kadu"
	"github.com/kobana/kobana-mcp/productkit"
)

// products is every product the binary can serve, in the order it starts
// them: the one place the binary names a product. Each call returns fresh
// specs, whose settings bind to a configuration of their own.
func products() []*productkit.Spec {
	return []*productkit.Spec{inbox.Spec(inbox.Config{}), dunning.Spec(), kadu.Spec()}
}

// productKeys is "inbox,dunning,kadu": the default of --products.
func productKeys() string {
	var keys []string
	for _, p := range products() {
		keys = append(keys, p.Key)
	}
	return strings.Join(keys, ",")
}

// productFlags are one product's listener settings, shared by serve and by
// token (which must sign for the very issuer serve verifies).
type productFlags struct{ addr, publicURL, origins *string }

// public is the product's public base URL: the configured one, or
// http://<the address it listens on>.
func (f productFlags) public(listenAddr string) string {
	if u := strings.TrimRight(*f.publicURL, "/"); u != "" {
		return u
	}
	return "http://" + listenAddr
}

// addProductFlags declares every product's listener settings and, when
// withOwn, the product's own settings too (its Spec.Settings); the
// returned checks validate those once parsed.
func addProductFlags(s *settings, specs []*productkit.Spec, withOwn bool) (map[string]productFlags, []func() error) {
	pf := map[string]productFlags{}
	var checks []func() error
	for _, p := range specs {
		up := strings.ToUpper(p.Key)
		f := productFlags{
			addr:      s.Add(p.Key+"-addr", "KOBANA_"+up+"_ADDR", p.DefaultAddr, "listen address of the "+p.Key+" listener"),
			publicURL: s.Add(p.Key+"-public-url", "KOBANA_"+up+"_PUBLIC_URL", "", "public base URL of the "+p.Key+" listener (default http://ADDR); it is also the issuer of its tokens"),
		}
		if p.AllowedOrigins {
			f.origins = s.Add(p.Key+"-allowed-origins", "KOBANA_"+up+"_ALLOWED_ORIGINS", "", "browser origins allowed on the "+p.Title+" MCP endpoint besides loopback ones (comma-separated)")
		}
		pf[p.Key] = f
		if withOwn && p.Settings != nil {
			checks = append(checks, p.Settings(s))
		}
	}
	return pf, checks
}

// runChecks validates the products' own settings after parsing.
func runChecks(checks []func() error) error {
	for _, c := range checks {
		if err := c(); err != nil {
			return err
		}
	}
	return nil
}
