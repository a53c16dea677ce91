package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/smtp"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/platform/webhooks"
)

// demoToken mints, with `kobana-mcp token`, a token of the demo owner for
// the Inbox listening on addr ("api" or "mcp").
func demoToken(t *testing.T, dataDir, dbURL, addr, resource string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"token", "--data-dir", dataDir, "--database-url", dbURL, "--inbox-addr", addr, "--user", accounts.DemoOwnerEmail, "--resource", resource, "--ttl", "1h"}, &out, &errOut)
	if code != 0 {
		t.Fatalf("token: %s", errOut.String())
	}
	return strings.TrimSpace(out.String())
}

// receivedHook is one delivery the test's receiver got.
type receivedHook struct {
	event, signature string
	body             []byte
}

// hookReceiver is a local webhook target that records every delivery.
type hookReceiver struct {
	*httptest.Server
	mu  sync.Mutex
	got []receivedHook
}

func newHookReceiver(t *testing.T) *hookReceiver {
	h := &hookReceiver{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.got = append(h.got, receivedHook{r.Header.Get("X-Kobana-Event"), r.Header.Get("X-Kobana-Signature"), b})
		h.mu.Unlock()
	}))
	t.Cleanup(h.Close)
	return h
}

// wait returns the first delivery of the event that contains want.
func (h *hookReceiver) wait(t *testing.T, event, want string) receivedHook {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		h.mu.Lock()
		for _, d := range h.got {
			if d.event == event && bytes.Contains(d.body, []byte(want)) {
				h.mu.Unlock()
				return d
			}
		}
		h.mu.Unlock()
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no %s delivery containing %q", event, want)
	return receivedHook{}
}

// TestInboxEndToEnd is docs/inbox.md's walkthrough, run for real on each
// engine: `kobana-mcp serve` with its embedded defaults (and development
// webhooks allowed to reach loopback), an inbox and a webhook created
// through the REST API with a developer token, an e-mail carrying a boleto
// sent over SMTP, the e-mail processed with the boleto decoded, and the
// signed email.processed webhook received and verified; then the same
// through MCP tools (inboxes_create, webhooks_create, emails_list,
// emails_get, resources/read) with an MCP token.
func TestInboxEndToEnd(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			dataDir := t.TempDir()
			dbURL := ""
			if engine == store.Postgres {
				dbURL = storetest.URL(t, engine)
			}
			addr := freePort(t)
			line := startCommand(t, []string{"serve", "--data-dir", dataDir, "--database-url", dbURL, "--products", "inbox", "--inbox-addr", addr,
				"--webhook-allow-private-targets", "true", "--webhook-retries", "200ms,400ms"}, "SMTP intake: smtp://")
			_, rest, _ := strings.Cut(line, "smtp://")
			smtpAddr, _, _ := strings.Cut(rest, " ")
			base := "http://" + addr
			apiTok, mcpTok := demoToken(t, dataDir, dbURL, addr, "api"), demoToken(t, dataDir, dbURL, addr, "mcp")
			api := func(method, path string, body any) (int, map[string]any) {
				t.Helper()
				var r io.Reader
				if body != nil {
					b, _ := json.Marshal(body)
					r = bytes.NewReader(b)
				}
				req, _ := http.NewRequest(method, base+"/api/v1"+path, r)
				req.Header.Set("Authorization", "Bearer "+apiTok)
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				var out map[string]any
				_ = json.NewDecoder(resp.Body).Decode(&out)
				return resp.StatusCode, out
			}
			data := func(doc map[string]any) map[string]any { d, _ := doc["data"].(map[string]any); return d }
			mail, err := os.ReadFile("../../examples/inbox/boleto.eml")
			if err != nil {
				t.Fatal(err)
			}
			send := func(to string) {
				t.Helper()
				if err := smtp.SendMail(smtpAddr, nil, "cobranca@acme.example", []string{to}, mail); err != nil {
					t.Fatalf("SMTP: %v", err)
				}
			}

			// 1. Through the REST API.
			hooks := newHookReceiver(t)
			code, doc := api("POST", "/inboxes", map[string]any{"label": "Fornecedores"})
			if code != 201 {
				t.Fatalf("inbox: %d %v", code, doc)
			}
			inboxAddr, _ := data(doc)["email"].(string)
			code, doc = api("POST", "/webhooks", map[string]any{"label": "Local", "url": hooks.URL + "/hooks", "subscribed_events": []string{"email.processed"}})
			if code != 201 {
				t.Fatalf("webhook: %d %v", code, doc)
			}
			secret, _ := data(doc)["signing_secret"].(string)
			send(inboxAddr)
			d := hooks.wait(t, "email.processed", "34191091233456788012434567890008513810000123456")
			if !webhooks.Verify(secret, d.body, d.signature) {
				t.Fatalf("the webhook's signature does not verify: %s", d.signature)
			}
			if !bytes.Contains(d.body, []byte(`"due_date":"2026-03-10"`)) || !bytes.Contains(d.body, []byte(`"amount":"1234.56"`)) ||
				!bytes.Contains(d.body, []byte(`"name":"Demo Company"`)) {
				t.Fatalf("the boleto or the organization is not in the webhook: %s", d.body)
			}

			// 2. The same through MCP tools.
			rpc := func(method string, params map[string]any) map[string]any {
				t.Helper()
				params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
					"io.modelcontextprotocol/clientInfo": map[string]any{"name": "e2e", "version": "1"}, "io.modelcontextprotocol/clientCapabilities": map[string]any{}}
				b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
				req, _ := http.NewRequest("POST", base+"/mcp", bytes.NewReader(b))
				req.Header.Set("Authorization", "Bearer "+mcpTok)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("MCP-Protocol-Version", "2026-07-28")
				req.Header.Set("Mcp-Method", method)
				if n, ok := params["name"].(string); ok {
					req.Header.Set("Mcp-Name", n)
				}
				if u, ok := params["uri"].(string); ok {
					req.Header.Set("Mcp-Name", u)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				var out map[string]any
				_ = json.NewDecoder(resp.Body).Decode(&out)
				if out["error"] != nil {
					t.Fatalf("%s: %v", method, out["error"])
				}
				res, _ := out["result"].(map[string]any)
				return res
			}
			tool := func(name string, args map[string]any) map[string]any {
				t.Helper()
				res := rpc("tools/call", map[string]any{"name": name, "arguments": args})
				content, _ := res["content"].([]any)
				if res["isError"] == true || len(content) == 0 {
					t.Fatalf("%s: %v", name, res)
				}
				text, _ := content[0].(map[string]any)["text"].(string)
				var out map[string]any
				if err := json.Unmarshal([]byte(text), &out); err != nil {
					t.Fatalf("%s: %s", name, text)
				}
				return out
			}
			hooks2 := newHookReceiver(t)
			ib := data(tool("inboxes_create", map[string]any{"label": "Via MCP"}))
			wh := data(tool("webhooks_create", map[string]any{"label": "Local MCP", "url": hooks2.URL, "inbox_id": ib["id"], "subscribed_events": []string{"email.*"}}))
			send(ib["email"].(string))
			d = hooks2.wait(t, "email.processed", "34191091233456788012434567890008513810000123456")
			if !webhooks.Verify(wh["signing_secret"].(string), d.body, d.signature) {
				t.Fatal("the MCP-created webhook's signature does not verify")
			}
			list := tool("emails_list", map[string]any{"inbox_id": ib["id"], "status": "processed"})
			emails, _ := list["data"].([]any)
			if len(emails) != 1 {
				t.Fatalf("emails_list: %v", list)
			}
			id := emails[0].(map[string]any)["id"].(string)
			got := data(tool("emails_get", map[string]any{"id": id}))
			meta, _ := json.Marshal(got["agent_metadata"])
			if got["subject"] != "Fatura 123 - cobrança de novembro" || !bytes.Contains(meta, []byte("34191091233456788012434567890008513810000123456")) {
				t.Fatalf("emails_get: subject %q, agent_metadata %s", got["subject"], meta)
			}
			read := rpc("resources/read", map[string]any{"uri": "kobana://inbox/emails/" + id})
			contents, _ := read["contents"].([]any)
			if len(contents) != 1 || !strings.Contains(contents[0].(map[string]any)["text"].(string), "third parties") {
				t.Fatalf("resources/read: %v", read)
			}
		})
	}
}
