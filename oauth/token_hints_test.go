package oauth

import (
	"context"
	"testing"
	"time"
)

// A refused token says whose it is and how to mint the right one, in
// these exact words: a token of another product (its own issuer), one for
// this product's other door, one for another product's resource under a
// shared issuer, and an expired one. Without a place to name, the bare
// reasons stay.
func TestTokenHints(t *testing.T) {
	t.Parallel()
	c := &clock{time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	is, ks, v := newTestIssuer(t, c)
	places := map[string]Place{
		"http://127.0.0.1:8081":        {Product: "Kobana Autonomous Inbox", Key: "inbox"},
		"http://127.0.0.1:8081/mcp":    {Product: "Kobana Autonomous Inbox", Key: "inbox", Resource: "mcp"},
		"http://127.0.0.1:8081/api/v1": {Product: "Kobana Autonomous Inbox", Key: "inbox", Resource: "api"},
		"http://127.0.0.1:8082":        {Product: "Kobana Dunning", Key: "dunning"},
		"http://127.0.0.1:8082/mcp":    {Product: "Kobana Dunning", Key: "dunning", Resource: "mcp"},
	}
	v.Hints = &TokenHints{Here: places[testResource], Places: func(u string) (Place, bool) { p, ok := places[u]; return p, ok }}
	check := func(tok, want string) {
		t.Helper()
		_, err := v.Verify(context.Background(), tok)
		if err == nil || err.Error() != "invalid token: "+want {
			t.Errorf("got %v\nwant invalid token: %s", err, want)
		}
	}

	dunning := &Issuer{URL: "http://127.0.0.1:8082", Keys: ks, Now: c.now}
	g := grant()
	g.Audience = "http://127.0.0.1:8082/mcp"
	tok, _, _ := dunning.Issue(g)
	check(tok, "this token was issued by Kobana Dunning (http://127.0.0.1:8082), not by Kobana Autonomous Inbox: a token works only for the product it was minted for; "+
		"mint one for this endpoint with kobana-mcp token --product inbox --resource mcp --user EMAIL, or sign in to Kobana Autonomous Inbox")

	g = grant()
	g.Audience = "http://127.0.0.1:8081/api/v1"
	tok, _, _ = is.Issue(g)
	check(tok, "this token was issued for Kobana Autonomous Inbox's REST API (http://127.0.0.1:8081/api/v1), not for Kobana Autonomous Inbox's MCP endpoint: "+
		"mint one with kobana-mcp token --product inbox --resource mcp --user EMAIL")

	// One issuer for every product (an external authorization server):
	// the audience names the other product.
	g = grant()
	g.Audience = "http://127.0.0.1:8082/mcp"
	tok, _, _ = is.Issue(g)
	check(tok, "this token was issued for Kobana Dunning's MCP endpoint (http://127.0.0.1:8082/mcp), not for Kobana Autonomous Inbox's MCP endpoint: "+
		"mint one with kobana-mcp token --product inbox --resource mcp --user EMAIL")

	tok, exp, _ := is.Issue(grant())
	c.t = c.t.Add(11 * time.Minute)
	check(tok, "expired at "+exp.UTC().Format(time.RFC3339)+": get a new one — an MCP client refreshes it or signs in again; "+
		"a developer token is minted again with kobana-mcp token --product inbox --resource mcp --user EMAIL")
	c.t = c.t.Add(-11 * time.Minute)

	// Strangers are named by nothing.
	evil := &Issuer{URL: "https://evil.example", Keys: ks, Now: c.now}
	tok, _, _ = evil.Issue(grant())
	check(tok, "untrusted issuer")
	g = grant()
	g.Audience = "https://evil.example/mcp"
	tok, _, _ = is.Issue(g)
	check(tok, "issued for another resource")
}
