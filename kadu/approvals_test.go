package kadu

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/oauth/server"
	"github.com/kobana/kobana-mcp/oauth/server/sqlstore"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/productkit/approval"
)

// TestApprovalLinkWired: with a database and the built-in sign-in, Kadu
// serves the approval pages (behind sign-in) and has background work to
// stop at shutdown; without the sign-in it serves no approval page.
func TestApprovalLinkWired(t *testing.T) {
	t.Parallel()
	const public = "http://127.0.0.1:8083"
	db := storetest.Open(t, store.SQLite)
	keys, err := oauth.NewKeySet(&oauth.MemoryKeyStore{}, oauth.KeySetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	as, err := server.New(server.Config{
		Issuer: public, ProductName: ServerTitle, Resources: []string{public + "/mcp", public + APIBase}, Scopes: []string{"kadu.tasks"},
		Keys: keys, Store: sqlstore.New(db), Accounts: sqlstore.Accounts{Store: accounts.New(db, accounts.Options{})},
		ReturnPaths: []string{approval.PathPrefix},
	})
	if err != nil {
		t.Fatal(err)
	}
	deps := productkit.Deps{PublicURL: public, DB: db, Issuer: public, Keys: oauth.KeySetSource{Keys: keys}, AuthServer: as}
	p, err := productkit.Assemble(Spec(), deps)
	if err != nil {
		t.Fatal(err)
	}
	if p.Shutdown == nil {
		t.Error("no Shutdown for the approval runs")
	}
	w := httptest.NewRecorder()
	p.Handler.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/approvals/abc", nil))
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != server.PathSignIn+"?next="+url.QueryEscape("/approvals/abc") {
		t.Errorf("approval page: %d %q", w.Code, w.Header().Get("Location"))
	}

	deps.AuthServer = nil
	p, err = productkit.Assemble(Spec(), deps)
	if err != nil {
		t.Fatal(err)
	}
	w = httptest.NewRecorder()
	p.Handler.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/approvals/abc", nil))
	if w.Code != http.StatusNotFound {
		t.Errorf("without the built-in sign-in: %d", w.Code)
	}
}
