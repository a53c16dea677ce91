// Package producttest serves one product for its tests the way the binary
// does: its spec assembled by productkit.Assemble on a loopback listener,
// over a real database, with two organizations that must never see each
// other's data (Mine and Theirs, an owner in each), real access tokens,
// the job queue working in the process, and the error-code style of the
// product in front (Listener.Front). Every product's tests drive it, so
// none copies another's harness.
package producttest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/oauth/server"
	"github.com/kobana/kobana-mcp/oauth/server/sqlstore"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/productkit/approval"
	"github.com/kobana/kobana-mcp/productkit/toolreg"
)

// Options adjust what Start builds.
type Options struct {
	// Webhooks are the deployment's webhook settings (tests reaching a
	// loopback receiver allow private targets and retry fast).
	Webhooks productkit.WebhookSettings
	// RateLimits, when set, limits the product's requests.
	RateLimits productkit.RateLimits
	// Wrap, when set, is what the binary puts in front of the listener
	// (the overload guard, the unauthenticated limit); the product's
	// Front wraps it, as in serve.
	Wrap func(http.Handler) http.Handler
	// Tools, when set, are the deployment's other products' tools
	// (productkit.Deps.Tools), for a product that calls them.
	Tools *toolreg.Registry
	// SignIn serves the built-in authorization server on the listener, as
	// serve does (productkit.Deps.AuthServer, its sign-in returning to the
	// approval pages), after migrating its tables and the approvals': the
	// product then answers a destructive call a client cannot confirm with
	// its approval link, whose page a Browser signs in to and decides.
	SignIn bool
	// Approvals is productkit.Deps.Approvals: the queue's one runner of
	// approved calls, for products assembled on one queue (Queue).
	Approvals *approval.Runners
	// Queue, when set, is the job queue to assemble the product on instead
	// of one of its own: several products served on one queue, as serve
	// does. The caller starts and stops it.
	Queue *jobs.Queue
	// Share, when set, is another product's Env over the same database:
	// this one serves the same organizations and people (a deployment of
	// several products) instead of creating its own.
	Share *Env
	// Tracer, when set, traces the product and its own queue
	// (productkit.Deps.Tracer, jobs.Config.Tracer); open db with the same
	// provider (storetest.OpenWith) for its queries' spans.
	Tracer trace.TracerProvider
}

// Password is the password of every user Start creates (Owner, Other),
// for signing in to the product's pages (Browser).
const Password = "a long enough password"

// Env is one product listener on loopback and what its tests need: the
// database and accounts behind it, its base URL, two organizations with
// their default workspaces and owners, the job queue and the assembled
// listener.
type Env struct {
	t       testing.TB
	DB      *store.DB
	URL     string
	Acc     *accounts.Store
	Mine    accounts.Organization
	Theirs  accounts.Organization
	MineWS  accounts.Workspace // Mine's only workspace
	TheirWS accounts.Workspace
	Owner   accounts.User // owner of Mine
	Other   accounts.User // owner of Theirs
	Jobs    *jobs.Queue
	Product *productkit.Listener
	// Issuer signs the tokens the listener accepts.
	Issuer *oauth.Issuer
	spec   *productkit.Spec
	// scopes are the product's scopes, derived once: Spec.Scopes builds
	// the whole product, which per request was most of a test's CPU.
	scopes []string
}

// testPasswordParams are the argon2id costs of the users Start creates
// and of Env.Acc: the cheapest argon2id accepts. No product test signs
// in with a password (tokens are minted), and the default costs, meant to
// slow an attacker, cost every test a few hashes of 19 MiB each.
var testPasswordParams = accounts.PasswordParams{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}

// Start serves spec on a loopback listener over db until the test ends.
func Start(t testing.TB, db *store.DB, spec *productkit.Spec, opts Options) *Env {
	t.Helper()
	ctx := context.Background()
	acc := accounts.New(db, accounts.Options{Password: testPasswordParams})
	// Derived before Assemble: Scopes builds the product once more, and a
	// test's configure hook seeing that build must not see it last.
	e := &Env{t: t, DB: db, Acc: acc, spec: spec, scopes: spec.Scopes()}
	var err error
	if sh := opts.Share; sh != nil {
		e.Acc, e.Mine, e.Theirs, e.MineWS, e.TheirWS, e.Owner, e.Other = sh.Acc, sh.Mine, sh.Theirs, sh.MineWS, sh.TheirWS, sh.Owner, sh.Other
	} else if err = e.people(ctx); err != nil {
		t.Fatal(err)
	}
	ownQueue := opts.Queue == nil
	if e.Jobs = opts.Queue; ownQueue {
		if e.Jobs, err = jobs.New(ctx, db, jobs.Config{Work: true, PollInterval: testPollInterval, Tracer: opts.Tracer, Logger: FailureLog(t)}); err != nil {
			t.Fatal(err)
		}
	}
	keys, _ := oauth.NewKeySet(&oauth.MemoryKeyStore{}, oauth.KeySetOptions{})
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	e.URL = srv.URL
	e.Issuer = &oauth.Issuer{URL: srv.URL, Keys: keys}
	// The product's workspace picks are cached as serve caches them, so
	// every product test also checks that a change is seen at once.
	changes := accounts.NewChangeWatch(ctx, db, 0)
	t.Cleanup(changes.Close)
	var as *server.Server
	if opts.SignIn {
		if as, err = e.authServer(keys); err != nil {
			t.Fatal(err)
		}
	}
	e.Product, err = productkit.Assemble(spec, productkit.Deps{PublicURL: srv.URL, DB: db, Issuer: srv.URL, Keys: oauth.KeySetSource{Keys: keys}, Jobs: e.Jobs,
		Approvals: opts.Approvals, AuthServer: as,
		Webhooks: opts.Webhooks, RateLimits: opts.RateLimits, Tools: opts.Tools, Changes: changes, Tracer: opts.Tracer,
		Roles: func(ctx context.Context, id *identity.Identity) (identity.Role, error) {
			m, err := acc.GetMembership(ctx, id.OrganizationID, id.UserID)
			return m.Role, err
		}})
	if err != nil {
		t.Fatal(err)
	}
	h := e.Product.Handler
	if as != nil {
		// The authorization server shares the listener, as in serve.
		inner := http.NewServeMux()
		as.Routes(inner)
		inner.Handle("/", h)
		h = inner
	}
	if opts.Wrap != nil {
		h = opts.Wrap(h)
	}
	mux.Handle("/", e.Product.Front(h))
	if ownQueue {
		if err := e.Jobs.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = e.Jobs.Stop(c)
		})
	}
	if e.Product.Start != nil {
		if err := e.Product.Start(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if e.Product.Shutdown != nil {
		t.Cleanup(func() {
			c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = e.Product.Shutdown(c)
		})
	}
	return e
}

// people creates the two organizations and their owners.
func (e *Env) people(ctx context.Context) error {
	var err error
	if e.Mine, err = e.Acc.CreateOrganization(ctx, "Mine"); err != nil {
		return err
	}
	if e.Theirs, err = e.Acc.CreateOrganization(ctx, "Theirs"); err != nil {
		return err
	}
	ws, _ := e.Acc.ListWorkspaces(ctx, e.Mine.ID)
	e.MineWS = ws[0]
	ws, _ = e.Acc.ListWorkspaces(ctx, e.Theirs.ID)
	e.TheirWS = ws[0]
	if e.Owner, err = e.Acc.CreateUser(ctx, accounts.NewUser{Email: "owner@mine.example", Password: Password, OrganizationID: e.Mine.ID, Role: identity.RoleOwner}); err != nil {
		return err
	}
	if e.Other, err = e.Acc.CreateUser(ctx, accounts.NewUser{Email: "owner@theirs.example", Password: Password, OrganizationID: e.Theirs.ID, Role: identity.RoleOwner}); err != nil {
		return err
	}
	return nil
}

// authServer is the built-in authorization server of the listener, as
// serve builds it (cmd/kobana-mcp authserver.go), over its tables and the
// approvals' (migrated here: storetest applies the platform's and the
// product's only).
func (e *Env) authServer(keys *oauth.KeySet) (*server.Server, error) {
	if _, err := e.DB.Migrate(context.Background(), productkit.FrameworkMigrations()...); err != nil {
		return nil, err
	}
	return server.New(server.Config{
		Issuer: e.URL, ProductName: e.spec.Title, Resources: []string{e.URL + productkit.MCPPath, e.URL + e.spec.APIBase},
		Scopes: e.scopes, ScopeDescriptions: e.spec.ScopeDescriptions, Keys: keys, Store: sqlstore.New(e.DB),
		Accounts: sqlstore.Accounts{Store: e.Acc}, ReturnPaths: e.spec.ReturnPaths(),
	})
}

// Token mints an access token for user (Owner or Other) with scopes
// (default: every scope of the product), for the API ("api") or the MCP
// endpoint ("mcp").
func (e *Env) Token(user accounts.User, resource string, scopes ...string) string {
	e.t.Helper()
	if len(scopes) == 0 {
		scopes = e.scopes
	}
	org := e.Mine.ID
	if user.ID == e.Other.ID {
		org = e.Theirs.ID
	}
	aud := e.URL + productkit.MCPPath
	if resource == "api" {
		aud = e.URL + e.spec.APIBase
	}
	s, _, err := e.Issuer.Issue(oauth.Grant{Subject: user.ID, UserID: user.ID, OrganizationID: org, Audience: aud, Scopes: scopes, TTL: time.Hour})
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// Do sends a REST request as user with every scope; body is marshalled
// unless it is a string or []byte; header is name, value pairs. It
// returns the status and the body.
func (e *Env) Do(user accounts.User, method, path string, body any, header ...string) (int, string) {
	e.t.Helper()
	return e.DoToken(e.Token(user, "api"), method, path, body, header...)
}

// DoToken is Do with a given token ("" for none).
func (e *Env) DoToken(token, method, path string, body any, header ...string) (int, string) {
	e.t.Helper()
	code, _, b := e.DoFull(token, method, path, body, header...)
	return code, b
}

// DoFull is DoToken that returns the response headers too.
func (e *Env) DoFull(token, method, path string, body any, header ...string) (int, http.Header, string) {
	e.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	case []byte:
		r = bytes.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		r = bytes.NewReader(j)
	}
	req, _ := http.NewRequest(method, e.URL+path, r)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// Call runs an MCP tool as user over the 2026-07-28 protocol with no
// client capabilities (so destructive tools cannot be confirmed). It
// returns the first text content and isError, or a JSON-RPC error's
// message and true.
func (e *Env) Call(user accounts.User, tool string, args map[string]any, header ...string) (string, bool) {
	e.t.Helper()
	return e.firstText(tool, e.RPC(user, "tools/call", map[string]any{"name": tool, "arguments": args}, header...))
}

// RPC sends one JSON-RPC request to the MCP endpoint as user (protocol
// 2026-07-28, no client capabilities) and returns the raw response body.
func (e *Env) RPC(user accounts.User, method string, params map[string]any, header ...string) string {
	e.t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	if _, ok := params["_meta"]; !ok {
		params["_meta"] = map[string]any{
			"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "producttest", "version": "1"},
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	h := append([]string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method}, header...)
	if n, ok := params["name"].(string); ok {
		h = append(h, "Mcp-Name", n)
	}
	if u, ok := params["uri"].(string); ok {
		h = append(h, "Mcp-Name", u)
	}
	_, out := e.DoToken(e.Token(user, "mcp"), "POST", productkit.MCPPath, body, h...)
	return out
}

// testPollInterval is how often a test server's queue looks for jobs no
// notification announced (those scheduled for later: retries, snoozes).
// An enqueued job starts sooner, through River's notification (on SQLite
// an outbox polled every 50 ms). Every poll of every queue is a write on
// SQLite, which under -race cost the Dunning tests about 18 s of CPU at
// 50 ms (docs/decisions.md "Test queues poll at 200 ms").
const testPollInterval = 200 * time.Millisecond
