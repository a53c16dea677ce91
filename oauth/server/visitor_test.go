package server_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/kobana/kobana-mcp/oauth/server"
	"github.com/kobana/kobana-mcp/platform/pagetext"
)

// TestProductPageSignIn: a product page (under Config.ReturnPaths) sends
// a visitor to sign in and gets them back; Visitor reads the person; the
// page's form tokens are bound to the session and never pass as the
// server's own forms' tokens. Other return targets are dropped.
func TestProductPageSignIn(t *testing.T) {
	t.Parallel()
	e := newEnvSQLite(t, func(c *server.Config) { c.ReturnPaths = []string{"/approvals/"} })
	visitor := func(b *browser) *server.Visitor {
		t.Helper()
		req := httptest.NewRequest(http.MethodGet, e.issuer+"/approvals/x", nil)
		for _, c := range b.c.Jar.Cookies(req.URL) {
			req.AddCookie(c)
		}
		v, err := e.as.Visitor(req)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	b := e.browser()
	if v := visitor(b); v != nil {
		t.Fatalf("a visitor before sign-in: %+v", v)
	}
	signInURL := e.as.SignInURL("/approvals/abc?x=1")
	if signInURL != server.PathSignIn+"?next=%2Fapprovals%2Fabc%3Fx%3D1" {
		t.Fatalf("SignInURL = %q", signInURL)
	}
	p := b.get(e.issuer + signInURL)
	form := p.hidden()
	if form.Get("next") != "/approvals/abc?x=1" {
		t.Fatalf("next = %q", form.Get("next"))
	}
	if v := visitor(b); v != nil {
		t.Fatalf("an anonymous session is a visitor: %+v", v)
	}
	form.Set("email", anaEmail)
	form.Set("password", anaPassword)
	done := b.post(e.issuer+server.PathSignIn, form)
	if done.status != http.StatusSeeOther || done.header.Get("Location") != "/approvals/abc?x=1" {
		t.Fatalf("after sign-in: %d %q", done.status, done.header.Get("Location"))
	}
	v := visitor(b)
	if v == nil || v.UserID != e.user.ID || v.Email != anaEmail || v.AuthenticatedAt.IsZero() {
		t.Fatalf("visitor = %+v", v)
	}
	tok := v.FormToken("approval", "id-1")
	if !v.CheckFormToken("approval", "id-1", tok) || v.CheckFormToken("approval", "id-2", tok) || v.CheckFormToken("other", "id-1", tok) {
		t.Error("form tokens are not bound to form and binding")
	}
	// Another session of the same person has other tokens.
	b2 := e.browser()
	f2 := b2.get(e.issuer + signInURL).hidden()
	f2.Set("email", anaEmail)
	f2.Set("password", anaPassword)
	b2.post(e.issuer+server.PathSignIn, f2)
	if v2 := visitor(b2); v2 == nil || v2.CheckFormToken("approval", "id-1", tok) {
		t.Error("a token of one session verifies in another")
	}

	// Only paths under ReturnPaths, clean, on this server.
	for _, next := range []string{"/approvals/", "/approvals/../authorize", "/approvalsx/1", "//evil.example/approvals/1", "https://evil.example/approvals/1", "/mcp"} {
		got := b.get(e.issuer + server.PathSignIn + "?" + url.Values{"next": {next}}.Encode())
		if got.status != http.StatusOK {
			t.Errorf("next %q: %d %q (a signed-in person is only sent to allowed places)", next, got.status, got.header.Get("Location"))
		}
	}
	// ClientName of an unknown client is its id.
	if n := e.as.ClientName(t.Context(), pagetext.In(pagetext.PortugueseBR), "no-such-client"); n != "no-such-client" {
		t.Errorf("ClientName = %q", n)
	}
	if n := e.as.ClientName(t.Context(), pagetext.In(pagetext.PortugueseBR), e.publicClient()); n == "" || n == "no-such-client" {
		t.Errorf("ClientName of a registered client = %q", n)
	}
}

// TestReturnPathsOff: without ReturnPaths, sign-in returns only to
// /authorize, as before.
func TestReturnPathsOff(t *testing.T) {
	t.Parallel()
	e := newEnvSQLite(t)
	b := e.browser()
	p := b.get(e.issuer + e.as.SignInURL("/approvals/abc"))
	if p.hidden().Get("next") != "" {
		t.Fatalf("next kept: %q", p.hidden().Get("next"))
	}
}
