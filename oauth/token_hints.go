package oauth

import (
	"fmt"
	"strings"
	"time"
)

// Place is what a URL of this deployment is: a product's issuer, MCP
// endpoint or REST API. Product is its display name ("Kobana Dunning"),
// Key its --product value ("dunning"), Resource "mcp", "api" or "" for an
// issuer.
type Place struct {
	Product, Key, Resource string
}

// Places names the URLs of a deployment, for error messages that say
// whose a refused token is (TokenHints).
type Places func(url string) (Place, bool)

// TokenHints let a verifier say what to do with a token it refuses for
// its issuer, audience or age: whose token it is and the command that
// mints the right one (docs/decisions.md "Token errors that say what to
// do"). The claims are read only after the signature verified, so a hint
// names nothing to someone who merely made up a token.
type TokenHints struct {
	// Here is the resource the verifier guards.
	Here Place
	// Places names the deployment's other issuers and resources; nil
	// names none.
	Places Places
}

// mint is the command that mints a token for the verifier's resource.
func (h *TokenHints) mint() string {
	return "kobana-mcp token --product " + h.Here.Key + " --resource " + h.Here.Resource + " --user EMAIL"
}

func (h *TokenHints) place(url string) (Place, bool) {
	if h.Places == nil {
		return Place{}, false
	}
	return h.Places(url)
}

// resourceName is how a message calls a product's resource.
func resourceName(p Place) string {
	if p.Resource == "api" {
		return p.Product + "'s REST API"
	}
	return p.Product + "'s MCP endpoint"
}

// wrongIssuer explains a token another product's authorization server
// issued.
func (h *TokenHints) wrongIssuer(iss string) string {
	if p, ok := h.place(iss); ok && p.Key != h.Here.Key {
		return fmt.Sprintf("this token was issued by %s (%s), not by %s: a token works only for the product it was minted for; mint one for this endpoint with %s, or sign in to %s",
			p.Product, iss, h.Here.Product, h.mint(), h.Here.Product)
	}
	return "untrusted issuer"
}

// wrongAudience explains a token issued for another resource: this
// product's other door, or another product's.
func (h *TokenHints) wrongAudience(aud []string) string {
	for _, a := range aud {
		p, ok := h.place(a)
		if !ok {
			continue
		}
		return fmt.Sprintf("this token was issued for %s (%s), not for %s: mint one with %s", resourceName(p), a, resourceName(h.Here), h.mint())
	}
	return "issued for another resource"
}

// expired says when the token expired and how to get a new one.
func (h *TokenHints) expired(at time.Time) string {
	return fmt.Sprintf("expired at %s: get a new one — an MCP client refreshes it or signs in again; a developer token is minted again with %s",
		at.UTC().Format(time.RFC3339), h.mint())
}

// cleanAudience drops empty entries.
func cleanAudience(aud []string) []string {
	out := aud[:0:0]
	for _, a := range aud {
		if strings.TrimSpace(a) != "" {
			out = append(out, a)
		}
	}
	return out
}
