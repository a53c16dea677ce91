package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/oauth/server"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/pagetext"
)

func TestMetadata(t *testing.T) {
	t.Parallel()
	e := newEnvSQLite(t)
	var docs []map[string]any
	for _, p := range []string{server.PathMetadata, server.PathOpenIDMetadata} {
		resp, err := http.Get(e.issuer + p)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		err = json.NewDecoder(resp.Body).Decode(&m)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Fatalf("%s: %d %v", p, resp.StatusCode, err)
		}
		docs = append(docs, m)
	}
	a, _ := json.Marshal(docs[0])
	b, _ := json.Marshal(docs[1])
	if string(a) != string(b) {
		t.Fatalf("the two metadata documents differ:\n%s\n%s", a, b)
	}
	m := docs[0]
	want := map[string]any{
		"issuer":                                e.issuer,
		"authorization_endpoint":                e.issuer + "/authorize",
		"token_endpoint":                        e.issuer + "/token",
		"registration_endpoint":                 e.issuer + "/register",
		"revocation_endpoint":                   e.issuer + "/revoke",
		"jwks_uri":                              e.issuer + "/.well-known/jwks.json",
		"client_id_metadata_document_supported": true,
		"authorization_response_iss_parameter_supported": true,
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %v, want %v", k, m[k], v)
		}
	}
	lists := map[string][]string{
		"response_types_supported":              {"code"},
		"grant_types_supported":                 {"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":      {"S256"},
		"token_endpoint_auth_methods_supported": {"none", "client_secret_basic", "client_secret_post"},
		"scopes_supported":                      append(slices.Clone(testInboxScopes), "offline_access"),
	}
	for k, v := range lists {
		var got []string
		for _, x := range m[k].([]any) {
			got = append(got, x.(string))
		}
		if !slices.Equal(got, v) {
			t.Errorf("%s = %v, want %v", k, got, v)
		}
	}

	resp, err := http.Get(e.issuer + server.PathJWKS)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var set struct {
		Keys []map[string]any `json:"keys"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&set); err != nil || len(set.Keys) == 0 {
		t.Fatalf("jwks: %v %v", err, set)
	}
	for _, k := range set.Keys {
		if k["d"] != nil || k["alg"] != "ES256" || k["kid"] == "" {
			t.Fatalf("published key: %v", k)
		}
	}
}

// TestCodeFlow is the whole flow a client and a person go through, on
// both engines: registration, sign-in, consent, code, token, refresh.
func TestCodeFlow(t *testing.T) {
	t.Parallel()
	runEnvs(t, func(t *testing.T, e *env) {
		clientID := e.publicClient()
		p := newPKCE()
		b := e.browser()
		first := b.get(e.issuer + server.PathAuthorize + "?" + authParams(clientID, p,
			"scope", "inbox.emails inbox.inboxes offline_access openid", "resource", e.mcp).Encode())
		consentPage := b.signIn(e.issuer, first, anaEmail, anaPassword)
		// No Accept-Language: the page is in Brazilian Portuguese.
		pt := pagetext.In(pagetext.PortugueseBR)
		for _, s := range []string{"Test Agent", "não verificado", "Kobana Autonomous Inbox", e.mcp, "Acme Ltda", `lang="pt-BR"`,
			e.as.ScopeDescription(pt, "inbox.emails"), e.as.ScopeDescription(pt, "inbox.inboxes"), e.as.ScopeDescription(pt, "offline_access"), anaEmail} {
			if !strings.Contains(consentPage.body, s) {
				t.Errorf("consent page lacks %q", s)
			}
		}
		if strings.Contains(consentPage.body, `<code class="scope">inbox.webhooks`) || strings.Contains(consentPage.body, `<code class="scope">openid`) {
			t.Errorf("consent page shows a scope that was not granted:\n%s", consentPage.body)
		}
		for _, h := range []string{"Content-Security-Policy", "X-Frame-Options"} {
			if consentPage.header.Get(h) == "" {
				t.Errorf("consent page without %s", h)
			}
		}
		redirect := b.consent(e.issuer, consentPage, "allow")
		code := e.code(redirect)

		tr := e.exchange(clientID, code, p, "resource", e.mcp)
		if tr.Status != 200 || tr.TokenType != "bearer" || tr.RefreshToken == "" || tr.ExpiresIn < 890 || tr.ExpiresIn > 900 {
			t.Fatalf("token response: %+v", tr)
		}
		if tr.Scope != "inbox.inboxes inbox.emails offline_access" {
			t.Errorf("granted scope %q", tr.Scope)
		}
		id, err := e.verifier(e.mcp).Verify(context.Background(), tr.AccessToken)
		if err != nil {
			t.Fatalf("the MCP resource refuses its token: %v", err)
		}
		if id.Subject != e.user.ID || id.UserID != e.user.ID || id.OrganizationID != e.org.ID || id.Email != anaEmail ||
			id.ClientID != clientID || !slices.Equal(id.Scopes, []string{"inbox.inboxes", "inbox.emails"}) || id.Role != "" {
			t.Fatalf("identity from the token: %+v", id)
		}
		if _, err := e.verifier(e.api).Verify(context.Background(), tr.AccessToken); !errors.Is(err, oauth.ErrInvalidToken) || !strings.Contains(err.Error(), "another resource") {
			t.Fatalf("the API accepted a token for the MCP endpoint: %v", err)
		}

		// Refresh: a new pair, the same identity.
		tr2 := e.refresh(clientID, tr.RefreshToken)
		if tr2.Status != 200 || tr2.RefreshToken == "" || tr2.RefreshToken == tr.RefreshToken || tr2.AccessToken == tr.AccessToken {
			t.Fatalf("refresh: %+v", tr2)
		}
		id2, err := e.verifier(e.mcp).Verify(context.Background(), tr2.AccessToken)
		if err != nil || id2.OrganizationID != e.org.ID || !slices.Equal(id2.Scopes, id.Scopes) {
			t.Fatalf("refreshed token: %+v %v", id2, err)
		}

		// Signed in already: the next authorization goes straight to
		// consent.
		again := b.get(e.issuer + server.PathAuthorize + "?" + authParams(clientID, newPKCE()).Encode())
		if again.status != 200 || !strings.Contains(again.body, `id="allow"`) {
			t.Fatalf("second authorization: %d", again.status)
		}
		// Nothing requested: every scope of the product.
		for _, s := range testInboxScopes {
			if !strings.Contains(again.body, `<code class="scope">`+s+`</code>`) {
				t.Errorf("default grant lacks %s", s)
			}
		}
	})
}

func TestSessionCookie(t *testing.T) {
	t.Parallel()
	e := newEnvSQLite(t)
	resp, err := http.Get(e.issuer + server.PathSignIn)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cookies := resp.Cookies()
	if len(cookies) != 1 {
		t.Fatalf("cookies: %v", cookies)
	}
	c := cookies[0]
	if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure || c.Path != "/" || len(c.Value) < 40 {
		t.Fatalf("session cookie: %+v", c)
	}
	if !strings.Contains(resp.Header.Get("Set-Cookie"), "HttpOnly") || !strings.Contains(resp.Header.Get("Set-Cookie"), "SameSite=Lax") {
		t.Fatalf("Set-Cookie: %s", resp.Header.Get("Set-Cookie"))
	}
}

func TestAudienceBinding(t *testing.T) {
	t.Parallel()
	runEnvs(t, func(t *testing.T, e *env) {
		// A token for the API: good there, refused by the MCP endpoint.
		_, tr := e.grant("resource", e.api+"/")
		if _, err := e.verifier(e.api).Verify(context.Background(), tr.AccessToken); err != nil {
			t.Fatalf("API token refused by the API: %v", err)
		}
		if _, err := e.verifier(e.mcp).Verify(context.Background(), tr.AccessToken); err == nil {
			t.Fatal("the MCP endpoint accepted a token for the API")
		}
		// And by another product's verifier, even for the same path.
		other := &oauth.JWTVerifier{Issuer: "http://127.0.0.1:1", Audience: "http://127.0.0.1:1/api/v1", Keys: oauth.KeySetSource{Keys: e.keys}}
		if _, err := other.Verify(context.Background(), tr.AccessToken); err == nil {
			t.Fatal("another product accepted the token")
		}
	})
}

func TestResourceRefused(t *testing.T) {
	t.Parallel()
	e := newEnvSQLite(t)
	clientID := e.publicClient()
	b := e.browser()
	for name, res := range map[string][]string{
		"another product": {"http://127.0.0.1:1/mcp"},
		"another path":    {e.issuer + "/other"},
		"two resources":   {e.mcp, e.api},
		"a fragment":      {e.mcp + "#x"},
		"not a URL":       {"mcp"},
	} {
		q := authParams(clientID, newPKCE())
		q["resource"] = res
		got := b.get(e.issuer + server.PathAuthorize + "?" + q.Encode())
		if got.status != http.StatusSeeOther {
			t.Fatalf("%s: %d %s", name, got.status, got.body)
		}
		v := got.location().Query()
		if v.Get("error") != "invalid_target" || v.Get("iss") != e.issuer || v.Get("state") != "state-1234567890" || v.Get("code") != "" {
			t.Fatalf("%s: redirect %s", name, got.location())
		}
	}

	// At the token endpoint: a resource other than the grant's.
	p := newPKCE()
	code := e.code(e.authorize(e.browser(), authParams(clientID, p, "resource", e.mcp)))
	if tr := e.exchange(clientID, code, p, "resource", e.api); tr.Status != 400 || tr.Error != "invalid_target" {
		t.Fatalf("exchange for another resource: %+v", tr)
	}
	clientB, tr := e.grant()
	if tr2 := e.refresh(clientB, tr.RefreshToken, "resource", "http://127.0.0.1:1/mcp"); tr2.Status != 400 || tr2.Error != "invalid_target" {
		t.Fatalf("refresh for another product: %+v", tr2)
	}
	if tr2 := e.refresh(clientB, tr.RefreshToken, "resource", e.api); tr2.Status != 400 || tr2.Error != "invalid_target" {
		t.Fatalf("refresh for the other resource: %+v", tr2)
	}
	if tr2 := e.refresh(clientB, tr.RefreshToken, "resource", e.mcp); tr2.Status != 200 {
		t.Fatalf("refresh naming the grant's own resource: %+v", tr2)
	}
}

func TestPKCERequired(t *testing.T) {
	t.Parallel()
	e := newEnvSQLite(t)
	clientID := e.publicClient()
	p := newPKCE()
	b := e.browser()
	for name, q := range map[string]url.Values{
		"plain":           authParams(clientID, p, "code_challenge_method", "plain", "code_challenge", p.verifier),
		"no method":       authParams(clientID, p, "code_challenge_method", ""),
		"no challenge":    authParams(clientID, p, "code_challenge", "", "code_challenge_method", ""),
		"unknown method":  authParams(clientID, p, "code_challenge_method", "S512"),
		"challenge alone": authParams(clientID, p, "code_challenge_method", "", "code_challenge", p.challenge),
	} {
		got := b.get(e.issuer + server.PathAuthorize + "?" + q.Encode())
		if got.status != http.StatusSeeOther {
			t.Fatalf("%s: %d %s", name, got.status, got.body)
		}
		v := got.location().Query()
		if v.Get("error") != "invalid_request" || v.Get("iss") != e.issuer || v.Get("code") != "" {
			t.Fatalf("%s: %s", name, got.location())
		}
	}

	// A wrong verifier is refused, and the code cannot be tried again.
	code := e.code(e.authorize(e.browser(), authParams(clientID, p)))
	if tr := e.exchange(clientID, code, newPKCE()); tr.Status != 400 || tr.Error != "invalid_grant" {
		t.Fatalf("wrong verifier: %+v", tr)
	}
	if tr := e.exchange(clientID, code, p); tr.Status != 400 || tr.Error != "invalid_grant" {
		t.Fatalf("right verifier after a wrong one: %+v", tr)
	}
	// No verifier at all.
	code = e.code(e.authorize(e.browser(), authParams(clientID, p)))
	if tr := e.exchange(clientID, code, pkce{}); tr.Status != 400 {
		t.Fatalf("no verifier: %+v", tr)
	}
}

func TestCodeReuse(t *testing.T) {
	t.Parallel()
	runEnvs(t, func(t *testing.T, e *env) {
		clientID := e.publicClient()
		p := newPKCE()
		code := e.code(e.authorize(e.browser(), authParams(clientID, p)))
		first := e.exchange(clientID, code, p)
		if first.Status != 200 {
			t.Fatalf("first exchange: %+v", first)
		}
		if tr := e.exchange(clientID, code, p); tr.Status != 400 || tr.Error != "invalid_grant" {
			t.Fatalf("second exchange: %+v", tr)
		}
		// Reuse revokes what the code issued.
		if tr := e.refresh(clientID, first.RefreshToken); tr.Status != 400 {
			t.Fatalf("refresh token of a reused code: %+v", tr)
		}
		// Another client cannot redeem a code either.
		code = e.code(e.authorize(e.browser(), authParams(clientID, p)))
		if tr := e.exchange(e.publicClient(), code, p); tr.Status != 400 || tr.Error != "invalid_grant" {
			t.Fatalf("exchange by another client: %+v", tr)
		}
	})
}

func TestRefreshRotationAndReuse(t *testing.T) {
	t.Parallel()
	runEnvs(t, func(t *testing.T, e *env) {
		clientID, tr := e.grant()
		r1 := tr.RefreshToken
		tr2 := e.refresh(clientID, r1)
		if tr2.Status != 200 {
			t.Fatalf("refresh: %+v", tr2)
		}
		r2 := tr2.RefreshToken
		tr3 := e.refresh(clientID, r2)
		if tr3.Status != 200 {
			t.Fatalf("second refresh: %+v", tr3)
		}
		r3 := tr3.RefreshToken
		// r1 again: reuse. Refused, and the whole family is revoked: the
		// newest token r3 stops working too.
		if got := e.refresh(clientID, r1); got.Status != 400 || got.Error != "invalid_grant" {
			t.Fatalf("reused refresh token: %+v", got)
		}
		if got := e.refresh(clientID, r3); got.Status != 400 {
			t.Fatalf("the newest token of a revoked family still works: %+v", got)
		}
		// Another grant of the same client is untouched.
		clientB, trB := e.grant()
		if got := e.refresh(clientB, trB.RefreshToken); got.Status != 200 {
			t.Fatalf("an unrelated grant was revoked: %+v", got)
		}
		// A refresh token presented by another client is refused.
		if got := e.refresh(clientID, trB.RefreshToken); got.Status != 400 {
			t.Fatalf("refresh by another client: %+v", got)
		}
		// Garbage.
		if got := e.refresh(clientID, "krt_nope"); got.Status != 400 || got.Error != "invalid_grant" {
			t.Fatalf("unknown refresh token: %+v", got)
		}
	})
}

func TestRevocation(t *testing.T) {
	t.Parallel()
	runEnvs(t, func(t *testing.T, e *env) {
		clientID, tr := e.grant()
		status, body := e.postForm(server.PathRevoke, url.Values{"token": {tr.RefreshToken}, "token_type_hint": {"refresh_token"}, "client_id": {clientID}}, "", "")
		if status != 200 {
			t.Fatalf("revoke: %d %s", status, body)
		}
		if got := e.refresh(clientID, tr.RefreshToken); got.Status != 400 {
			t.Fatalf("revoked refresh token still works: %+v", got)
		}
		// Revoking an access token revokes its grant.
		clientID, tr = e.grant()
		status, _ = e.postForm(server.PathRevoke, url.Values{"token": {tr.AccessToken}, "token_type_hint": {"access_token"}, "client_id": {clientID}}, "", "")
		if status != 200 {
			t.Fatalf("revoke access token: %d", status)
		}
		if got := e.refresh(clientID, tr.RefreshToken); got.Status != 400 {
			t.Fatalf("grant of a revoked access token still refreshes: %+v", got)
		}
		// Unknown tokens: 200 (RFC 7009 §2.2).
		if status, _ := e.postForm(server.PathRevoke, url.Values{"token": {"krt_unknown"}, "client_id": {clientID}}, "", ""); status != 200 {
			t.Fatalf("unknown token: %d", status)
		}
		// Another client cannot revoke someone else's token (the answer is
		// 200 all the same: it tells nothing about the token).
		clientA, trA := e.grant()
		other := e.publicClient()
		if status, _ := e.postForm(server.PathRevoke, url.Values{"token": {trA.RefreshToken}, "client_id": {other}}, "", ""); status != 200 {
			t.Fatalf("revocation by another client: %d", status)
		}
		if got := e.refresh(clientA, trA.RefreshToken); got.Status != 200 {
			t.Fatalf("another client revoked a token: %+v", got)
		}
	})
}

func TestDenyAndIss(t *testing.T) {
	t.Parallel()
	e := newEnvSQLite(t)
	clientID := e.publicClient()
	b := e.browser()
	first := b.get(e.issuer + server.PathAuthorize + "?" + authParams(clientID, newPKCE()).Encode())
	consentPage := b.signIn(e.issuer, first, anaEmail, anaPassword)
	got := b.consent(e.issuer, consentPage, "deny")
	q := got.location().Query()
	if got.status != http.StatusSeeOther || q.Get("error") != "access_denied" || q.Get("iss") != e.issuer || q.Get("state") != "state-1234567890" || q.Get("code") != "" {
		t.Fatalf("deny: %d %s", got.status, got.location())
	}
	if !strings.HasPrefix(got.header.Get("Location"), callback+"?") {
		t.Fatalf("deny redirect: %s", got.header.Get("Location"))
	}
}

func TestBadRequestsGetAPage(t *testing.T) {
	t.Parallel()
	e := newEnvSQLite(t)
	clientID := e.publicClient()
	b := e.browser()
	for name, q := range map[string]url.Values{
		"unknown client":        authParams("kc_nobody", newPKCE()),
		"unregistered redirect": authParams(clientID, newPKCE(), "redirect_uri", "http://127.0.0.1:9/evil"),
	} {
		got := b.get(e.issuer + server.PathAuthorize + "?" + q.Encode())
		if got.status < 400 || got.header.Get("Location") != "" || !strings.Contains(got.header.Get("Content-Type"), "text/html") {
			t.Fatalf("%s: %d %v", name, got.status, got.header)
		}
	}
	// Other response types are refused at the redirect URI.
	got := b.get(e.issuer + server.PathAuthorize + "?" + authParams(clientID, newPKCE(), "response_type", "token").Encode())
	if got.status != http.StatusSeeOther || got.location().Query().Get("error") != "unsupported_response_type" || got.location().Query().Get("iss") != e.issuer {
		t.Fatalf("implicit: %d %s", got.status, got.header.Get("Location"))
	}
}

func TestOrganizationChoice(t *testing.T) {
	t.Parallel()
	e := newEnvSQLite(t)
	ctx := context.Background()
	second, err := e.acc.CreateOrganization(ctx, "Beta SA")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.acc.SetRole(ctx, second.ID, e.user.ID, identity.RoleViewer); err != nil {
		t.Fatal(err)
	}
	clientID := e.publicClient()
	p := newPKCE()
	b := e.browser()
	consentPage := b.signIn(e.issuer, b.get(e.issuer+server.PathAuthorize+"?"+authParams(clientID, p).Encode()), anaEmail, anaPassword)
	if !strings.Contains(consentPage.body, `type="radio" name="org" value="`+second.ID+`"`) || !strings.Contains(consentPage.body, "Beta SA") ||
		!strings.Contains(consentPage.body, `value="`+e.org.ID+`" checked`) {
		t.Fatalf("no choice of organization:\n%s", consentPage.body)
	}
	// No choice made: asked again.
	if got := b.consent(e.issuer, consentPage, "allow"); got.status != 400 || !strings.Contains(got.body, pagetext.In(pagetext.PortugueseBR).Say(pagetext.KeyConsentChooseOrg)) {
		t.Fatalf("allow without an organization: %d", got.status)
	}
	// An organization the person does not belong to.
	stranger, _ := e.acc.CreateOrganization(ctx, "Stranger")
	if got := b.consent(e.issuer, consentPage, "allow", "org", stranger.ID); got.status != 400 {
		t.Fatalf("allow for a foreign organization: %d", got.status)
	}
	code := e.code(b.consent(e.issuer, consentPage, "allow", "org", second.ID))
	tr := e.exchange(clientID, code, p)
	id, err := e.verifier(e.mcp).Verify(ctx, tr.AccessToken)
	if err != nil || id.OrganizationID != second.ID {
		t.Fatalf("org claim: %+v %v", id, err)
	}
}

func TestCORSPreflight(t *testing.T) {
	t.Parallel()
	e := newEnvSQLite(t)
	req, _ := http.NewRequest(http.MethodOptions, e.issuer+server.PathToken, nil)
	req.Header.Set("Origin", "http://localhost:6274")
	req.Header.Set("Access-Control-Request-Method", "POST")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
}

// TestConcurrentUse: of several simultaneous exchanges of one code, or
// refreshes with one refresh token, exactly one succeeds.
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	runEnvs(t, func(t *testing.T, e *env) {
		const n = 5
		run := func(f func() tokenResponse) (ok int, statuses []int) {
			results := make(chan tokenResponse, n)
			start := make(chan struct{})
			for range n {
				go func() {
					<-start
					results <- f()
				}()
			}
			close(start)
			for range n {
				r := <-results
				statuses = append(statuses, r.Status)
				if r.Status == 200 {
					ok++
				}
			}
			return ok, statuses
		}
		clientID := e.publicClient()
		p := newPKCE()
		code := e.code(e.authorize(e.browser(), authParams(clientID, p)))
		if ok, statuses := run(func() tokenResponse { return e.exchange(clientID, code, p) }); ok != 1 {
			t.Fatalf("concurrent code exchanges: %d succeeded (%v)", ok, statuses)
		}
		clientID, tr := e.grant()
		ok, statuses := run(func() tokenResponse { return e.refresh(clientID, tr.RefreshToken) })
		if ok != 1 {
			t.Fatalf("concurrent refreshes: %d succeeded (%v)", ok, statuses)
		}
		for _, s := range statuses {
			if s >= 500 {
				t.Fatalf("a refresh that lost the race got %d (%v)", s, statuses)
			}
		}
	})
}

// TestStateOptional: PKCE is mandatory, so state may be absent or short
// (OAuth 2.1); it is echoed when present.
func TestStateOptional(t *testing.T) {
	t.Parallel()
	e := newEnvSQLite(t)
	clientID := e.publicClient()
	for _, state := range []string{"", "x"} {
		p := newPKCE()
		q := authParams(clientID, p, "state", state)
		if state == "" {
			q.Del("state")
		}
		got := e.authorize(e.browser(), q)
		v := got.location().Query()
		if got.status != http.StatusSeeOther || v.Get("code") == "" || v.Get("state") != state || v.Get("iss") != e.issuer {
			t.Fatalf("state %q: %d %s", state, got.status, got.location())
		}
		if tr := e.exchange(clientID, v.Get("code"), p); tr.Status != 200 {
			t.Fatalf("state %q: exchange %+v", state, tr)
		}
	}
	// Errors without a state carry none either, and still carry iss.
	b := e.browser()
	q := authParams(clientID, newPKCE(), "state", "", "code_challenge_method", "plain")
	got := b.get(e.issuer + server.PathAuthorize + "?" + q.Encode())
	if v := got.location().Query(); v.Get("error") != "invalid_request" || v.Has("state") || v.Get("iss") != e.issuer {
		t.Fatalf("stateless error: %s", got.location())
	}
	first := b.get(e.issuer + server.PathAuthorize + "?" + authParams(clientID, newPKCE(), "state", "").Encode())
	got = b.consent(e.issuer, b.signIn(e.issuer, first, anaEmail, anaPassword), "deny")
	if v := got.location().Query(); v.Get("error") != "access_denied" || v.Has("state") || v.Get("iss") != e.issuer {
		t.Fatalf("stateless deny: %s", got.location())
	}
}
