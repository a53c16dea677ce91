package kadu

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/platform/webhooks"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/productkit/producttest"
)

func data[T any](t *testing.T, code int, body string, want int) T {
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

// page is one page of a Kadu listing: a cursor, and the limit used.
type page[T any] struct {
	Data []T
	Meta struct {
		NextCursor *string `json:"next_cursor"`
		Limit      int     `json:"limit"`
	}
}

func list[T any](t *testing.T, e *producttest.Env, path string) page[T] {
	t.Helper()
	code, body := e.Do(e.Owner, "GET", path, nil)
	var p page[T]
	if code != 200 || json.Unmarshal([]byte(body), &p) != nil {
		t.Fatalf("GET %s: %d %s", path, code, body)
	}
	return p
}

type hook struct{ ID, ExternalID, Label, URL, Status string }

func waitDeliveries(t *testing.T, e *producttest.Env, id string, n int) []webhooks.Delivery {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		p := list[webhooks.Delivery](t, e, "/api/v1/webhooks/"+id+"/deliveries?status=success")
		if len(p.Data) >= n {
			return p.Data
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d successful deliveries after 20 s, want %d", len(p.Data), n)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// TestKaduWebhooks drives Kadu's webhook API for real on both engines:
// create, validation, cursor pages that say their limit, get, update, a
// signed test delivery, the deliveries, a replay, rotate-secret, another
// organization that sees nothing, and delete.
func TestKaduWebhooks(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := producttest.Start(t, db, Spec(), producttest.Options{Webhooks: productkit.WebhookSettings{
			AllowPrivateTargets: true, Retries: []time.Duration{10 * time.Millisecond}}})
		rcv := producttest.NewReceiver(t)
		code, body := e.Do(e.Owner, "POST", "/api/v1/webhooks", map[string]any{"label": "Ops", "url": rcv.URL, "external_id": "ops",
			"subscribed_events": []string{"kadu.execution.*"}, "auth": "bearer", "token": "t-1"})
		created := data[map[string]any](t, code, body, 201)
		secret, _ := created["signing_secret"].(string)
		id, _ := created["id"].(string)
		if !strings.HasPrefix(secret, "whsec_") || strings.Contains(body, "t-1") || created["workspace_id"] != nil {
			t.Fatalf("create: %s", body)
		}
		if code, body := e.Do(e.Owner, "POST", "/api/v1/webhooks", map[string]any{"label": "X", "url": rcv.URL, "subscribed_events": []string{"dunning.charge.paid"}}); code != 422 ||
			!strings.Contains(body, `"code":"validation_failed"`) || !strings.Contains(body, `"subscribed_events.0"`) {
			t.Fatalf("another product's event: %d %s", code, body)
		}

		// Cursor pages with their limit.
		for _, l := range []string{"Two", "Three"} {
			code, body := e.Do(e.Owner, "POST", "/api/v1/webhooks", map[string]any{"label": l, "url": rcv.URL, "subscribed_events": []string{"*"}})
			data[hook](t, code, body, 201)
		}
		p := list[hook](t, e, "/api/v1/webhooks?limit=2")
		if len(p.Data) != 2 || p.Data[0].ID != id || p.Meta.NextCursor == nil || p.Meta.Limit != 2 {
			t.Fatalf("page 1: %+v", p)
		}
		p = list[hook](t, e, "/api/v1/webhooks?limit=2&cursor="+*p.Meta.NextCursor)
		if len(p.Data) != 1 || p.Data[0].Label != "Three" || p.Meta.NextCursor != nil || p.Meta.Limit != 2 {
			t.Fatalf("page 2: %+v", p)
		}
		if p = list[hook](t, e, "/api/v1/webhooks"); p.Meta.Limit != 50 || len(p.Data) != 3 {
			t.Fatalf("default limit: %+v", p)
		}

		// Get and update over REST (the API client answers for itself).
		code, body = e.Do(e.Owner, "GET", "/api/v1/webhooks/ops", nil)
		if data[hook](t, code, body, 200).ID != id {
			t.Fatalf("get: %s", body)
		}
		code, body = e.Do(e.Owner, "PATCH", "/api/v1/webhooks/ops", map[string]any{"subscribed_events": []string{"kadu.execution.failed", "webhook.test"}})
		if !strings.Contains(body, `"subscribed_events":["kadu.execution.failed","webhook.test"]`) {
			t.Fatalf("update: %d %s", code, body)
		}

		// A signed test delivery; its replay; rotate-secret.
		code, body = e.Do(e.Owner, "POST", "/api/v1/webhooks/"+id+"/test", nil)
		data[map[string]any](t, code, body, 202)
		first := waitDeliveries(t, e, id, 1)[0]
		got, ok := rcv.ByDelivery(first.ID)
		if !ok || !webhooks.Verify(secret, got.Body, got.Header.Get("X-Kobana-Signature")) || got.Header.Get("Authorization") != "Bearer t-1" ||
			!strings.Contains(string(got.Body), `"name":"Mine"`) || !strings.Contains(string(got.Body), "from the Kadu.") {
			t.Fatalf("delivery: %v %v %s", ok, got.Header, got.Body)
		}
		code, body = e.Do(e.Owner, "GET", "/api/v1/webhooks/"+id+"/deliveries/"+first.ID, nil)
		if d := data[webhooks.Delivery](t, code, body, 200); d.ID != first.ID || strings.Contains(body, "t-1") {
			t.Fatalf("delivery get: %s", body)
		}
		code, body = e.Do(e.Owner, "POST", "/api/v1/webhooks/"+id+"/deliveries/"+first.ID+"/replay", nil)
		if r := data[webhooks.Delivery](t, code, body, 202); r.ReplayOf == nil || *r.ReplayOf != first.ID {
			t.Fatalf("replay: %s", body)
		}
		waitDeliveries(t, e, id, 2)
		if dp := list[webhooks.Delivery](t, e, "/api/v1/webhooks/"+id+"/deliveries?limit=1"); len(dp.Data) != 1 || dp.Meta.NextCursor == nil || dp.Meta.Limit != 1 {
			t.Fatalf("deliveries page: %+v", dp)
		}
		code, body = e.Do(e.Owner, "POST", "/api/v1/webhooks/"+id+"/rotate-secret", nil)
		if s := data[map[string]string](t, code, body, 200)["signing_secret"]; s == "" || s == secret {
			t.Fatalf("rotate-secret: %s", body)
		}
		if code, _ := e.Do(e.Owner, "POST", "/api/v1/webhooks/"+id+"/regenerate-secret", nil); code != 404 {
			t.Fatalf("Kadu's rotation is rotate-secret only: %d", code)
		}

		// Another organization.
		hookPath := "/api/v1/webhooks/" + id
		for _, r := range []struct{ method, path string }{
			{"GET", hookPath}, {"PATCH", hookPath}, {"DELETE", hookPath}, {"POST", hookPath + "/test"}, {"POST", hookPath + "/rotate-secret"},
			{"GET", hookPath + "/deliveries"}, {"GET", hookPath + "/deliveries/" + first.ID}, {"POST", hookPath + "/deliveries/" + first.ID + "/replay"},
		} {
			var b any
			if r.method == "PATCH" {
				b = map[string]any{"label": "taken"}
			}
			if code, resp := e.Do(e.Other, r.method, r.path, b); code != 404 || !strings.Contains(resp, `"not_found"`) {
				t.Errorf("%s %s as another organization: %d %s", r.method, r.path, code, resp)
			}
		}

		if code, body := e.Do(e.Owner, "DELETE", "/api/v1/webhooks/ops", nil); code != 204 {
			t.Fatalf("delete: %d %s", code, body)
		}
		if code, _ := e.Do(e.Owner, "GET", hookPath, nil); code != 404 {
			t.Fatalf("after delete: %d", code)
		}
	})
}

// confirmedCall runs a tool from a 2026 client that can answer a form:
// without state the first call, with state the accepted retry.
func confirmedCall(t *testing.T, e *producttest.Env, tool string, args map[string]any, state string) map[string]any {
	t.Helper()
	params := map[string]any{"name": tool, "arguments": args, "_meta": map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}},
	}}
	if state != "" {
		params["requestState"] = state
		params["inputResponses"] = json.RawMessage(`{"confirm":{"action":"accept","content":{"confirm":true}}}`)
	}
	var out struct{ Result map[string]any }
	raw := e.RPC(e.Owner, "tools/call", params)
	if err := json.Unmarshal([]byte(raw), &out); err != nil || out.Result == nil {
		t.Fatalf("%s: %v %s", tool, err, raw)
	}
	return out.Result
}

func formMessage(res map[string]any) string {
	reqs, _ := res["inputRequests"].(map[string]any)
	form, _ := reqs["confirm"].(map[string]any)
	params, _ := form["params"].(map[string]any)
	msg, _ := params["message"].(string)
	return msg
}

// TestKaduWebhookWritesAreConfirmed: creating or re-pointing a webhook is
// destructive in Kadu, so its tools ask the person first, naming where
// the data would go; a client that cannot confirm runs neither.
func TestKaduWebhookWritesAreConfirmed(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := producttest.Start(t, db, Spec(), producttest.Options{Webhooks: productkit.WebhookSettings{AllowPrivateTargets: true}})
		args := map[string]any{"label": "Ops", "url": "http://127.0.0.1:9/hook", "subscribed_events": []string{"kadu.execution.failed"}}
		if text, isErr := e.Call(e.Owner, "kadu_webhooks_create", args); !isErr || !strings.Contains(text, "confirmation_required") {
			t.Fatalf("create from a client that cannot confirm: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "kadu_webhooks_list", nil); isErr || !strings.Contains(text, `"data":[]`) || !strings.Contains(text, `"limit":50`) {
			t.Fatalf("an unconfirmed create created: %s", text)
		}
		ask := confirmedCall(t, e, "kadu_webhooks_create", args, "")
		if ask["resultType"] != "input_required" || formMessage(ask) != "Create webhook 'Ops', sending the organization's kadu.execution.failed events to http://127.0.0.1:9/hook?" {
			t.Fatalf("create asks: %v", ask)
		}
		done := confirmedCall(t, e, "kadu_webhooks_create", args, ask["requestState"].(string))
		content, _ := done["content"].([]any)
		if done["isError"] == true || len(content) == 0 || !strings.Contains(content[0].(map[string]any)["text"].(string), `"signing_secret":"whsec_`) {
			t.Fatalf("create, accepted: %v", done)
		}
		var created struct{ Data struct{ ID string } }
		_ = json.Unmarshal([]byte(content[0].(map[string]any)["text"].(string)), &created)

		// Re-pointing it asks too, naming the new target.
		up := map[string]any{"id": created.Data.ID, "url": "http://127.0.0.1:9/elsewhere"}
		ask = confirmedCall(t, e, "kadu_webhooks_update", up, "")
		if formMessage(ask) != "Change webhook 'Ops' (http://127.0.0.1:9/hook)? From now on its deliveries go to http://127.0.0.1:9/elsewhere." {
			t.Fatalf("update asks: %v", ask)
		}
		// Invalid input is refused before anything is asked.
		bad := confirmedCall(t, e, "kadu_webhooks_create", map[string]any{"label": "X", "url": "ftp://x", "subscribed_events": []string{"*"}}, "")
		if bad["isError"] != true || bad["requestState"] != nil {
			t.Fatalf("invalid create: %v", bad)
		}
	})
}
