package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/oauth/server"
	"github.com/kobana/kobana-mcp/oauth/server/sqlstore"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit"
)

// TestWithResourceServers mounts the authorization server beside a
// product's resource servers on one listener, as serve does, and follows
// the discovery chain a client follows: 401 → protected resource metadata
// → authorization server metadata → sign-in → token → accepted.
func TestWithResourceServers(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.SQLite, sqlstore.Migrations)
	ctx := context.Background()
	acc := accounts.New(db, accounts.Options{Password: cheapArgon})
	org, _ := acc.CreateOrganization(ctx, "Acme")
	if _, err := acc.CreateUser(ctx, accounts.NewUser{Email: anaEmail, Password: anaPassword, OrganizationID: org.ID, Role: identity.RoleViewer}); err != nil {
		t.Fatal(err)
	}
	keys, _ := oauth.NewKeySet(&oauth.MemoryKeyStore{}, oauth.KeySetOptions{})
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	defer ts.Close()
	auth := productkit.NewAuth(productkit.AuthConfig{PublicURL: ts.URL, APIBase: "/v1", Issuer: ts.URL, Keys: oauth.KeySetSource{Keys: keys},
		Scopes: testDunningScopes, Name: "Dunning",
		Roles: func(ctx context.Context, id *identity.Identity) (identity.Role, error) {
			m, err := acc.GetMembership(ctx, id.OrganizationID, id.UserID)
			return m.Role, err
		}})
	auth.Mount(mux)
	as, err := server.New(server.Config{Issuer: ts.URL, ProductName: "Kobana Dunning", Resources: []string{auth.MCP.Resource, auth.API.Resource},
		Scopes: testDunningScopes, Keys: keys, Store: sqlstore.New(db), Accounts: sqlstore.Accounts{Store: acc}})
	if err != nil {
		t.Fatal(err)
	}
	as.Routes(mux)
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if _, ok := auth.MCP.Authenticate(w, r); ok {
			w.WriteHeader(204)
		}
	})

	getJSON := func(u string, v any) {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %d %v", u, resp.StatusCode, err)
		}
	}
	resp, err := http.Post(ts.URL+"/mcp", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	challenge := resp.Header.Get("WWW-Authenticate")
	_, rest, _ := strings.Cut(challenge, `resource_metadata="`)
	prmURL, _, _ := strings.Cut(rest, `"`)
	var prm struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	getJSON(prmURL, &prm)
	var meta struct {
		Issuer        string `json:"issuer"`
		Registration  string `json:"registration_endpoint"`
		Authorization string `json:"authorization_endpoint"`
	}
	getJSON(prm.AuthorizationServers[0]+"/.well-known/oauth-authorization-server", &meta)
	if meta.Issuer != prm.AuthorizationServers[0] || prm.Resource != ts.URL+"/mcp" {
		t.Fatalf("discovery: %+v %+v", prm, meta)
	}

	e := &env{t: t, ts: ts, as: as, keys: keys, db: db, acc: acc, issuer: ts.URL, mcp: prm.Resource}
	_, tr := e.grant("resource", prm.Resource, "scope", "dunning.debtors")
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader("{}"))
	req.Header.Set("Authorization", "Bearer "+tr.AccessToken)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 204 {
		t.Fatalf("the MCP endpoint refused its token: %d %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	id, err := auth.MCP.Identify(req)
	if err != nil || id.Role != identity.RoleViewer || id.OrganizationID != org.ID || !id.HasScope("dunning.debtors") || id.HasScope("dunning.charges") {
		t.Fatalf("identity: %+v %v", id, err)
	}
	// The same token on the API: refused.
	if _, err := auth.API.Verifier.Verify(ctx, tr.AccessToken); err == nil {
		t.Fatal("the API accepted an MCP token")
	}
}
