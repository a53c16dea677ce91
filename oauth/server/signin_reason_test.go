package server_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/oauth/server"
)

var leadRE = regexp.MustCompile(`<p class="lead" id="lead">([^<]*)</p>`)

// TestSignInSaysWhy: the sign-in page says why the person signs in, from
// where it will send them: to connect the client an authorization request
// names (its registered name, never a parameter of the request), in the
// browser's language; anything else says the account.
func TestSignInSaysWhy(t *testing.T) {
	t.Parallel()
	e := newEnvSQLite(t)
	clientID := e.publicClient()
	authorize := server.PathAuthorize + "?" + authParams(clientID, newPKCE(), "resource", e.mcp).Encode()
	crafted := server.PathAuthorize + "?" + url.Values{"client_id": {"no-such-client"}, "client_name": {"Banco Oficial"}}.Encode()
	for _, c := range []struct {
		name, next, acceptLanguage, want string
	}{
		{"connect, pt-BR by default", authorize, "", "Entre para conectar «Test Agent» à sua conta «Kobana Autonomous Inbox»."},
		{"connect, en", authorize, "en-US,en;q=0.9", "Sign in to connect “Test Agent” to your Kobana Autonomous Inbox account."},
		{"connect, pt-BR asked", authorize, "pt-BR,pt;q=0.9,en;q=0.8", "Entre para conectar «Test Agent» à sua conta «Kobana Autonomous Inbox»."},
		{"an unknown client's made-up name is not said", crafted, "", "Entre para conectar um aplicativo à sua conta «Kobana Autonomous Inbox»."},
		{"nowhere to go", "", "", "Entre na sua conta «Kobana Autonomous Inbox»."},
		{"nowhere to go, en", "", "en", "Sign in to your Kobana Autonomous Inbox account."},
		{"a place sign-in does not return to", "https://evil.example/x", "", "Entre na sua conta «Kobana Autonomous Inbox»."},
	} {
		u := e.issuer + server.PathSignIn
		if c.next != "" {
			u += "?" + url.Values{"next": {c.next}}.Encode()
		}
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		if c.acceptLanguage != "" {
			req.Header.Set("Accept-Language", c.acceptLanguage)
		}
		p := e.browser().do(req)
		m := leadRE.FindStringSubmatch(p.body)
		if p.status != http.StatusOK || m == nil {
			t.Fatalf("%s: %d, no lead:\n%s", c.name, p.status, p.body)
		}
		if got := html.UnescapeString(m[1]); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
		wantLang := "pt-BR"
		if strings.HasPrefix(c.acceptLanguage, "en") {
			wantLang = "en"
		}
		if !strings.Contains(p.body, `<html lang="`+wantLang+`">`) || p.header.Get("Content-Language") != wantLang {
			t.Errorf("%s: not in %s: %q\n%s", c.name, wantLang, p.header.Get("Content-Language"), p.body)
		}
	}
}

// TestSignInErrorsInTheBrowsersLanguage: a wrong password is said in the
// page's language, the same words whatever failed.
func TestSignInErrorsInTheBrowsersLanguage(t *testing.T) {
	t.Parallel()
	e := newEnvSQLite(t)
	for lang, want := range map[string]string{"": "E-mail ou senha incorretos.", "en-GB": "The email or password is incorrect."} {
		b := e.browser()
		req, _ := http.NewRequest(http.MethodGet, e.issuer+server.PathSignIn, nil)
		req.Header.Set("Accept-Language", lang)
		form := b.do(req).hidden()
		for _, email := range []string{anaEmail, "nobody@example.com"} {
			form.Set("email", email)
			form.Set("password", "wrong password")
			got := b.post(e.issuer+server.PathSignIn, form, "Accept-Language", lang)
			if got.status != http.StatusUnauthorized || pageError(got) != want {
				t.Errorf("Accept-Language %q, %s: %d %q, want %q", lang, email, got.status, pageError(got), want)
			}
		}
	}
}
