package main

import (
	"sync"

	"github.com/kobana/kobana-mcp/oauth"
)

// places names every product's issuer and resources in this process, so
// a product refusing a token minted for another product or resource says
// whose it is (oauth.TokenHints). Filled as each product starts, read
// when a token is refused: safe for both at once.
type places struct {
	mu sync.RWMutex
	m  map[string]oauth.Place
}

// add records a product's built-in issuer (when it is the listener's own
// URL) and its two resources.
func (p *places) add(title, key, public, issuer, apiBase string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[string]oauth.Place{}
	}
	if issuer == public {
		p.m[public] = oauth.Place{Product: title, Key: key}
	}
	p.m[public+"/mcp"] = oauth.Place{Product: title, Key: key, Resource: "mcp"}
	p.m[public+apiBase] = oauth.Place{Product: title, Key: key, Resource: "api"}
}

// lookup is an oauth.Places.
func (p *places) lookup(url string) (oauth.Place, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	pl, ok := p.m[url]
	return pl, ok
}
