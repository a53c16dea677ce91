package kadu

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/oauth/server"
	"github.com/kobana/kobana-mcp/oauth/server/sqlstore"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/productkit/approval"
)

// approvalEnv is Kadu as serve builds it with the built-in authorization
// server, so destructive calls a client cannot confirm get the approval
// link (approvals.go).
type approvalEnv struct {
	t      *testing.T
	db     *store.DB
	url    string
	keys   *oauth.KeySet
	org    accounts.Organization
	owner  accounts.User
	taskID string
}

func startApprovalEnv(t *testing.T, db *store.DB) *approvalEnv {
	t.Helper()
	ctx := context.Background()
	e := &approvalEnv{t: t, db: db}
	acc := accounts.New(db, accounts.Options{})
	var err error
	if e.org, err = acc.CreateOrganization(ctx, "Acme"); err != nil {
		t.Fatal(err)
	}
	if e.owner, err = acc.CreateUser(ctx, accounts.NewUser{Email: "ana@acme.example", OrganizationID: e.org.ID, Role: identity.RoleOwner}); err != nil {
		t.Fatal(err)
	}
	if e.keys, err = oauth.NewKeySet(&oauth.MemoryKeyStore{}, oauth.KeySetOptions{}); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	e.url = srv.URL
	spec := specWith(Config{})
	as, err := server.New(server.Config{Issuer: srv.URL, ProductName: ServerTitle, Resources: []string{srv.URL + "/mcp", srv.URL + APIBase},
		Scopes: spec.Scopes(), Keys: e.keys, Store: sqlstore.New(db), Accounts: sqlstore.Accounts{Store: acc}, ReturnPaths: []string{approval.PathPrefix}})
	if err != nil {
		t.Fatal(err)
	}
	q, err := jobs.New(ctx, db, jobs.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	l, err := productkit.Assemble(spec, productkit.Deps{PublicURL: srv.URL, DB: db, Issuer: srv.URL, Keys: oauth.KeySetSource{Keys: e.keys},
		AuthServer: as, Jobs: q, Logger: slog.New(slog.DiscardHandler),
		Roles: func(ctx context.Context, id *identity.Identity) (identity.Role, error) {
			m, err := acc.GetMembership(ctx, id.OrganizationID, id.UserID)
			if errors.Is(err, store.ErrNotFound) {
				return "", oauth.ErrNoMembership
			}
			return m.Role, err
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = l.Shutdown(c)
	})
	mux.Handle("/", l.Handler)
	tk := &records.Task{ID: store.NewID(), OrganizationID: e.org.ID, OwnerUserID: e.owner.ID, Name: "Boletos", Mode: records.ModeWorkflow,
		Steps: []records.WorkflowStep{{Tool: "inbox_emails_list"}}, AllowedTools: []string{"inbox_emails_list"}, Status: records.TaskActive,
		CreatedAt: store.Now(), UpdatedAt: store.Now()}
	if err := records.InsertTask(ctx, db, tk); err != nil {
		t.Fatal(err)
	}
	e.taskID = tk.ID
	return e
}

func (e *approvalEnv) token(resource string) string {
	e.t.Helper()
	aud := e.url + "/mcp"
	if resource == "api" {
		aud = e.url + APIBase
	}
	tok, _, err := (&oauth.Issuer{URL: e.url, Keys: e.keys}).Issue(oauth.Grant{Subject: e.owner.ID, UserID: e.owner.ID, Email: e.owner.Email,
		OrganizationID: e.org.ID, ClientID: "kadu-test-client", Audience: aud, Scopes: specWith(Config{}).Scopes(), TTL: time.Hour})
	if err != nil {
		e.t.Fatal(err)
	}
	return tok
}

// mcpCall is one tools/call of kadu_tasks_run: modern is 2026-07-28 with
// caps, else 2025-06-18.
type mcpCall struct {
	modern                bool
	caps                  string
	state, inputResponses string
}

func (e *approvalEnv) run(c mcpCall) map[string]any {
	e.t.Helper()
	params := map[string]any{"name": "kadu_tasks_run", "arguments": map[string]any{"task_id": e.taskID, "input": map[string]any{"month": "2026-03"}}}
	version := mcp.Version20250618
	if c.modern {
		version = mcp.Version20260728
		params["_meta"] = json.RawMessage(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + c.caps + `,"io.modelcontextprotocol/clientInfo":{"name":"test","version":"1"}}`)
	}
	if c.state != "" {
		params["requestState"] = c.state
		params["inputResponses"] = json.RawMessage(c.inputResponses)
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
	req, _ := http.NewRequest("POST", e.url+"/mcp", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+e.token("mcp"))
	req.Header.Set("MCP-Protocol-Version", version)
	if c.modern {
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "kadu_tasks_run")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out struct {
		Result map[string]any
		Error  *struct{ Message string }
	}
	if err := json.Unmarshal(raw, &out); err != nil || (out.Result == nil && out.Error == nil) {
		e.t.Fatalf("%d: %s", resp.StatusCode, raw)
	}
	if out.Error != nil {
		return map[string]any{"rpcError": out.Error.Message}
	}
	return out.Result
}

func resultText(res map[string]any) string {
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		return ""
	}
	m, _ := content[0].(map[string]any)
	s, _ := m["text"].(string)
	return s
}

func (e *approvalEnv) executions() int {
	e.t.Helper()
	var n int
	if err := e.db.Get(context.Background(), &n, `SELECT COUNT(*) FROM kadu_executions`); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// TestRunConfirmationMatrix: kadu_tasks_run is confirmed in the chat by a
// 2026 client with form elicitation (input_required, then the run; a
// decline queues nothing), goes through the approval link as a URL
// elicitation for a 2026 client that declared only URL elicitation, and as
// a link result for a 2025 client and for a 2026 client that declared no
// elicitation; nothing is queued until the person agrees, and an approved
// call queues exactly one execution however often it is retried.
func TestRunConfirmationMatrix(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startApprovalEnv(t, db)

		// 2026 with form elicitation: asked in the chat.
		form := mcpCall{modern: true, caps: `{"elicitation":{"form":{}}}`}
		ask := e.run(form)
		reqs, _ := ask["inputRequests"].(map[string]any)
		confirm, _ := reqs["confirm"].(map[string]any)
		params, _ := confirm["params"].(map[string]any)
		msg, _ := params["message"].(string)
		if ask["resultType"] != "input_required" || !strings.HasPrefix(msg, "Run task 'Boletos'") || !strings.Contains(msg, `{"month":"2026-03"}`) || e.executions() != 0 {
			t.Fatalf("form: %v", ask)
		}
		// Declined: an error result, nothing queued; asked again, accepted.
		declined := form
		declined.state, declined.inputResponses = ask["requestState"].(string), `{"confirm":{"action":"decline"}}`
		if res := e.run(declined); res["isError"] != true || !strings.Contains(resultText(res), "Nothing was done") || e.executions() != 0 {
			t.Fatalf("form declined: %v", res)
		}
		if ask = e.run(form); ask["resultType"] != "input_required" {
			t.Fatalf("form asked again: %v", ask)
		}
		form.state, form.inputResponses = ask["requestState"].(string), `{"confirm":{"action":"accept","content":{"confirm":true}}}`
		done := e.run(form)
		if done["isError"] == true || !strings.Contains(resultText(done), `"status":"queued"`) || e.executions() != 1 {
			t.Fatalf("form accepted: %v", done)
		}
		// The same confirmation again runs nothing more.
		again := e.run(form)
		if msg, _ := again["rpcError"].(string); !strings.Contains(msg, "already used") || e.executions() != 1 {
			t.Fatalf("replayed confirmation queued again: %v", again)
		}

		// 2026 with URL elicitation only: the approval link as a URL request.
		urlOnly := mcpCall{modern: true, caps: `{"elicitation":{"url":{}}}`}
		ask = e.run(urlOnly)
		reqs, _ = ask["inputRequests"].(map[string]any)
		ar, _ := reqs[approval.ElicitKey].(map[string]any)
		params, _ = ar["params"].(map[string]any)
		link, _ := params["url"].(string)
		id, ok := strings.CutPrefix(link, e.url+"/approvals/")
		if ask["resultType"] != "input_required" || params["mode"] != "url" || !ok || e.executions() != 1 {
			t.Fatalf("url: %v", ask)
		}
		st := approval.NewStore(db, nil)
		if ok, err := st.Approve(context.Background(), id, e.owner.ID); !ok || err != nil {
			t.Fatalf("approve: %v %v", ok, err)
		}
		urlOnly.state, urlOnly.inputResponses = ask["requestState"].(string), `{"approval":{"action":"accept"}}`
		done = e.run(urlOnly)
		if done["isError"] == true || !strings.Contains(resultText(done), `"status":"queued"`) || e.executions() != 2 {
			t.Fatalf("url approved: %v", done)
		}
		if again := e.run(urlOnly); resultText(again) != resultText(done) || e.executions() != 2 {
			t.Fatalf("url retried: %v", again)
		}
		// kadu_approvals_get reads the outcome with the execution it queued.
		req, _ := http.NewRequest("GET", e.url+APIBase+"/approvals/"+id, nil)
		req.Header.Set("Authorization", "Bearer "+e.token("api"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var queued struct{ Data struct{ ID string } }
		_ = json.Unmarshal([]byte(resultText(done)), &queued)
		if a := data[approvalJSON](t, resp.StatusCode, string(raw), 200); a.Status != "succeeded" || a.Execution == nil || a.Execution.ID != queued.Data.ID || a.Execution.Trigger != "manual" {
			t.Fatalf("approvals_get: %s", raw)
		}

		// 2025: a link result; nothing queued.
		res := e.run(mcpCall{})
		var l approval.LinkResult
		if res["isError"] == true || json.Unmarshal([]byte(resultText(res)), &l) != nil || l.Status != approval.StatusPending ||
			l.ApprovalURL != e.url+"/approvals/"+l.ApprovalID || !strings.Contains(l.Message, "Run task 'Boletos'") || e.executions() != 2 {
			t.Fatalf("2025: %v", res)
		}
		if a, err := st.Get(context.Background(), l.ApprovalID); err != nil || a.Tool != "kadu_tasks_run" || a.Status != approval.StatusPending {
			t.Fatalf("stored: %+v %v", a, err)
		}

		// 2026 without elicitation: the same link result; nothing queued.
		res = e.run(mcpCall{modern: true, caps: `{}`})
		var l26 approval.LinkResult
		if res["isError"] == true || res["resultType"] == "input_required" || json.Unmarshal([]byte(resultText(res)), &l26) != nil ||
			l26.Status != approval.StatusPending || l26.ApprovalID == l.ApprovalID || l26.ApprovalURL != e.url+"/approvals/"+l26.ApprovalID || e.executions() != 2 {
			t.Fatalf("2026 without elicitation: %v", res)
		}
	})
}
