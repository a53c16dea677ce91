package main

import (
	"strings"
)

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

func addProductFlags(s *settings) map[string]productFlags {
	pf := map[string]productFlags{}
	for _, p := range products {
		up := strings.ToUpper(p.key)
		f := productFlags{
			addr:      s.add(p.key+"-addr", "KOBANA_"+up+"_ADDR", p.addr, "listen address of the "+p.key+" listener"),
			publicURL: s.add(p.key+"-public-url", "KOBANA_"+up+"_PUBLIC_URL", "", "public base URL of the "+p.key+" listener (default http://ADDR); it is also the issuer of its tokens"),
		}
		if p.key == "inbox" {
			// Only the Inbox takes an allow-list; Dunning accepts its own
			// origin and Kadu its own or localhost, as their seeds say.
			f.origins = s.add("inbox-allowed-origins", "KOBANA_INBOX_ALLOWED_ORIGINS", "", "browser origins allowed on the Inbox MCP endpoint besides loopback ones (comma-separated)")
		}
		pf[p.key] = f
	}
	return pf
}
