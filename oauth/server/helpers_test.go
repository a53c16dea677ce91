package server_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/oauth/server"
	"github.com/kobana/kobana-mcp/oauth/server/sqlstore"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

const (
	anaEmail    = "ana@example.com"
	anaPassword = "correct horse battery"
	callback    = "http://127.0.0.1:53682/callback"
)

// env is one product listener with its authorization server, on loopback,
// over a real database.
type env struct {
	t       *testing.T
	ts      *httptest.Server
	mux     *http.ServeMux
	as      *server.Server
	keys    *oauth.KeySet
	db      *store.DB
	acc     *accounts.Store
	org     accounts.Organization
	user    accounts.User
	issuer  string
	mcp     string
	api     string
	scopes  []string
	cfgHook func(*server.Config)
}

// runEnvs runs fn against a fresh env on every engine storetest offers.
func runEnvs(t *testing.T, fn func(t *testing.T, e *env), hooks ...func(*server.Config)) {
	t.Helper()
	storetest.RunWith(t, sqlstore.Migrations, func(t *testing.T, db *store.DB) {
		fn(t, newEnv(t, db, hooks...))
	})
}

// newEnvSQLite is an env on SQLite alone, for tests about HTTP behaviour
// rather than storage.
func newEnvSQLite(t *testing.T, hooks ...func(*server.Config)) *env {
	t.Helper()
	return newEnv(t, storetest.Open(t, store.SQLite, sqlstore.Migrations), hooks...)
}

var cheapArgon = accounts.PasswordParams{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}

func newEnv(t *testing.T, db *store.DB, hooks ...func(*server.Config)) *env {
	t.Helper()
	ctx := context.Background()
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	keys, err := oauth.NewKeySet(&oauth.MemoryKeyStore{}, oauth.KeySetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	acc := accounts.New(db, accounts.Options{Password: cheapArgon})
	org, err := acc.CreateOrganization(ctx, "Acme Ltda")
	if err != nil {
		t.Fatal(err)
	}
	user, err := acc.CreateUser(ctx, accounts.NewUser{Email: anaEmail, Name: "Ana", Password: anaPassword, OrganizationID: org.ID, Role: identity.RoleMember})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, ts: ts, mux: mux, keys: keys, db: db, acc: acc, org: org, user: user, issuer: ts.URL,
		mcp: ts.URL + "/mcp", api: ts.URL + "/api/v1", scopes: testInboxScopes}
	cfg := server.Config{
		Issuer: ts.URL, ProductName: "Kobana Autonomous Inbox", Resources: []string{e.mcp, e.api},
		Scopes: testInboxScopes, ScopeDescriptions: testScopeDescriptions, Keys: keys, Store: sqlstore.New(db), Accounts: sqlstore.Accounts{Store: acc},
		Logger: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelInfo})),
	}
	for _, h := range hooks {
		h(&cfg)
	}
	as, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	as.Routes(mux)
	e.as = as
	return e
}

// browser is a person's browser: a cookie jar, and redirects not followed
// so each step can be looked at.
type browser struct {
	t *testing.T
	c *http.Client
}

func (e *env) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: e.t, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

type page struct {
	status int
	header http.Header
	body   string
}

func (p page) location() *url.URL {
	u, err := url.Parse(p.header.Get("Location"))
	if err != nil {
		panic(err)
	}
	return u
}

func (b *browser) do(req *http.Request) page {
	b.t.Helper()
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return page{status: resp.StatusCode, header: resp.Header, body: string(body)}
}

func (b *browser) get(u string) page {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	return b.do(req)
}

func (b *browser) post(u string, form url.Values, headers ...string) page {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return b.do(req)
}

var hiddenRE = regexp.MustCompile(`<input type="hidden" name="([a-z_]+)" value="([^"]*)">`)

// hidden returns the hidden fields of a page's form.
func (p page) hidden() url.Values {
	v := url.Values{}
	for _, m := range hiddenRE.FindAllStringSubmatch(p.body, -1) {
		v.Set(m[1], html.UnescapeString(m[2]))
	}
	return v
}

// pkce is a code verifier and its S256 challenge.
type pkce struct{ verifier, challenge string }

func newPKCE() pkce {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	v := base64.RawURLEncoding.EncodeToString(b)
	h := sha256.Sum256([]byte(v))
	return pkce{verifier: v, challenge: base64.RawURLEncoding.EncodeToString(h[:])}
}

// authParams is a well-formed authorization request.
func authParams(clientID string, p pkce, extra ...string) url.Values {
	v := url.Values{
		"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {callback},
		"code_challenge": {p.challenge}, "code_challenge_method": {"S256"}, "state": {"state-1234567890"},
	}
	for i := 0; i+1 < len(extra); i += 2 {
		if extra[i+1] == "" {
			v.Del(extra[i])
		} else {
			v.Set(extra[i], extra[i+1])
		}
	}
	return v
}

// register registers a client with DCR and returns the response.
func (e *env) register(meta map[string]any) (int, map[string]any) {
	e.t.Helper()
	b, _ := json.Marshal(meta)
	resp, err := http.Post(e.issuer+server.PathRegister, "application/json", strings.NewReader(string(b)))
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// publicClient registers a public client redirecting to callback.
func (e *env) publicClient() string {
	e.t.Helper()
	status, out := e.register(map[string]any{
		"client_name": "Test Agent", "redirect_uris": []string{callback}, "token_endpoint_auth_method": "none",
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"},
	})
	if status != http.StatusCreated {
		e.t.Fatalf("register: %d %v", status, out)
	}
	return out["client_id"].(string)
}

// signIn drives the sign-in page from a redirect to it, and returns the
// page the browser lands on next.
func (b *browser) signIn(issuer string, signInRedirect page, email, password string) page {
	b.t.Helper()
	if signInRedirect.status != http.StatusSeeOther || signInRedirect.location().Path != server.PathSignIn {
		b.t.Fatalf("expected a redirect to sign in, got %d %v %s", signInRedirect.status, signInRedirect.header, signInRedirect.body)
	}
	form := b.get(issuer + signInRedirect.location().String())
	if form.status != http.StatusOK {
		b.t.Fatalf("sign-in page: %d %s", form.status, form.body)
	}
	for _, sel := range []string{`name="email"`, `name="password"`, `id="sign-in"`} {
		if !strings.Contains(form.body, sel) {
			b.t.Fatalf("sign-in page lacks %s", sel)
		}
	}
	v := form.hidden()
	v.Set("email", email)
	v.Set("password", password)
	res := b.post(issuer+server.PathSignIn, v)
	if res.status != http.StatusSeeOther {
		return res
	}
	return b.get(issuer + res.location().String())
}

// consent submits the consent page with decision, and returns the
// answer (a redirect to the client, normally).
func (b *browser) consent(issuer string, consentPage page, decision string, extra ...string) page {
	b.t.Helper()
	if consentPage.status != http.StatusOK || !strings.Contains(consentPage.body, `id="allow"`) || !strings.Contains(consentPage.body, `id="deny"`) {
		b.t.Fatalf("not a consent page: %d %s", consentPage.status, consentPage.body)
	}
	v := consentPage.hidden()
	v.Set("decision", decision)
	for i := 0; i+1 < len(extra); i += 2 {
		v.Set(extra[i], extra[i+1])
	}
	return b.post(issuer+server.PathConsent, v)
}

// authorize runs the whole browser side for clientID and returns the
// redirect to the client.
func (e *env) authorize(b *browser, params url.Values) page {
	e.t.Helper()
	first := b.get(e.issuer + server.PathAuthorize + "?" + params.Encode())
	var consentPage page
	if first.status == http.StatusOK {
		consentPage = first // already signed in
	} else {
		consentPage = b.signIn(e.issuer, first, anaEmail, anaPassword)
	}
	return b.consent(e.issuer, consentPage, "allow")
}

// code returns the code of a successful redirect, checking state and iss.
func (e *env) code(redirect page) string {
	e.t.Helper()
	if redirect.status != http.StatusSeeOther {
		e.t.Fatalf("expected a redirect to the client, got %d %s", redirect.status, redirect.body)
	}
	u := redirect.location()
	q := u.Query()
	if u.Scheme+"://"+u.Host+u.Path != callback || q.Get("error") != "" || q.Get("code") == "" {
		e.t.Fatalf("redirect to the client: %s", u)
	}
	if q.Get("iss") != e.issuer {
		e.t.Fatalf("iss = %q, want %q (RFC 9207)", q.Get("iss"), e.issuer)
	}
	if q.Get("state") != "state-1234567890" {
		e.t.Fatalf("state = %q", q.Get("state"))
	}
	return q.Get("code")
}

// tokenResponse is the token endpoint's answer, success or error.
type tokenResponse struct {
	Status       int    `json:"-"`
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	Scope        string `json:"scope"`
	Error        string `json:"error"`
	Description  string `json:"error_description"`
}

// postForm posts a form to an endpoint of the server, with basic auth when
// user is set.
func (e *env) postForm(path string, form url.Values, user, pass string) (int, []byte) {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.issuer+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if user != "" {
		req.SetBasicAuth(url.QueryEscape(user), url.QueryEscape(pass))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func (e *env) token(form url.Values) tokenResponse {
	e.t.Helper()
	status, body := e.postForm(server.PathToken, form, "", "")
	var tr tokenResponse
	if err := json.Unmarshal(body, &tr); err != nil {
		e.t.Fatalf("token response %d: %s", status, body)
	}
	tr.Status = status
	return tr
}

func (e *env) exchange(clientID, code string, p pkce, extra ...string) tokenResponse {
	e.t.Helper()
	f := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {callback}, "client_id": {clientID}, "code_verifier": {p.verifier}}
	for i := 0; i+1 < len(extra); i += 2 {
		f.Set(extra[i], extra[i+1])
	}
	return e.token(f)
}

func (e *env) refresh(clientID, refreshToken string, extra ...string) tokenResponse {
	e.t.Helper()
	f := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshToken}, "client_id": {clientID}}
	for i := 0; i+1 < len(extra); i += 2 {
		f.Set(extra[i], extra[i+1])
	}
	return e.token(f)
}

// verifier is what a resource server of this product runs.
func (e *env) verifier(resource string) *oauth.JWTVerifier {
	return &oauth.JWTVerifier{Issuer: e.issuer, Audience: resource, Keys: oauth.KeySetSource{Keys: e.keys}}
}

// grant runs a whole authorization for a new public client and returns
// the client and tokens.
func (e *env) grant(extra ...string) (string, tokenResponse) {
	e.t.Helper()
	clientID := e.publicClient()
	p := newPKCE()
	code := e.code(e.authorize(e.browser(), authParams(clientID, p, extra...)))
	tr := e.exchange(clientID, code, p)
	if tr.Status != http.StatusOK || tr.AccessToken == "" {
		e.t.Fatalf("exchange: %+v", tr)
	}
	return clientID, tr
}

// The scopes the tests' products declare: the built-in server takes a
// product's scopes as configuration and knows no product itself.
var (
	testInboxScopes = []string{
		"inbox.workspaces", "inbox.inboxes", "inbox.emails", "inbox.agents",
		"inbox.agent_runs", "inbox.webhooks", "inbox.system_events",
	}
	testDunningScopes = []string{"dunning.debtors", "dunning.charges"}
)
