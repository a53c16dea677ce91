package pages

import (
	"net/http/httptest"
	"strings"
	"testing"

	"golang.org/x/text/language"

	"github.com/kobana/kobana-mcp/platform/pagetext"
	"github.com/kobana/kobana-mcp/platform/pagetext/pagetexttest"
)

var (
	pt = pagetext.In(pagetext.PortugueseBR)
	en = pagetext.In(pagetext.English)
)

func TestConsentPage(t *testing.T) {
	t.Parallel()
	for _, verified := range []bool{true, false} {
		w := httptest.NewRecorder()
		Render(w, 200, en, Consent{
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
			`value="o2" checked`, `name="request" value="a=1&amp;b=&lt;2&gt;"`, `<html lang="en">`} {
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
		if h.Get("Content-Language") != "en" || h.Get("Vary") != "Accept-Language" {
			t.Errorf("language headers: %v", h)
		}
	}
}

func TestSignInPage(t *testing.T) {
	t.Parallel()
	w := httptest.NewRecorder()
	Render(w, 401, pt, SignIn{Product: "Kadu", Action: "/oauth/sign-in", CSRF: "tok", Next: "/authorize?x=1", Lead: "Entre para conectar «Claude» à sua conta «Kadu».",
		Email: "a@b.c", Error: pt.Say(pagetext.KeySignInBadCredentials)})
	body := w.Body.String()
	for _, want := range []string{`name="email"`, `name="password"`, `id="sign-in"`, `value="a@b.c"`, "E-mail ou senha incorretos.", `name="next" value="/authorize?x=1"`,
		`<html lang="pt-BR">`, "Entre para conectar «Claude» à sua conta «Kadu».", ">Senha<", ">Entrar</button>"} {
		if !strings.Contains(body, want) {
			t.Errorf("sign-in page lacks %q", want)
		}
	}
	if w.Code != 401 {
		t.Fatal(w.Code)
	}
}

// TestTemplatesHoldNoWords: every word a person reads on these pages comes
// from the catalogue (platform/pagetext) or from data; a template that
// writes one itself fails here.
func TestTemplatesHoldNoWords(t *testing.T) {
	t.Parallel()
	raw, err := pagetexttest.RawText(templateFiles, "templates/*.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range raw {
		t.Errorf("words written in a template instead of the catalogue: %s", r)
	}
}

// TestEveryPageInOneLanguage renders each page in both languages, with
// data that has no words of its own, and finds in each only its own
// language: <html lang>, none of the other language's messages, none of
// its common words.
func TestEveryPageInOneLanguage(t *testing.T) {
	t.Parallel()
	for _, l := range []*pagetext.Printer{pt, en} {
		pagesOf := map[string]any{
			"sign-in": SignIn{Product: "Kadu", Action: "/oauth/sign-in", CSRF: "tok", Next: "/authorize?x=1",
				Lead: l.Say(pagetext.KeySignInLeadConnect, "Claude", "Kadu"), Email: "a@b.c", Error: l.Say(pagetext.KeySignInTooMany)},
			"signed in": SignIn{Product: "Kadu", SignedInAs: "a@b.c"},
			"consent, verified": Consent{Product: "Kadu", Action: "/oauth/consent", CSRF: "tok", Request: "a=1",
				ClientName: "Claude", ClientVerified: true, ClientHost: "claude.ai", Resource: "https://kadu.example/mcp",
				Scopes:        []Scope{{"kadu.tasks", "kadu.tasks"}, {"offline_access", l.Say(pagetext.KeyScopeOfflineAccess)}},
				Organizations: []Organization{{"o1", "Acme"}}, SelectedOrganization: "o1", Email: "a@b.c", RedirectHost: "https://claude.ai",
				Error: l.Say(pagetext.KeyConsentChooseOrg)},
			"consent, unverified, two organizations": Consent{Product: "Kadu", Action: "/oauth/consent", CSRF: "tok", Request: "a=1",
				ClientName: "Claude", ClientHost: "claude.ai", Resource: "https://kadu.example/mcp",
				Organizations: []Organization{{"o1", "Acme"}, {"o2", "Beta"}}, SelectedOrganization: "o2", Email: "a@b.c", RedirectHost: "https://claude.ai"},
			"error": ErrorPage{Product: "Kadu", Title: l.Say(pagetext.KeyNoOrganizationTitle), Message: l.Say(pagetext.KeyNoOrganization)},
		}
		for name, data := range pagesOf {
			w := httptest.NewRecorder()
			Render(w, 200, l, data)
			body := w.Body.String()
			if w.Code != 200 {
				t.Fatalf("%s %s: %d %s", l.Lang(), name, w.Code, body)
			}
			if got := pagetexttest.Lang(body); got != l.Lang() {
				t.Errorf("%s %s: <html lang=%q>", l.Lang(), name, got)
			}
			text := pagetexttest.Visible(body)
			for _, m := range pagetexttest.OtherLanguage(text, l.Tag()) {
				t.Errorf("%s %s shows a message of the other language: %s", l.Lang(), name, m)
			}
			if words := pagetexttest.ForeignWords(text, l.Tag()); len(words) > 0 {
				t.Errorf("%s %s has words of the other language %q in: %s", l.Lang(), name, words, text)
			}
		}
	}
}

// TestForeignWordsCanFail: the one-language check finds an English
// sentence on a Portuguese page (so TestEveryPageInOneLanguage can fail).
func TestForeignWordsCanFail(t *testing.T) {
	t.Parallel()
	w := httptest.NewRecorder()
	Render(w, 200, pt, ErrorPage{Product: "Kadu", Title: "Algo", Message: "The email or password is incorrect."})
	text := pagetexttest.Visible(w.Body.String())
	if len(pagetexttest.ForeignWords(text, language.BrazilianPortuguese)) == 0 || len(pagetexttest.OtherLanguage(text, pagetext.PortugueseBR)) == 0 {
		t.Errorf("an English message on a Portuguese page went unnoticed: %s", text)
	}
}
