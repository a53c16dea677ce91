package server_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/oauth/server"
	"github.com/kobana/kobana-mcp/oauth/server/sqlstore"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// replicas is the built-in authorization server with the MCP endpoint of
// its product on one listener (as serve mounts them), and a second replica
// of that endpoint on a listener of its own: its own connection pool to the
// same database, its own key set loaded from it, its own resource server
// and role lookup — sharing nothing in memory with the first.
type replicas struct {
	*env
	// primary and replica are the MCP endpoints' URLs: the first on the
	// authorization server's listener, the second on the other replica's.
	primary, replica string
}

// runReplicas runs fn on every engine storetest offers.
func runReplicas(t *testing.T, fn func(t *testing.T, r *replicas)) {
	t.Helper()
	for _, d := range storetest.Engines {
		t.Run(string(d), func(t *testing.T) { fn(t, newReplicas(t, d)) })
	}
}

var deploymentSecret = []byte("a deployment secret of at least 32 bytes, shared by replicas")

func newReplicas(t *testing.T, d store.Dialect) *replicas {
	t.Helper()
	ctx := context.Background()
	dbURL := storetest.URL(t, d)
	open := func() *store.DB {
		db, err := store.Open(ctx, dbURL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		return db
	}
	db1 := open()
	if _, err := db1.Migrate(ctx, oauth.Migrations, sqlstore.Migrations); err != nil {
		t.Fatal(err)
	}
	keySet := func(db *store.DB) *oauth.KeySet {
		ks, err := oauth.NewDBKeyStore(db, deploymentSecret)
		if err != nil {
			t.Fatal(err)
		}
		set, err := oauth.NewKeySet(ks, oauth.KeySetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return set
	}
	keys1 := keySet(db1)
	e := newEnv(t, db1, func(c *server.Config) { c.Keys = keys1 })
	e.keys = keys1
	e.mux.Handle("/mcp", e.mcpEndpoint(db1, keys1))

	db2 := open()
	other := httptest.NewServer(e.mcpEndpoint(db2, keySet(db2)))
	t.Cleanup(other.Close)
	return &replicas{env: e, primary: e.mcp, replica: other.URL + "/mcp"}
}

// mcpEndpoint is the product's MCP endpoint as one replica runs it: the
// real mcp.Handler behind an oauth.ResourceServer whose verifier uses keys
// and whose role lookup reads db through the cache serve wires
// (sqlstore.RoleCache: revocation must still reach the replica that made
// it at once, the others within a second). The resource and issuer are
// the product's public ones, whichever listener serves it.
func (e *env) mcpEndpoint(db *store.DB, keys *oauth.KeySet) http.Handler {
	roles := sqlstore.NewRoleCache(context.Background(), db, sqlstore.RoleCacheOptions{})
	e.t.Cleanup(roles.Close)
	rs := &oauth.ResourceServer{
		Resource: e.mcp, MetadataURL: oauth.WellKnownURL(e.mcp), AuthorizationServers: []string{e.issuer},
		Scopes: e.scopes, Name: "Inbox MCP",
		Verifier: &oauth.JWTVerifier{Issuer: e.issuer, Audience: e.mcp, Keys: oauth.KeySetSource{Keys: keys}},
		Roles:    roles.Lookup,
	}
	ro := &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true), DestructiveHint: mcp.Bool(false), IdempotentHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)}
	return mcp.MustNewHandler(mcp.Options{Name: "test-inbox", Version: "1", Authorizer: rs}, mcp.Catalog{Tools: []mcp.Tool{{
		Name: "whoami", Description: "Who the token is for.", Annotations: ro,
		Requires: mcp.Requirement{Scopes: []string{"inbox.emails"}, Permission: identity.PermRead},
		Handler: func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult(identity.From(ctx).Email), nil
		},
	}}})
}

// answer is what an MCP endpoint said to a token.
type answer struct {
	status    int
	challenge string
	body      string
}

// call sends initialize to the MCP endpoint at endpoint with token.
func (r *replicas) call(endpoint, token string) answer {
	r.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, endpoint,
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, challenge: resp.Header.Get("WWW-Authenticate"), body: string(body)}
}

// accepted checks that both replicas answer the token.
func (r *replicas) accepted(what, token string) {
	r.t.Helper()
	for _, endpoint := range []string{r.primary, r.replica} {
		if a := r.call(endpoint, token); a.status != http.StatusOK || !strings.Contains(a.body, `"protocolVersion"`) {
			r.t.Fatalf("%s at %s: want 200 with an initialize result, got %d %q %s", what, endpoint, a.status, a.challenge, a.body)
		}
	}
}

// refused checks that the token is refused as a revoked one: at once by
// the replica that handled the revocation, within one second by the other.
func (r *replicas) refused(what, token string) {
	r.t.Helper()
	check := func(a answer) bool {
		return a.status == http.StatusUnauthorized &&
			strings.HasPrefix(a.challenge, `Bearer error="invalid_token"`) && strings.Contains(a.challenge, "revoked")
	}
	if a := r.call(r.primary, token); !check(a) {
		r.t.Fatalf("%s right after the revocation, on the replica that handled it: want 401 invalid_token (revoked), got %d %q %s", what, a.status, a.challenge, a.body)
	}
	deadline := time.Now().Add(time.Second)
	for {
		a := r.call(r.replica, token)
		if check(a) {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("%s one second after the revocation, on the other replica: want 401 invalid_token (revoked), got %d %q %s", what, a.status, a.challenge, a.body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// revoke posts a token to /revoke as the public client clientID.
func (r *replicas) revoke(clientID, token, hint string) {
	r.t.Helper()
	status, body := r.postForm(server.PathRevoke, url.Values{"token": {token}, "token_type_hint": {hint}, "client_id": {clientID}}, "", "")
	if status != http.StatusOK {
		r.t.Fatalf("revoke: %d %s", status, body)
	}
}

// refreshed is a grant whose tokens were refreshed once: the access token
// of the code exchange and the one of the refresh share the grant.
func (r *replicas) refreshed() (clientID string, first, second tokenResponse) {
	r.t.Helper()
	clientID, first = r.grant()
	second = r.refresh(clientID, first.RefreshToken)
	if second.Status != http.StatusOK {
		r.t.Fatalf("refresh: %+v", second)
	}
	r.accepted("the code exchange's access token", first.AccessToken)
	r.accepted("the refresh's access token", second.AccessToken)
	return clientID, first, second
}

// untouched checks that another grant of the same person, and a developer
// token without a grant, still work: revocation reached one grant, not the
// person.
func (r *replicas) untouched(otherGrant tokenResponse) {
	r.t.Helper()
	r.accepted("another grant of the same person", otherGrant.AccessToken)
	dev, _, err := (&oauth.Issuer{URL: r.issuer, Keys: r.keys}).Issue(oauth.Grant{
		Subject: r.user.ID, OrganizationID: r.org.ID, UserID: r.user.ID, Email: anaEmail, ClientID: "kobana-mcp-cli",
		Audience: r.mcp, Scopes: r.scopes,
	})
	if err != nil {
		r.t.Fatal(err)
	}
	r.accepted("a developer token (no grant)", dev)
}

// (a) /revoke of the access token.
func TestRevokedAccessTokenIsRefused(t *testing.T) {
	t.Parallel()
	runReplicas(t, func(t *testing.T, r *replicas) {
		_, other := r.grant()
		clientID, first, second := r.refreshed()
		r.revoke(clientID, second.AccessToken, "access_token")
		r.refused("the revoked access token", second.AccessToken)
		r.refused("an earlier access token of the grant", first.AccessToken)
		if got := r.refresh(clientID, second.RefreshToken); got.Status != http.StatusBadRequest {
			t.Fatalf("the grant of a revoked access token still refreshes: %+v", got)
		}
		r.untouched(other)
	})
}

// (a') /revoke of an access token a refresh has already replaced: it
// still verifies, so revoking it revokes its grant rather than nothing.
func TestRevokingARetiredAccessTokenRevokesItsGrant(t *testing.T) {
	t.Parallel()
	runReplicas(t, func(t *testing.T, r *replicas) {
		clientID, first, second := r.refreshed()
		r.revoke(clientID, first.AccessToken, "access_token")
		r.refused("the revoked access token", first.AccessToken)
		r.refused("the newer access token of the grant", second.AccessToken)
	})
}

// (b) /revoke of the refresh token.
func TestRevokedRefreshTokenRefusesTheAccessTokens(t *testing.T) {
	t.Parallel()
	runReplicas(t, func(t *testing.T, r *replicas) {
		_, other := r.grant()
		clientID, first, second := r.refreshed()
		r.revoke(clientID, second.RefreshToken, "refresh_token")
		r.refused("the access token of the revoked refresh token", second.AccessToken)
		r.refused("the code exchange's access token", first.AccessToken)
		r.untouched(other)
	})
}

// (c) a code exchanged twice: fosite revokes what the first exchange
// issued, and the resource servers refuse it.
func TestReusedCodeRefusesTheAccessTokens(t *testing.T) {
	t.Parallel()
	runReplicas(t, func(t *testing.T, r *replicas) {
		_, other := r.grant()
		clientID := r.publicClient()
		p := newPKCE()
		code := r.code(r.authorize(r.browser(), authParams(clientID, p)))
		first := r.exchange(clientID, code, p)
		if first.Status != http.StatusOK {
			t.Fatalf("exchange: %+v", first)
		}
		second := r.refresh(clientID, first.RefreshToken)
		if second.Status != http.StatusOK {
			t.Fatalf("refresh: %+v", second)
		}
		r.accepted("the code exchange's access token", first.AccessToken)
		r.accepted("the refresh's access token", second.AccessToken)
		if tr := r.exchange(clientID, code, p); tr.Status != http.StatusBadRequest || tr.Error != "invalid_grant" {
			t.Fatalf("second exchange of the code: %+v", tr)
		}
		r.refused("the first exchange's access token", first.AccessToken)
		r.refused("the refresh's access token", second.AccessToken)
		r.untouched(other)
	})
}

// (d) a retired refresh token presented again: fosite's reuse detection
// revokes the grant, and the resource servers refuse its access tokens.
func TestReusedRefreshTokenRefusesTheAccessTokens(t *testing.T) {
	t.Parallel()
	runReplicas(t, func(t *testing.T, r *replicas) {
		_, other := r.grant()
		clientID, first, second := r.refreshed()
		if got := r.refresh(clientID, first.RefreshToken); got.Status != http.StatusBadRequest || got.Error != "invalid_grant" {
			t.Fatalf("reused refresh token: %+v", got)
		}
		r.refused("the access token the reused refresh token was issued with", first.AccessToken)
		r.refused("the access token of the current refresh token", second.AccessToken)
		if got := r.refresh(clientID, second.RefreshToken); got.Status != http.StatusBadRequest {
			t.Fatalf("the current refresh token of a revoked grant still works: %+v", got)
		}
		r.untouched(other)
	})
}

// TestRotationIsNotRevocation: refreshing retires the refresh token but
// not the grant, so the access token issued before keeps working until it
// expires, on every replica.
func TestRotationIsNotRevocation(t *testing.T) {
	t.Parallel()
	runReplicas(t, func(t *testing.T, r *replicas) {
		clientID, first, second := r.refreshed()
		third := r.refresh(clientID, second.RefreshToken)
		if third.Status != http.StatusOK {
			t.Fatalf("second refresh: %+v", third)
		}
		for _, tok := range []string{first.AccessToken, second.AccessToken, third.AccessToken} {
			r.accepted("an access token of a refreshed grant", tok)
		}
	})
}
