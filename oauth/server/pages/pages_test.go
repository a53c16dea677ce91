package pages

import (
	"net/http/httptest"
	"strings"
	"testing"
)

func TestConsentPage(t *testing.T) {
	t.Parallel()
	for _, verified := range []bool{true, false} {
		w := httptest.NewRecorder()
		Render(w, 200, Consent{
			Product: "Kobana Dunning", Action: "/oauth/consent", CSRF: "tok", Request: "a=1&b=<2>",
			ClientName: `<script>alert("x")</script>`, ClientVerified: verified, ClientHost: "app.example.com",
			Resource: "https://dunning.example/mcp", Scopes: []Scope{{"dunning.debtors", "See and manage your debtors"}},
			Organizations: []Organization{{"o1", "Acme"}, {"o2", "Beta"}}, SelectedOrganization: "o2",
			Email: "ana@example.com", RedirectHost: "http://127.0.0.1:3000",
		})
		body := w.Body.String()
		if strings.Contains(body, "<script>") {
			t.Fatal("client name not escaped")
		}
		for _, want := range []string{`id="allow"`, `id="deny"`, "Kobana Dunning", "See and manage your debtors", "https://dunning.example/mcp",
			`value="o2" checked`, `name="request" value="a=1&amp;b=&lt;2&gt;"`} {
			if !strings.Contains(body, want) {
				t.Errorf("consent page lacks %q", want)
			}
		}
		if verified != strings.Contains(body, "from app.example.com") || verified == strings.Contains(body, "unverified") {
			t.Errorf("verified=%v badge wrong:\n%s", verified, body)
		}
		h := w.Header()
		if !strings.Contains(h.Get("Content-Security-Policy"), "default-src 'none'") || h.Get("X-Frame-Options") != "DENY" || h.Get("Cache-Control") != "no-store" {
			t.Errorf("headers: %v", h)
		}
	}
}

func TestSignInPage(t *testing.T) {
	t.Parallel()
	w := httptest.NewRecorder()
	Render(w, 401, SignIn{Product: "Kadu", Action: "/oauth/sign-in", CSRF: "tok", Next: "/authorize?x=1", Email: "a@b.c", Error: "The email or password is incorrect."})
	body := w.Body.String()
	for _, want := range []string{`name="email"`, `name="password"`, `id="sign-in"`, `value="a@b.c"`, "incorrect", `name="next" value="/authorize?x=1"`} {
		if !strings.Contains(body, want) {
			t.Errorf("sign-in page lacks %q", want)
		}
	}
	if w.Code != 401 {
		t.Fatal(w.Code)
	}
}
