package main

import (
	"testing"

	"github.com/kobana/kobana-mcp/oauth"
)

// places names a product's built-in issuer and both resources; with an
// external issuer (not the listener's URL) the issuer names no product.
func TestPlaces(t *testing.T) {
	t.Parallel()
	var p places
	p.add("Kobana Dunning", "dunning", "http://127.0.0.1:8082", "http://127.0.0.1:8082", "/v1")
	p.add("Kadu", "kadu", "http://127.0.0.1:8083", "https://auth.example", "/api/v1")
	for url, want := range map[string]oauth.Place{
		"http://127.0.0.1:8082":        {Product: "Kobana Dunning", Key: "dunning"},
		"http://127.0.0.1:8082/mcp":    {Product: "Kobana Dunning", Key: "dunning", Resource: "mcp"},
		"http://127.0.0.1:8082/v1":     {Product: "Kobana Dunning", Key: "dunning", Resource: "api"},
		"http://127.0.0.1:8083/api/v1": {Product: "Kadu", Key: "kadu", Resource: "api"},
		"http://127.0.0.1:8083/mcp":    {Product: "Kadu", Key: "kadu", Resource: "mcp"},
	} {
		if got, ok := p.lookup(url); !ok || got != want {
			t.Errorf("%s: %+v %v", url, got, ok)
		}
	}
	for _, url := range []string{"http://127.0.0.1:8083", "https://auth.example", "http://127.0.0.1:8082/v1/charges"} {
		if got, ok := p.lookup(url); ok {
			t.Errorf("%s named %+v", url, got)
		}
	}
}
