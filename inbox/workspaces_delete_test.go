package inbox

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// mcpReply is one JSON-RPC answer of the endpoint.
type mcpReply struct {
	status int
	raw    string
	Result struct {
		ResultType    string         `json:"resultType"`
		InputRequests map[string]any `json:"inputRequests"`
		RequestState  string         `json:"requestState"`
		Content       []struct{ Text string }
		IsError       bool `json:"isError"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (r mcpReply) text() string {
	if len(r.Result.Content) == 0 {
		return ""
	}
	return r.Result.Content[0].Text
}

// deleteCall is a tools/call of workspaces_delete.
type deleteCall struct {
	token     string
	legacy    bool   // 2025-06-18 instead of 2026-07-28
	caps      string // default {"elicitation":{}}
	id        string
	state     string
	responses string
}

const acceptDelete = `{"confirm":{"action":"accept","content":{"confirm":true}}}`

func (c deleteCall) do(t *testing.T, url string) mcpReply {
	t.Helper()
	if c.caps == "" {
		c.caps = `{"elicitation":{}}`
	}
	params := map[string]any{"name": "workspaces_delete", "arguments": map[string]any{"id": c.id}}
	if !c.legacy {
		params["_meta"] = map[string]any{
			"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
			"io.modelcontextprotocol/clientCapabilities": json.RawMessage(c.caps),
		}
	}
	if c.state != "" {
		params["requestState"] = c.state
	}
	if c.responses != "" {
		params["inputResponses"] = json.RawMessage(c.responses)
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
	req, _ := http.NewRequest("POST", url+"/mcp", strings.NewReader(string(body)))
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	if c.legacy {
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	} else {
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "workspaces_delete")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	out := mcpReply{status: resp.StatusCode, raw: string(b)}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("not JSON (%d): %s", resp.StatusCode, b)
	}
	return out
}

// TestWorkspaceDeleteNeedsConfirmation runs the real Inbox listener on
// loopback, with real tokens and a real database (both engines):
// workspaces_delete asks a 2026 client that can answer a form, naming the
// workspace; runs exactly once on accept (the confirmation consumed in the
// deletion's own transaction, so a replayed or concurrent second retry
// answers -32602); runs nothing on decline; and is refused with
// confirmation_required to clients that cannot confirm.
func TestWorkspaceDeleteNeedsConfirmation(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newTestEnv(t, db, Config{SMTPAddr: "off"})
		acc, mine, owner := e.Acc, e.Mine, e.Owner
		billing, err := acc.CreateWorkspace(ctx, mine.ID, accounts.NewWorkspace{ExternalID: "billing", Label: "Billing"})
		if err != nil {
			t.Fatal(err)
		}
		sales, _ := acc.CreateWorkspace(ctx, mine.ID, accounts.NewWorkspace{ExternalID: "sales", Label: "Sales"})
		admin, _ := acc.CreateUser(ctx, accounts.NewUser{Email: "a@example.com", Password: "a long enough password", OrganizationID: mine.ID, Role: identity.RoleAdmin})
		tok := func(u accounts.User, resource string) string { return e.Token(u, resource, "inbox.workspaces") }
		ownerTok := tok(owner, "mcp")
		live := func(id string) bool {
			_, err := acc.GetWorkspace(ctx, mine.ID, id)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				t.Fatal(err)
			}
			return err == nil
		}

		// 1. The first call asks, naming the workspace, and deletes nothing.
		first := deleteCall{token: ownerTok, id: "billing"}.do(t, e.URL)
		if first.Result.ResultType != "input_required" || first.Result.RequestState == "" {
			t.Fatalf("first call: %s", first.raw)
		}
		form := first.Result.InputRequests["confirm"].(map[string]any)["params"].(map[string]any)
		if want := "Delete workspace 'Billing' (external id billing)? Its inboxes stop receiving e-mail. This cannot be undone."; form["message"] != want || form["mode"] != "form" {
			t.Fatalf("form = %v, want the message %q", form, want)
		}
		if !live(billing.ID) {
			t.Fatal("the first call deleted the workspace")
		}

		// 2. Decline: nothing is done, and that state is spent.
		declined := deleteCall{token: ownerTok, id: "billing", state: first.Result.RequestState, responses: `{"confirm":{"action":"decline"}}`}.do(t, e.URL)
		if !declined.Result.IsError || !strings.Contains(declined.text(), "Nothing was done") || !live(billing.ID) {
			t.Fatalf("decline: %s", declined.raw)
		}
		if r := (deleteCall{token: ownerTok, id: "billing", state: first.Result.RequestState, responses: acceptDelete}).do(t, e.URL); r.Error == nil || r.Error.Code != -32602 || !live(billing.ID) {
			t.Fatalf("accepting a declined state: %s", r.raw)
		}

		// 3. Accept: deleted once; the same confirmation again runs nothing.
		ask := deleteCall{token: ownerTok, id: "billing"}.do(t, e.URL)
		done := deleteCall{token: ownerTok, id: "billing", state: ask.Result.RequestState, responses: acceptDelete}.do(t, e.URL)
		if done.Result.IsError || done.Result.ResultType != "complete" || done.text() != `{"status":204}` || live(billing.ID) {
			t.Fatalf("accept: %s (live %v)", done.raw, live(billing.ID))
		}
		replay := deleteCall{token: ownerTok, id: "billing", state: ask.Result.RequestState, responses: acceptDelete}.do(t, e.URL)
		if replay.Error == nil || replay.Error.Code != -32602 || !strings.Contains(replay.Error.Message, "already used") {
			t.Fatalf("replay: %s", replay.raw)
		}

		// 4. Two accepted retries of one confirmation at once: exactly one
		//    deletes, the other is refused as used (not a 404 of a
		//    workspace that is gone).
		other, _ := acc.CreateWorkspace(ctx, mine.ID, accounts.NewWorkspace{ExternalID: "other", Label: "Other"})
		ask = deleteCall{token: ownerTok, id: sales.ID}.do(t, e.URL)
		if !strings.Contains(ask.raw, "Delete workspace 'Sales' (external id sales)?") {
			t.Fatalf("ask by id: %s", ask.raw)
		}
		var answers [2]mcpReply
		var wg sync.WaitGroup
		for i := range answers {
			wg.Go(func() {
				answers[i] = deleteCall{token: ownerTok, id: sales.ID, state: ask.Result.RequestState, responses: acceptDelete}.do(t, e.URL)
			})
		}
		wg.Wait()
		ran, used := 0, 0
		for _, a := range answers {
			switch {
			case a.Error == nil && !a.Result.IsError && a.text() == `{"status":204}`:
				ran++
			case a.Error != nil && a.Error.Code == -32602 && strings.Contains(a.Error.Message, "already used"):
				used++
			default:
				t.Errorf("concurrent retry: %s", a.raw)
			}
		}
		if ran != 1 || used != 1 || live(sales.ID) {
			t.Fatalf("concurrent retries: %d ran, %d refused (want 1 and 1); live %v", ran, used, live(sales.ID))
		}

		// 5. Clients that cannot confirm are refused, and nothing runs.
		for name, c := range map[string]deleteCall{
			"2025-06-18":           {token: ownerTok, id: "other", legacy: true},
			"2026 without form":    {token: ownerTok, id: "other", caps: `{}`},
			"2026 URL elicitation": {token: ownerTok, id: "other", caps: `{"elicitation":{"url":{}}}`},
		} {
			r := c.do(t, e.URL)
			var body struct {
				Error struct{ Code, Message string }
			}
			_ = json.Unmarshal([]byte(r.text()), &body)
			if !r.Result.IsError || body.Error.Code != "confirmation_required" || !strings.Contains(body.Error.Message, "Retrying will not help") || !live(other.ID) {
				t.Errorf("%s: %s", name, r.raw)
			}
		}

		// 6. Nothing to confirm: another organization's workspace is not
		//    found, the last workspace cannot go; neither is asked.
		if r := (deleteCall{token: ownerTok, id: e.TheirWS.ID}).do(t, e.URL); !r.Result.IsError || !strings.Contains(r.text(), `"not_found"`) || r.Result.RequestState != "" {
			t.Fatalf("another organization's workspace: %s", r.raw)
		}
		ask = deleteCall{token: ownerTok, id: "other"}.do(t, e.URL)
		if r := (deleteCall{token: ownerTok, id: "other", state: ask.Result.RequestState, responses: acceptDelete}).do(t, e.URL); r.text() != `{"status":204}` {
			t.Fatalf("delete other: %s", r.raw)
		}
		left, _ := acc.ListWorkspaces(ctx, mine.ID)
		if len(left) != 1 {
			t.Fatalf("%d workspaces left, want the default", len(left))
		}
		if r := (deleteCall{token: ownerTok, id: left[0].ID}).do(t, e.URL); !r.Result.IsError || !strings.Contains(r.text(), `"conflict"`) || r.Result.RequestState != "" {
			t.Fatalf("the last workspace: %s", r.raw)
		}

		// 7. Only owners may delete: to an admin the tool does not exist.
		if r := (deleteCall{token: tok(admin, "mcp"), id: left[0].ID}).do(t, e.URL); r.Error == nil || r.Error.Code != -32602 || !strings.Contains(r.Error.Message, "Unknown tool") {
			t.Fatalf("admin: %s", r.raw)
		}

		// 8. Over REST the API client answers for its own confirmation.
		extra, _ := acc.CreateWorkspace(ctx, mine.ID, accounts.NewWorkspace{ExternalID: "rest", Label: "REST"})
		del := func(id string) (int, string) {
			req, _ := http.NewRequest("DELETE", e.URL+"/api/v1/workspaces/"+id, nil)
			req.Header.Set("Authorization", "Bearer "+tok(owner, "api"))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b)
		}
		if code, body := del(e.TheirWS.ID); code != 404 {
			t.Fatalf("REST, another organization's workspace: %d %s", code, body)
		}
		if code, body := del("rest"); code != 204 || live(extra.ID) {
			t.Fatalf("REST delete: %d %s", code, body)
		}
		if code, body := del(left[0].ID); code != 409 || !strings.Contains(body, `"conflict"`) {
			t.Fatalf("REST, the last workspace: %d %s", code, body)
		}
	})
}
