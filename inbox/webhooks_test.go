package inbox

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/platform/webhooks"
	"github.com/kobana/kobana-mcp/productkit/producttest"
)

// webhookJSON is a webhook as the Inbox's API shows it (declared by
// productkit/webhookapi with the Inbox's options): never its credentials
// nor its signing secret.
type webhookJSON struct {
	ID                  string    `json:"id"`
	ExternalID          string    `json:"external_id"`
	WorkspaceID         string    `json:"workspace_id"`
	InboxID             *string   `json:"inbox_id"`
	Label               string    `json:"label"`
	URL                 string    `json:"url"`
	Auth                string    `json:"auth"`
	SubscribedEvents    []string  `json:"subscribed_events"`
	Status              string    `json:"status"`
	ConsecutiveFailures int       `json:"consecutive_failures"`
	CreatedAt           time.Time `json:"created_at"`
	UpdatedAt           time.Time `json:"updated_at"`
}

// createdWebhookJSON is the answer to webhooks_create, the only one with
// the signing secret.
type createdWebhookJSON struct {
	webhookJSON
	SigningSecret string `json:"signing_secret"`
}

// systemEventJSON is a stored event as the Inbox's API shows it: the inbox
// as its scope, the e-mail as its subject (none for webhook.* events).
type systemEventJSON struct {
	ID          string          `json:"id"`
	WorkspaceID string          `json:"workspace_id"`
	InboxID     *string         `json:"inbox_id"`
	EmailID     *string         `json:"email_id"`
	Slug        string          `json:"slug"`
	Payload     json.RawMessage `json:"payload"`
	CreatedAt   time.Time       `json:"created_at"`
}

// whConfig lets webhooks reach the loopback receiver and retry fast.
func whConfig() Config {
	return Config{SMTPAddr: "off", WebhookAllowPrivateTargets: true, WebhookRetries: []time.Duration{10 * time.Millisecond, 20 * time.Millisecond}}
}

// whJSON decodes a response body's data member into T, failing the test
// on anything else.
func whJSON[T any](t *testing.T, code int, body string, want int) T {
	t.Helper()
	var out struct{ Data T }
	if code != want {
		t.Fatalf("status %d, want %d: %s", code, want, body)
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return out.Data
}

// whPage is a listing's answer.
type whPage[T any] struct {
	Data []T
	Meta struct {
		NextCursor *string `json:"next_cursor"`
	}
}

// whListGet reads one page of a listing as user.
func whListGet[T any](t *testing.T, e *testEnv, user accounts.User, path string) whPage[T] {
	t.Helper()
	code, body := e.Do(user, "GET", path, nil)
	var p whPage[T]
	if code != 200 {
		t.Fatalf("list: %d %s", code, body)
	}
	if err := json.Unmarshal([]byte(body), &p); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return p
}

// whFieldError reports whether an error body is a validation error naming
// field.
func whFieldError(body, field string) bool {
	var out struct {
		Error struct {
			Code    string
			Details []struct{ Field, Message string }
		}
	}
	_ = json.Unmarshal([]byte(body), &out)
	if out.Error.Code != "validation_failed" {
		return false
	}
	for _, d := range out.Error.Details {
		if d.Field == field {
			return true
		}
	}
	return false
}

// whInbox inserts a live inbox straight into the database (the inbox
// routes are another file's concern) and returns its id.
func whInbox(t *testing.T, db *store.DB, orgID, workspaceID, externalID string) string {
	t.Helper()
	id, now := store.NewID(), store.Now()
	_, err := db.Exec(context.Background(), `INSERT INTO inboxes (id, organization_id, workspace_id, external_id, agent_id, label, email, status,
		allowed_recipients, filters, attachments_allow, created_at, updated_at)
		VALUES (?, ?, ?, ?, NULL, ?, ?, 'active', '[]', '[]', 1, ?, ?)`,
		id, orgID, workspaceID, externalID, "Inbox "+externalID, externalID+"-"+id[len(id)-8:]+"@inbox.localhost", now, now)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// whEmail inserts a received e-mail of an inbox and returns its id.
func whEmail(t *testing.T, db *store.DB, orgID, workspaceID, inboxID string) string {
	t.Helper()
	id, now := store.NewID(), store.Now()
	_, err := db.Exec(context.Background(), `INSERT INTO emails (id, organization_id, workspace_id, inbox_id, agent_id, message_id, status,
		subject, from_address, to_addresses, cc_addresses, bcc_addresses, header_to, forwarded, attachments, raw_size, raw_sha256,
		intake, agent_metadata, custom_metadata, received_at, created_at, updated_at)
		VALUES (?, ?, ?, ?, NULL, '', 'approved', 'Boleto', 'billing@supplier.example', '[]', '[]', '[]', '[]', 0, '[]', 10, 'x',
		'http', '{}', '{}', ?, ?, ?)`, id, orgID, workspaceID, inboxID, now, now, now)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// whCreate creates a webhook through the API and returns it with its
// secret.
func whCreate(t *testing.T, e *testEnv, body map[string]any) (webhookJSON, string) {
	t.Helper()
	code, resp := e.Do(e.Owner, "POST", "/api/v1/webhooks", body)
	w := whJSON[createdWebhookJSON](t, code, resp, 201)
	return w.webhookJSON, w.SigningSecret
}

// TestWebhooksCRUD: create shows the signing secret once, and no read
// shows it or the credentials; external ids, inbox scopes, updates, soft
// delete and pagination to the end.
func TestWebhooksCRUD(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := newTestEnv(t, db, whConfig())
		inboxID := whInbox(t, db, e.Mine.ID, e.MineWS.ID, "billing")
		theirInbox := whInbox(t, db, e.Theirs.ID, e.TheirWS.ID, "theirs")

		code, body := e.Do(e.Owner, "POST", "/api/v1/webhooks", map[string]any{
			"label": "ERP", "url": "https://erp.example/hooks", "external_id": "erp", "inbox_id": "billing",
			"auth": "bearer", "token": "s3cr3t-token", "subscribed_events": []string{"email.*", "agent_run.failed"},
		})
		created := whJSON[map[string]any](t, code, body, 201)
		secret, _ := created["signing_secret"].(string)
		if !strings.HasPrefix(secret, "whsec_") || created["inbox_id"] != inboxID || created["auth"] != "bearer" ||
			created["status"] != "active" || created["external_id"] != "erp" || strings.Contains(body, "s3cr3t-token") {
			t.Fatalf("create: %s", body)
		}
		id := created["id"].(string)
		for _, path := range []string{"/api/v1/webhooks/" + id, "/api/v1/webhooks/erp", "/api/v1/webhooks", "/api/v1/webhooks?inbox_id=billing"} {
			code, body := e.Do(e.Owner, "GET", path, nil)
			if code != 200 || !strings.Contains(body, id) || strings.Contains(body, "signing_secret") || strings.Contains(body, secret) || strings.Contains(body, "s3cr3t-token") {
				t.Fatalf("GET %s: %d %s", path, code, body)
			}
		}
		if code, body := e.Do(e.Owner, "POST", "/api/v1/webhooks", map[string]any{"label": "Dup", "url": "https://erp.example/2", "external_id": "erp", "subscribed_events": []string{"*"}}); code != 409 || !strings.Contains(body, `"conflict"`) {
			t.Fatalf("duplicate external_id: %d %s", code, body)
		}

		// Filters: the scoped webhook only; a status filter; another
		// organization's inbox is not found.
		unscoped, _ := whCreate(t, e, map[string]any{"label": "All", "url": "https://all.example/h", "subscribed_events": []string{"*"}, "status": "inactive"})
		if unscoped.ExternalID != unscoped.ID || unscoped.InboxID != nil || unscoped.Auth != "none" {
			t.Fatalf("defaults: %+v", unscoped)
		}
		p := whListGet[webhookJSON](t, e, e.Owner, "/api/v1/webhooks?inbox_id="+inboxID)
		if len(p.Data) != 1 || p.Data[0].ID != id {
			t.Fatalf("inbox filter: %+v", p.Data)
		}
		p = whListGet[webhookJSON](t, e, e.Owner, "/api/v1/webhooks?status=inactive")
		if len(p.Data) != 1 || p.Data[0].ID != unscoped.ID {
			t.Fatalf("status filter: %+v", p.Data)
		}
		if code, body := e.Do(e.Owner, "GET", "/api/v1/webhooks?inbox_id="+theirInbox, nil); code != 404 || !strings.Contains(body, "inbox not found") {
			t.Fatalf("another organization's inbox: %d %s", code, body)
		}
		if code, body := e.Do(e.Owner, "POST", "/api/v1/webhooks", map[string]any{"label": "X", "url": "https://x.example", "inbox_id": theirInbox, "subscribed_events": []string{"*"}}); code != 404 {
			t.Fatalf("create scoped to another organization's inbox: %d %s", code, body)
		}

		// Update: fields change, the scope is removed with "", changing
		// auth needs the new kind's credentials; the secret is not shown.
		code, body = e.Do(e.Owner, "PATCH", "/api/v1/webhooks/erp", map[string]any{"label": "ERP v2", "inbox_id": "", "subscribed_events": []string{"email.processed"}})
		upd := whJSON[webhookJSON](t, code, body, 200)
		if upd.Label != "ERP v2" || upd.InboxID != nil || len(upd.SubscribedEvents) != 1 || upd.Auth != "bearer" || strings.Contains(body, "signing_secret") {
			t.Fatalf("update: %s", body)
		}
		if code, body := e.Do(e.Owner, "PATCH", "/api/v1/webhooks/erp", map[string]any{"auth": "basic"}); code != 422 || !whFieldError(body, "username") || !whFieldError(body, "password") {
			t.Fatalf("auth basic without credentials: %d %s", code, body)
		}
		code, body = e.Do(e.Owner, "PATCH", "/api/v1/webhooks/erp", map[string]any{"auth": "basic", "username": "erp", "password": "pw"})
		if upd = whJSON[webhookJSON](t, code, body, 200); upd.Auth != "basic" || strings.Contains(body, `"pw"`) {
			t.Fatalf("auth basic: %s", body)
		}
		if code, body := e.Do(e.Owner, "PATCH", "/api/v1/webhooks/erp", map[string]any{"external_id": "other"}); code != 422 || !whFieldError(body, "external_id") {
			t.Fatalf("external_id is not updatable: %d %s", code, body)
		}

		// Pagination to the end: three webhooks, two per page.
		third, _ := whCreate(t, e, map[string]any{"label": "Third", "url": "https://third.example/h", "subscribed_events": []string{"webhook.test"}})
		p = whListGet[webhookJSON](t, e, e.Owner, "/api/v1/webhooks?limit=2")
		if len(p.Data) != 2 || p.Data[0].ID != id || p.Data[1].ID != unscoped.ID || p.Meta.NextCursor == nil {
			t.Fatalf("page 1: %+v", p)
		}
		p = whListGet[webhookJSON](t, e, e.Owner, "/api/v1/webhooks?limit=2&cursor="+*p.Meta.NextCursor)
		if len(p.Data) != 1 || p.Data[0].ID != third.ID || p.Meta.NextCursor != nil {
			t.Fatalf("page 2: %+v", p)
		}
		if code, body := e.Do(e.Owner, "GET", "/api/v1/webhooks?cursor=nonsense", nil); code != 422 || !whFieldError(body, "cursor") {
			t.Fatalf("bad cursor: %d %s", code, body)
		}

		// Soft delete: 204, then 404 everywhere, and the external id is
		// free again.
		if code, body := e.Do(e.Owner, "DELETE", "/api/v1/webhooks/erp", nil); code != 204 {
			t.Fatalf("delete: %d %s", code, body)
		}
		for _, path := range []string{"/api/v1/webhooks/erp", "/api/v1/webhooks/" + id, "/api/v1/webhooks/" + id + "/deliveries"} {
			if code, _ := e.Do(e.Owner, "GET", path, nil); code != 404 {
				t.Fatalf("GET %s after delete: %d", path, code)
			}
		}
		if code, _ := e.Do(e.Owner, "DELETE", "/api/v1/webhooks/"+id, nil); code != 404 {
			t.Fatalf("delete twice: %d", code)
		}
		if p = whListGet[webhookJSON](t, e, e.Owner, "/api/v1/webhooks"); len(p.Data) != 2 {
			t.Fatalf("list after delete: %+v", p.Data)
		}
		whCreate(t, e, map[string]any{"label": "ERP again", "url": "https://erp.example/hooks", "external_id": "erp", "subscribed_events": []string{"*"}})
	})
}

// The validation of webhook input and the refusal of private targets are
// the same for every product: productkit/webhookapi's tests.

// TestWebhooksAcrossOrganizations: every route with an {id} answers 404
// for another organization's webhook, delivery, event or run, and changes
// nothing.
func TestWebhooksAcrossOrganizations(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := newTestEnv(t, db, whConfig())
		rcv := producttest.NewReceiver(t)
		w, _ := whCreate(t, e, map[string]any{"label": "Mine", "url": rcv.URL, "external_id": "mine", "subscribed_events": []string{"*"}})
		code, body := e.Do(e.Owner, "POST", "/api/v1/webhooks/"+w.ID+"/test", nil)
		ev := whJSON[systemEventJSON](t, code, body, 202)
		d := whWaitDeliveries(t, e, w.ID, 1)[0]
		inboxID := whInbox(t, db, e.Mine.ID, e.MineWS.ID, "runs")
		run, err := startAgentRun(context.Background(), db, agentRunRecord{OrganizationID: e.Mine.ID, WorkspaceID: e.MineWS.ID, InboxID: inboxID,
			EmailID: whEmail(t, db, e.Mine.ID, e.MineWS.ID, inboxID), Provider: "extractor", LLMModel: "extractor-v1"})
		if err != nil {
			t.Fatal(err)
		}

		hook := "/api/v1/webhooks/" + w.ID
		for _, r := range []struct{ method, path string }{
			{"GET", hook}, {"GET", "/api/v1/webhooks/mine"}, {"PATCH", hook}, {"DELETE", hook},
			{"POST", hook + "/test"}, {"POST", hook + "/regenerate-secret"},
			{"GET", hook + "/deliveries"}, {"GET", hook + "/deliveries/" + d.ID}, {"POST", hook + "/deliveries/" + d.ID + "/replay"},
			{"GET", "/api/v1/system-events/" + ev.ID}, {"GET", "/api/v1/agent-runs/" + run.ID},
		} {
			var body any
			if r.method == "PATCH" {
				body = map[string]any{"label": "taken"}
			}
			if code, resp := e.Do(e.Other, r.method, r.path, body); code != 404 || !strings.Contains(resp, `"not_found"`) {
				t.Errorf("%s %s as another organization: %d %s", r.method, r.path, code, resp)
			}
		}
		// Their own webhook does not reach my delivery either.
		theirs := e.Token(e.Other, "api")
		code, body = e.DoToken(theirs, "POST", "/api/v1/webhooks", map[string]any{"label": "Theirs", "url": rcv.URL, "subscribed_events": []string{"*"}})
		tw := whJSON[webhookJSON](t, code, body, 201)
		if code, resp := e.DoToken(theirs, "GET", "/api/v1/webhooks/"+tw.ID+"/deliveries/"+d.ID, nil); code != 404 {
			t.Errorf("my delivery through their webhook: %d %s", code, resp)
		}
		if code, resp := e.DoToken(theirs, "POST", "/api/v1/webhooks/"+tw.ID+"/deliveries/"+d.ID+"/replay", nil); code != 404 {
			t.Errorf("replaying my delivery through their webhook: %d %s", code, resp)
		}
		if p := whListGet[systemEventJSON](t, e, e.Other, "/api/v1/system-events"); len(p.Data) != 0 {
			t.Errorf("their events list shows mine: %+v", p.Data)
		}
		code, body = e.Do(e.Owner, "GET", hook, nil)
		got := whJSON[webhookJSON](t, code, body, 200)
		if got.Label != "Mine" {
			t.Errorf("another organization changed the webhook: %+v", got)
		}
		if ds := whListGet[webhooks.Delivery](t, e, e.Owner, hook+"/deliveries"); len(ds.Data) != 1 {
			t.Errorf("another organization sent deliveries: %d", len(ds.Data))
		}
	})
}

// whWaitDeliveries polls the deliveries API until the webhook has n
// successful deliveries (newest first), for at most 20 s.
func whWaitDeliveries(t *testing.T, e *testEnv, webhookID string, n int) []webhooks.Delivery {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		p := whListGet[webhooks.Delivery](t, e, e.Owner, "/api/v1/webhooks/"+webhookID+"/deliveries?status=success")
		if len(p.Data) >= n {
			return p.Data
		}
		if time.Now().After(deadline) {
			_, all := e.Do(e.Owner, "GET", "/api/v1/webhooks/"+webhookID+"/deliveries", nil)
			t.Fatalf("%d successful deliveries after 20 s, want %d: %s", len(p.Data), n, all)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// TestWebhooksMCP: the webhook tools mirror the routes; the destructive
// ones need a confirmation this client cannot give.
func TestWebhooksMCP(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := newTestEnv(t, db, whConfig())
		text, isErr := e.Call(e.Owner, "webhooks_create", map[string]any{"label": "Tool", "url": "https://tool.example/h", "external_id": "tool", "subscribed_events": []string{"email.received"}})
		var created struct{ Data createdWebhookJSON }
		if err := json.Unmarshal([]byte(text), &created); err != nil || isErr || created.Data.SigningSecret == "" || created.Data.ExternalID != "tool" {
			t.Fatalf("webhooks_create: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "webhooks_create", map[string]any{"label": "Bad", "url": "https://tool.example/h", "subscribed_events": []string{"nope"}}); !isErr || !strings.Contains(text, "subscribed_events.0") {
			t.Fatalf("webhooks_create, unknown event: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "webhooks_list", map[string]any{"limit": 10}); isErr || !strings.Contains(text, created.Data.ID) || strings.Contains(text, created.Data.SigningSecret) {
			t.Fatalf("webhooks_list: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "webhooks_list", map[string]any{"inbox_id": "nowhere"}); !isErr || !strings.Contains(text, `"not_found"`) {
			t.Fatalf("webhooks_list, unknown inbox: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "webhooks_get", map[string]any{"id": "tool"}); isErr || !strings.Contains(text, created.Data.ID) || strings.Contains(text, "signing_secret") {
			t.Fatalf("webhooks_get: %s", text)
		}
		if text, isErr := e.Call(e.Other, "webhooks_get", map[string]any{"id": created.Data.ID}); !isErr || !strings.Contains(text, `"not_found"`) {
			t.Fatalf("webhooks_get, another organization: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "webhooks_update", map[string]any{"id": "tool", "status": "inactive"}); isErr || !strings.Contains(text, `"status":"inactive"`) {
			t.Fatalf("webhooks_update: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "webhooks_update", map[string]any{"id": "tool", "url": "not a url"}); !isErr || !strings.Contains(text, `"url"`) {
			t.Fatalf("webhooks_update, bad URL: %s", text)
		}
		for tool, args := range map[string]map[string]any{
			"webhooks_delete":           {"id": "tool"},
			"webhooks_test":             {"id": "tool"},
			"webhooks_rotate_secret":    {"id": "tool"},
			"webhook_deliveries_replay": {"id": "tool", "delivery_id": store.NewID()},
		} {
			// An active webhook, so the test and replay are not refused for
			// being inactive before the confirmation is even asked.
			e.Do(e.Owner, "PATCH", "/api/v1/webhooks/tool", map[string]any{"status": "active"})
			text, isErr := e.Call(e.Owner, tool, args)
			if !isErr || !strings.Contains(text, "confirmation_required") {
				t.Errorf("%s without a way to confirm: %s", tool, text)
			}
		}
		if text, isErr := e.Call(e.Owner, "webhooks_get", map[string]any{"id": "tool"}); isErr || !strings.Contains(text, created.Data.ID) {
			t.Fatalf("an unconfirmed delete deleted: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "webhook_deliveries_list", map[string]any{"id": "tool"}); isErr || !strings.Contains(text, `"data":[]`) {
			t.Fatalf("an unconfirmed test sent something, or the listing failed: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "webhook_deliveries_list", map[string]any{"id": "nope"}); !isErr || !strings.Contains(text, "webhook not found") {
			t.Fatalf("webhook_deliveries_list, unknown webhook: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "webhook_deliveries_get", map[string]any{"id": "tool", "delivery_id": store.NewID()}); !isErr || !strings.Contains(text, "delivery not found") {
			t.Fatalf("webhook_deliveries_get, unknown delivery: %s", text)
		}
		// The annotations are the presets of productkit/restkit (openWorldHint
		// false everywhere).
		raw := e.RPC(e.Owner, "tools/list", nil)
		var list struct {
			Result struct {
				Tools []struct {
					Name        string
					Annotations struct{ ReadOnlyHint, DestructiveHint, IdempotentHint, OpenWorldHint bool }
				}
			}
		}
		if err := json.Unmarshal([]byte(raw), &list); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{
			"webhooks_list": "TFTF", "webhooks_get": "TFTF", "webhooks_create": "FFFF", "webhooks_update": "FFTF",
			"webhooks_delete": "FTTF", "webhooks_test": "FTFF", "webhooks_rotate_secret": "FTFF",
			"webhook_deliveries_list": "TFTF", "webhook_deliveries_get": "TFTF", "webhook_deliveries_replay": "FTFF",
			"system_events_list": "TFTF", "system_events_get": "TFTF", "agent_runs_list": "TFTF", "agent_runs_get": "TFTF",
		}
		b := func(v bool) string {
			if v {
				return "T"
			}
			return "F"
		}
		for _, tool := range list.Result.Tools {
			if w, ok := want[tool.Name]; ok {
				a := tool.Annotations
				if got := b(a.ReadOnlyHint) + b(a.DestructiveHint) + b(a.IdempotentHint) + b(a.OpenWorldHint); got != w {
					t.Errorf("%s annotations %s, want %s", tool.Name, got, w)
				}
				delete(want, tool.Name)
			}
		}
		if len(want) > 0 {
			t.Errorf("tools missing from tools/list: %v", fmt.Sprint(want))
		}
	})
}

// whConfirmedCall runs a destructive tool as the owner from a client that
// can answer a form: without state it is the first call (which asks),
// with state and accept it is the retry that runs.
func whConfirmedCall(t *testing.T, e *testEnv, tool string, args map[string]any, state string) mcpReply {
	t.Helper()
	params := map[string]any{"name": tool, "arguments": args, "_meta": map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}},
	}}
	if state != "" {
		params["requestState"] = state
		params["inputResponses"] = json.RawMessage(acceptDelete)
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
	code, raw := e.DoToken(e.Token(e.Owner, "mcp"), "POST", "/mcp", body, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", tool)
	out := mcpReply{status: code, raw: raw}
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatalf("%s: not JSON (%d): %s", tool, code, raw)
	}
	return out
}

// TestWebhooksConfirmedTools: a client that can confirm is asked with a
// message naming the webhook, and the tool runs once accepted.
func TestWebhooksConfirmedTools(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := newTestEnv(t, db, whConfig())
		rcv := producttest.NewReceiver(t)
		w, secret := whCreate(t, e, map[string]any{"label": "Confirm me", "url": rcv.URL, "external_id": "cm", "subscribed_events": []string{"*"}})
		run := func(tool string, args map[string]any, wantMessage string) string {
			t.Helper()
			ask := whConfirmedCall(t, e, tool, args, "")
			if ask.Result.ResultType != "input_required" || ask.Result.RequestState == "" {
				t.Fatalf("%s, first call: %s", tool, ask.raw)
			}
			form, _ := ask.Result.InputRequests["confirm"].(map[string]any)
			params, _ := form["params"].(map[string]any)
			if params["message"] != wantMessage {
				t.Fatalf("%s asks %q, want %q", tool, params["message"], wantMessage)
			}
			done := whConfirmedCall(t, e, tool, args, ask.Result.RequestState)
			if done.Result.IsError || done.Result.ResultType != "complete" {
				t.Fatalf("%s, accepted: %s", tool, done.raw)
			}
			return done.text()
		}
		text := run("webhooks_test", map[string]any{"id": "cm"}, "Send a test event (webhook.test) to webhook 'Confirm me' at "+rcv.URL+"?")
		if !strings.Contains(text, `"slug":"webhook.test"`) {
			t.Fatalf("webhooks_test: %s", text)
		}
		d := whWaitDeliveries(t, e, w.ID, 1)[0]
		text = run("webhook_deliveries_replay", map[string]any{"id": "cm", "delivery_id": d.ID},
			"Send the webhook.test event of delivery "+d.ID+" again to webhook 'Confirm me' at "+rcv.URL+", with the webhook's current configuration?")
		if !strings.Contains(text, `"replay_of":"`+d.ID+`"`) {
			t.Fatalf("webhook_deliveries_replay: %s", text)
		}
		text = run("webhooks_rotate_secret", map[string]any{"id": "cm"},
			"Regenerate the signing secret of webhook 'Confirm me' ("+rcv.URL+")? Deliveries are signed with the new secret at once: the receiver must be updated to verify them.")
		if !strings.Contains(text, `"signing_secret":"whsec_`) || strings.Contains(text, secret) {
			t.Fatalf("webhooks_rotate_secret: %s", text)
		}
		text = run("webhooks_delete", map[string]any{"id": "cm"}, "Delete webhook 'Confirm me' ("+rcv.URL+")? It stops receiving events at once. This cannot be undone.")
		if text != `{"status":204}` {
			t.Fatalf("webhooks_delete: %s", text)
		}
		if code, _ := e.Do(e.Owner, "GET", "/api/v1/webhooks/cm", nil); code != 404 {
			t.Fatalf("the confirmed delete left the webhook: %d", code)
		}
		// Nothing to confirm for a webhook the caller cannot see.
		if r := whConfirmedCall(t, e, "webhooks_delete", map[string]any{"id": "cm"}, ""); !r.Result.IsError || !strings.Contains(r.text(), `"not_found"`) || r.Result.RequestState != "" {
			t.Fatalf("deleting a deleted webhook: %s", r.raw)
		}
	})
}
