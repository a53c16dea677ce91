package server_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/oauth/server"
	"github.com/kobana/kobana-mcp/platform/accounts"
)

// signInForm opens the sign-in page for an authorization request and
// returns its hidden fields.
func signInForm(e *env, b *browser, next string) url.Values {
	e.t.Helper()
	p := b.get(e.issuer + server.PathSignIn + "?" + url.Values{"next": {next}}.Encode())
	if p.status != 200 {
		e.t.Fatalf("sign-in page: %d", p.status)
	}
	return p.hidden()
}

var errorRE = regexp.MustCompile(`<p class="error" role="alert" id="error">([^<]*)</p>`)

func pageError(p page) string {
	m := errorRE.FindStringSubmatch(p.body)
	if m == nil {
		return ""
	}
	return m[1]
}

func TestSignInCSRF(t *testing.T) {
	t.Parallel()
	e := newEnvSQLite(t)
	next := server.PathAuthorize + "?" + authParams(e.publicClient(), newPKCE()).Encode()
	b := e.browser()
	form := signInForm(e, b, next)
	form.Set("email", anaEmail)
	form.Set("password", anaPassword)

	// No token.
	noToken := url.Values{"email": {anaEmail}, "password": {anaPassword}, "next": {next}}
	if got := b.post(e.issuer+server.PathSignIn, noToken); got.status != http.StatusForbidden {
		t.Fatalf("without a token: %d", got.status)
	}
	// Another browser's token: it belongs to another session.
	other := e.browser()
	foreign := signInForm(e, other, next)
	withForeign := url.Values{"email": {anaEmail}, "password": {anaPassword}, "next": {next}, "csrf_token": {foreign.Get("csrf_token")}}
	if got := b.post(e.issuer+server.PathSignIn, withForeign); got.status != http.StatusForbidden {
		t.Fatalf("with another session's token: %d", got.status)
	}
	// The right token, sent cross-site by a browser (CrossOriginProtection).
	if got := b.post(e.issuer+server.PathSignIn, form, "Sec-Fetch-Site", "cross-site"); got.status != http.StatusForbidden {
		t.Fatalf("cross-site: %d", got.status)
	}
	if got := b.post(e.issuer+server.PathSignIn, form, "Origin", "https://evil.example"); got.status != http.StatusForbidden {
		t.Fatalf("foreign Origin: %d", got.status)
	}
	// The right token, same origin.
	got := b.post(e.issuer+server.PathSignIn, form, "Sec-Fetch-Site", "same-origin", "Origin", e.issuer)
	if got.status != http.StatusSeeOther || got.header.Get("Location") != next {
		t.Fatalf("sign-in: %d %s", got.status, got.header.Get("Location"))
	}
	// Signing in gave a new session: the old form's token is dead.
	if got := b.post(e.issuer+server.PathSignIn, form); got.status != http.StatusForbidden {
		t.Fatalf("token of the replaced session: %d", got.status)
	}
}

func TestConsentCSRF(t *testing.T) {
	t.Parallel()
	e := newEnvSQLite(t)
	clientID := e.publicClient()
	b := e.browser()
	consentPage := b.signIn(e.issuer, b.get(e.issuer+server.PathAuthorize+"?"+authParams(clientID, newPKCE()).Encode()), anaEmail, anaPassword)
	fields := consentPage.hidden()
	fields.Set("decision", "allow")
	refused := func(name string, got page) {
		t.Helper()
		if got.status != http.StatusForbidden || strings.HasPrefix(got.header.Get("Location"), callback) {
			t.Fatalf("%s: %d %s", name, got.status, got.header.Get("Location"))
		}
	}
	with := func(k, v string) url.Values {
		f := url.Values{}
		for key, vs := range fields {
			f[key] = vs
		}
		if v == "" {
			f.Del(k)
		} else {
			f.Set(k, v)
		}
		return f
	}
	refused("no token", b.post(e.issuer+server.PathConsent, with("csrf_token", "")))
	refused("a made-up token", b.post(e.issuer+server.PathConsent, with("csrf_token", "AAAA")))

	// Another signed-in session of the same person: its token is its own.
	b2 := e.browser()
	other := b2.signIn(e.issuer, b2.get(e.issuer+server.PathAuthorize+"?"+authParams(clientID, newPKCE()).Encode()), anaEmail, anaPassword)
	refused("another session's token", b.post(e.issuer+server.PathConsent, with("csrf_token", other.hidden().Get("csrf_token"))))

	// This session's token, for another authorization request.
	swapped := with("request", authParams(clientID, newPKCE(), "scope", "inbox.webhooks").Encode())
	refused("token for another request", b.post(e.issuer+server.PathConsent, swapped))

	// Cross-site.
	refused("cross-site", b.post(e.issuer+server.PathConsent, fields, "Sec-Fetch-Site", "cross-site"))

	// And the genuine answer still works.
	if got := b.post(e.issuer+server.PathConsent, fields); got.status != http.StatusSeeOther || !strings.HasPrefix(got.header.Get("Location"), callback+"?code=") {
		t.Fatalf("genuine consent: %d %s", got.status, got.header.Get("Location"))
	}
}

func TestSignInMessagesAndRedirects(t *testing.T) {
	t.Parallel()
	e := newEnvSQLite(t)
	next := server.PathAuthorize + "?" + authParams(e.publicClient(), newPKCE()).Encode()
	b := e.browser()
	try := func(email, password, next string) page {
		f := signInForm(e, b, next)
		f.Set("email", email)
		f.Set("password", password)
		return b.post(e.issuer+server.PathSignIn, f)
	}
	wrong := try(anaEmail, "wrong password!", next)
	unknown := try("nobody@example.com", "wrong password!", next)
	if wrong.status != 401 || unknown.status != 401 || pageError(wrong) == "" || pageError(wrong) != pageError(unknown) {
		t.Fatalf("messages differ: %d %q / %d %q", wrong.status, pageError(wrong), unknown.status, pageError(unknown))
	}
	// Only authorization requests on this server are followed after
	// sign-in: no open redirect.
	for _, evil := range []string{"https://evil.example/authorize?x", "//evil.example/authorize", "/oauth/sign-in", "/\\evil.example"} {
		b := e.browser()
		f := signInForm(e, b, evil)
		if f.Get("next") != "" {
			t.Errorf("next %q kept in the form", evil)
		}
		f.Set("next", evil)
		f.Set("email", anaEmail)
		f.Set("password", anaPassword)
		got := b.post(e.issuer+server.PathSignIn, f)
		if got.status != 200 || got.header.Get("Location") != "" || !strings.Contains(got.body, "Você entrou como") {
			t.Errorf("next %q: %d %s", evil, got.status, got.header.Get("Location"))
		}
	}
	// Email is case-insensitive.
	if got := try("  ANA@Example.com ", anaPassword, next); got.status != http.StatusSeeOther {
		t.Fatalf("upper-case email: %d %q", got.status, pageError(got))
	}
}

func TestSignInRateLimit(t *testing.T) {
	t.Parallel()
	t.Run("per email", func(t *testing.T) {
		e := newEnvSQLite(t, func(c *server.Config) {
			c.SignInPerEmail = server.Limit{Every: time.Hour, Burst: 3}
			c.SignInPerIP = server.Limit{Every: time.Hour, Burst: 100}
		})
		b := e.browser()
		try := func(email, password string) page {
			f := signInForm(e, b, "")
			f.Set("email", email)
			f.Set("password", password)
			return b.post(e.issuer+server.PathSignIn, f)
		}
		for i := range 3 {
			if got := try(anaEmail, "wrong password!"); got.status != 401 {
				t.Fatalf("attempt %d: %d", i, got.status)
			}
		}
		// Locked for this email, even with the right password.
		got := try(anaEmail, anaPassword)
		if got.status != http.StatusTooManyRequests || got.header.Get("Retry-After") == "" || !strings.Contains(pageError(got), "Muitas tentativas") {
			t.Fatalf("fourth attempt: %d %q", got.status, pageError(got))
		}
		// Other emails are not.
		if got := try("someone@example.com", "wrong password!"); got.status != 401 {
			t.Fatalf("another email: %d", got.status)
		}
		// Successful sign-ins do not count against the email.
		e2 := newEnvSQLite(t, func(c *server.Config) { c.SignInPerEmail = server.Limit{Every: time.Hour, Burst: 1} })
		for i := range 3 {
			b := e2.browser()
			f := signInForm(e2, b, "")
			f.Set("email", anaEmail)
			f.Set("password", anaPassword)
			if got := b.post(e2.issuer+server.PathSignIn, f); got.status != 200 || !strings.Contains(got.body, "Você entrou como") {
				t.Fatalf("sign-in %d: %d %q", i, got.status, pageError(got))
			}
		}
	})
	t.Run("per address", func(t *testing.T) {
		e := newEnvSQLite(t, func(c *server.Config) { c.SignInPerIP = server.Limit{Every: time.Hour, Burst: 2} })
		b := e.browser()
		for i, email := range []string{"a@example.com", "b@example.com", "c@example.com"} {
			f := signInForm(e, b, "")
			f.Set("email", email)
			f.Set("password", "whatever123")
			got := b.post(e.issuer+server.PathSignIn, f)
			want := 401
			if i == 2 {
				want = http.StatusTooManyRequests
			}
			if got.status != want {
				t.Fatalf("attempt %d: %d, want %d", i, got.status, want)
			}
		}
	})
}

// TestNoOrganization: a person who belongs to no organization has nothing
// to grant.
func TestNoOrganization(t *testing.T) {
	t.Parallel()
	e := newEnvSQLite(t)
	if _, err := e.acc.CreateUser(context.Background(), accounts.NewUser{Email: "lonely@example.com", Password: anaPassword}); err != nil {
		t.Fatal(err)
	}
	b := e.browser()
	first := b.get(e.issuer + server.PathAuthorize + "?" + authParams(e.publicClient(), newPKCE()).Encode())
	got := b.signIn(e.issuer, first, "lonely@example.com", anaPassword)
	if got.status != http.StatusForbidden || !strings.Contains(got.body, "nenhuma organização") || strings.Contains(got.body, `id="allow"`) {
		t.Fatalf("no organization: %d", got.status)
	}
}
