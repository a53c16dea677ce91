package inbox

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/idempotency"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/rest"
)

// cfgIdempotentListener serves the Inbox's configuration operations (and
// their MCP tools) the way build (spec.go) does, with idempotency keys
// kept in the database: the wiring build gets with
// rest.Config{…, Idempotency: idempotency.New(deps.DB, …)}. It answers the
// harness's tokens (same public URL, issuer and keys), on its own address.
func cfgIdempotentListener(t *testing.T, e *testEnv, idem *idempotency.Store) string {
	t.Helper()
	deps := productkit.Deps{PublicURL: e.URL, DB: e.DB, Issuer: e.URL, Keys: oauth.KeySetSource{Keys: e.Issuer.Keys}, Jobs: e.Jobs,
		Roles: func(ctx context.Context, id *identity.Identity) (identity.Role, error) {
			m, err := e.Acc.GetMembership(ctx, id.OrganizationID, id.UserID)
			return m.Role, err
		}}
	auth := deps.ProductAuth("inbox", APIBase, Spec(Config{}).Scopes(), ServerTitle)
	api := rest.New(rest.Config{Authorize: auth.APIAuthorize(), BasePath: APIBase, Idempotency: idem})
	svc := &service{db: e.DB, accounts: accounts.New(e.DB, accounts.Options{}), nonces: deps.Nonces(), jobs: e.Jobs, cfg: Config{}.withDefaults()}
	registerWorkspaceDelete(api, svc.accounts, svc.nonces)
	registerWorkspaceReads(api, svc)
	registerWorkspaceWrites(api, svc)
	registerInboxes(api, svc)
	registerInboxRecipients(api, svc)
	registerAgents(api, svc)
	bridge := restbridge.New(api, restbridge.Options{ForwardHeaders: []string{"X-Workspace-Id"}})
	opts := MCPOptions(deps)
	deps.Protect(auth, &opts)
	h, err := mcp.NewHandler(opts, mcp.Catalog{Tools: api.Tools(bridge)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(productkit.Mux(h, APIBase, api))
	t.Cleanup(srv.Close)
	return srv.URL
}

// cfgSend is a REST request to base; it returns status, headers and body.
func cfgSend(t *testing.T, base, token, method, path, body string, header ...string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func cfgCount(t *testing.T, db *store.DB, orgID string) int {
	t.Helper()
	var n int
	if err := db.Get(context.Background(), &n, `SELECT COUNT(*) FROM inboxes WHERE organization_id = ?`, orgID); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestInboxesIdempotency: a retried inboxes_create with the same key gets
// the same 201 and body, marked Idempotent-Replayed, and no second inbox;
// the same key with another body is idempotency_key_reused; keys are per
// organization; an expired key runs again; identical requests at once run
// once; and the MCP tool's idempotency_key replays too.
func TestInboxesIdempotency(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := newTestEnv(t, db, Config{SMTPAddr: "off"})
		now := time.Now()
		var mu sync.Mutex
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		idem := idempotency.New(db, idempotency.Options{Namespace: "inbox", Vary: []string{"X-Workspace-Id"}, Now: clock})
		base := cfgIdempotentListener(t, e, idem)
		mine, theirs := e.Token(e.Owner, "api"), e.Token(e.Other, "api")

		code, h, first := cfgSend(t, base, mine, "POST", "/api/v1/inboxes", `{"label":"Once"}`, "X-Idempotency-Key", "create-once")
		if code != 201 || h.Get("Idempotent-Replayed") != "" || cfgCount(t, db, e.Mine.ID) != 1 {
			t.Fatalf("first: %d %s", code, first)
		}
		code, h, again := cfgSend(t, base, mine, "POST", "/api/v1/inboxes", `{ "label": "Once" }`, "X-Idempotency-Key", "create-once")
		if code != 201 || again != first || h.Get("Idempotent-Replayed") != "true" || cfgCount(t, db, e.Mine.ID) != 1 {
			t.Fatalf("replay: %d %v %s", code, h, again)
		}
		code, _, body := cfgSend(t, base, mine, "POST", "/api/v1/inboxes", `{"label":"Twice"}`, "Idempotency-Key", "create-once")
		if code != 409 || cfgError(t, body).Error.Code != "idempotency_key_reused" || cfgCount(t, db, e.Mine.ID) != 1 {
			t.Fatalf("other body: %d %s", code, body)
		}
		// The same key on another route is another request too.
		if code, _, body := cfgSend(t, base, mine, "POST", "/api/v1/agents", `{"label":"Once"}`, "X-Idempotency-Key", "create-once"); code != 409 {
			t.Fatalf("other route: %d %s", code, body)
		}
		// Theirs may use Mine's key for its own request.
		if code, h, body := cfgSend(t, base, theirs, "POST", "/api/v1/inboxes", `{"label":"Twice"}`, "X-Idempotency-Key", "create-once"); code != 201 || h.Get("Idempotent-Replayed") != "" || cfgCount(t, db, e.Theirs.ID) != 1 {
			t.Fatalf("their key: %d %s", code, body)
		}
		if code, _, body := cfgSend(t, base, mine, "POST", "/api/v1/inboxes", `{"label":"x"}`, "X-Idempotency-Key", strings.Repeat("k", 256)); code != 400 || !cfgError(t, body).hasField("X-Idempotency-Key") {
			t.Fatalf("a key too long: %d %s", code, body)
		}
		// A 409 the operation answered is kept; a PATCH is idempotent too.
		cfgSend(t, base, mine, "POST", "/api/v1/inboxes", `{"label":"Taken","external_id":"taken"}`)
		for range 2 {
			if code, _, _ := cfgSend(t, base, mine, "POST", "/api/v1/inboxes", `{"label":"Dup","external_id":"taken"}`, "X-Idempotency-Key", "dup"); code != 409 {
				t.Fatalf("conflict answered: %d", code)
			}
		}
		code, _, p1 := cfgSend(t, base, mine, "PATCH", "/api/v1/inboxes/taken", `{"label":"Renamed"}`, "X-Idempotency-Key", "patch")
		code2, h2, p2 := cfgSend(t, base, mine, "PATCH", "/api/v1/inboxes/taken", `{"label":"Renamed"}`, "X-Idempotency-Key", "patch")
		if code != 200 || code2 != 200 || p1 != p2 || h2.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("patch: %d %d", code, code2)
		}

		// After 24 hours the key is new again.
		mu.Lock()
		now = now.Add(25 * time.Hour)
		mu.Unlock()
		if code, h, _ := cfgSend(t, base, mine, "POST", "/api/v1/inboxes", `{"label":"Once"}`, "X-Idempotency-Key", "create-once"); code != 201 || h.Get("Idempotent-Replayed") != "" || cfgCount(t, db, e.Mine.ID) != 3 {
			t.Fatalf("expired key: %d (count %d)", code, cfgCount(t, db, e.Mine.ID))
		}

		// Identical requests at once: one inbox; each answer is the
		// creation, its replay, or "in use" (retry later).
		var wg sync.WaitGroup
		answers := make([]string, 6)
		for i := range answers {
			wg.Go(func() {
				code, h, body := cfgSend(t, base, mine, "POST", "/api/v1/inboxes", `{"label":"Race"}`, "X-Idempotency-Key", "race")
				switch {
				case code == 201 && h.Get("Idempotent-Replayed") == "":
					answers[i] = "ran"
				case code == 201:
					answers[i] = "replayed"
				case code == 409 && strings.Contains(body, "idempotency_key_in_use"):
					answers[i] = "in use"
				default:
					answers[i] = body
				}
			})
		}
		wg.Wait()
		ran := 0
		for _, a := range answers {
			switch a {
			case "ran":
				ran++
			case "replayed", "in use":
			default:
				t.Errorf("concurrent answer: %s", a)
			}
		}
		if ran != 1 || cfgCount(t, db, e.Mine.ID) != 4 {
			t.Fatalf("concurrent: %v, %d inboxes", answers, cfgCount(t, db, e.Mine.ID))
		}

		// Through MCP: the tool's idempotency_key travels as the header.
		tok := e.Token(e.Owner, "mcp")
		r1 := cfgMCP(t, base, tok, "agents_create", map[string]any{"label": "Via MCP", "idempotency_key": "mcp-1"}, `{}`, "", "")
		r2 := cfgMCP(t, base, tok, "agents_create", map[string]any{"label": "Via MCP", "idempotency_key": "mcp-1"}, `{}`, "", "")
		var n int
		_ = db.Get(context.Background(), &n, `SELECT COUNT(*) FROM inbox_agents WHERE organization_id = ?`, e.Mine.ID)
		if r1.Result.IsError || r1.text() != r2.text() || n != 1 {
			t.Fatalf("MCP replay: %s / %s (%d agents)", r1.raw, r2.raw, n)
		}
		r3 := cfgMCP(t, base, tok, "agents_create", map[string]any{"label": "Other", "idempotency_key": "mcp-1"}, `{}`, "", "")
		var eb cfgErrBody
		_ = json.Unmarshal([]byte(r3.text()), &eb)
		if !r3.Result.IsError || eb.Error.Code != "idempotency_key_reused" {
			t.Fatalf("MCP reuse: %s", r3.raw)
		}
		// The confirmation of a destructive write stores nothing; the
		// confirmed call runs, and its retry with the key replays.
		in := cfgData[inboxJSON](t, first)
		ask := cfgMCP(t, base, tok, "inboxes_recipients_add", map[string]any{"id": in.ID, "email": "a@b.example", "idempotency_key": "rcpt"}, `{"elicitation":{}}`, "", "")
		done := cfgMCP(t, base, tok, "inboxes_recipients_add", map[string]any{"id": in.ID, "email": "a@b.example", "idempotency_key": "rcpt"}, `{"elicitation":{}}`, ask.Result.RequestState, `{"confirm":{"action":"accept","content":{"confirm":true}}}`)
		if ask.Result.ResultType != "input_required" || done.Result.IsError || !strings.Contains(done.text(), "a@b.example") {
			t.Fatalf("confirmed add with a key: %s / %s", ask.raw, done.raw)
		}
		if code, h, _ := cfgSend(t, base, mine, "POST", "/api/v1/inboxes/"+in.ID+"/recipients", `{"email":"a@b.example"}`, "X-Idempotency-Key", "rcpt"); code != 201 || h.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("REST retry of the confirmed call: %d", code)
		}
		// The purge removes the three keys older than 24 h (Theirs'
		// create-once, dup, patch) and keeps the others.
		if n, err := idem.Purge(context.Background()); err != nil || n != 3 {
			t.Fatalf("purge: %d %v", n, err)
		}
		if _, h, _ := cfgSend(t, base, mine, "POST", "/api/v1/inboxes", `{"label":"Race"}`, "X-Idempotency-Key", "race"); h.Get("Idempotent-Replayed") != "true" {
			t.Fatal("the purge removed a live key")
		}
	})
}
