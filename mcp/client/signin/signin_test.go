package signin

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
)

// TestParseChallenge reads the Bearer challenges resource servers send
// (RFC 6750 §3, RFC 9728 §5.1), quoted or not, and nothing else.
func TestParseChallenge(t *testing.T) {
	t.Parallel()
	c, ok := ParseChallenge(`Bearer error="invalid_token", error_description="the token \"x\" expired", resource_metadata="http://127.0.0.1:8081/.well-known/oauth-protected-resource/mcp", scope="inbox.read inbox.write"`)
	want := Challenge{ResourceMetadata: "http://127.0.0.1:8081/.well-known/oauth-protected-resource/mcp", Scope: "inbox.read inbox.write",
		Error: "invalid_token", Description: `the token "x" expired`}
	if !ok || c != want {
		t.Fatalf("%+v %v", c, ok)
	}
	if c, ok := ParseChallenge(`bearer scope=a, resource_metadata=https://x/m`); !ok || c.Scope != "a" || c.ResourceMetadata != "https://x/m" {
		t.Fatalf("tokens: %+v %v", c, ok)
	}
	if _, ok := ParseChallenge(`Basic realm="x"`); ok {
		t.Fatal("a Basic challenge read as Bearer")
	}
}

// TestWellKnown: the metadata URLs, path-inserted first (RFC 8414 §3.1).
func TestWellKnown(t *testing.T) {
	t.Parallel()
	got := wellKnown("https://as.example/tenant", "oauth-authorization-server", true)
	want := []string{
		"https://as.example/.well-known/oauth-authorization-server/tenant",
		"https://as.example/.well-known/openid-configuration/tenant",
		"https://as.example/tenant/.well-known/openid-configuration",
		"https://as.example/.well-known/oauth-authorization-server",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q", got)
	}
	if got := wellKnown("http://127.0.0.1:8081", "oauth-authorization-server", false); !reflect.DeepEqual(got, []string{"http://127.0.0.1:8081/.well-known/oauth-authorization-server"}) {
		t.Fatalf("%q", got)
	}
}

// TestCallbackTakesOnlyItsOwnAnswer: the loopback redirect refuses an
// answer with another state, another or a missing issuer, or no code, and
// another path, and keeps waiting; the first good one is taken.
func TestCallbackTakesOnlyItsOwnAnswer(t *testing.T) {
	t.Parallel()
	cb := newCallback("s1", "http://as.example", true)
	srv := httptest.NewServer(cb)
	defer srv.Close()
	for _, c := range []struct {
		path string
		want int
	}{
		{"/callback?code=c&state=other&iss=http://as.example", http.StatusBadRequest},
		{"/callback?code=c&state=s1&iss=http://evil.example", http.StatusBadRequest},
		{"/callback?code=c&state=s1", http.StatusBadRequest},
		{"/callback?state=s1&iss=http://as.example", http.StatusBadRequest},
		{"/other?code=c&state=s1&iss=http://as.example", http.StatusNotFound},
	} {
		resp, err := http.Get(srv.URL + c.path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s: %d, want %d", c.path, resp.StatusCode, c.want)
		}
	}
	select {
	case r := <-cb.result:
		t.Fatalf("a refused answer was taken: %+v", r)
	default:
	}
	for _, code := range []string{"good", "late"} {
		resp, err := http.Get(srv.URL + "/callback?code=" + code + "&state=s1&iss=http://as.example")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if r := <-cb.result; r.code != "good" || r.err != nil {
		t.Fatalf("%+v", r)
	}
}
