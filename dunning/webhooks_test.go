package dunning

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/platform/webhooks"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/productkit/producttest"
)

// hookEnv is Dunning on loopback with webhooks allowed to reach a local
// receiver, retrying fast.
func hookEnv(t *testing.T, db *store.DB) *producttest.Env {
	return producttest.Start(t, db, Spec(), producttest.Options{Webhooks: productkit.WebhookSettings{
		AllowPrivateTargets: true, Retries: []time.Duration{10 * time.Millisecond, 20 * time.Millisecond}}})
}

// data decodes a 2xx body's data member, failing on any other status.
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

// page is one numbered page of a listing.
type page[T any] struct {
	Data []T
	Meta struct {
		Total      int `json:"total"`
		Page       int `json:"page"`
		PerPage    int `json:"per_page"`
		TotalPages int `json:"total_pages"`
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

// errorOf is an error body's code and the fields its details name.
func errorOf(body string) (string, []string) {
	var out struct {
		Error struct {
			Code    string
			Details []struct{ Field string }
		}
	}
	_ = json.Unmarshal([]byte(body), &out)
	var fields []string
	for _, d := range out.Error.Details {
		fields = append(fields, d.Field)
	}
	return out.Error.Code, fields
}

type hook struct {
	ID, ExternalID, Label, URL, Status string
	SigningSecret                      string `json:"signing_secret"`
}

// waitDeliveries polls until the webhook has n successful deliveries
// (newest first), for at most 20 s.
func waitDeliveries(t *testing.T, e *producttest.Env, id string, n int) []webhooks.Delivery {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		p := list[webhooks.Delivery](t, e, "/v1/webhooks/"+id+"/deliveries?status=success")
		if len(p.Data) >= n {
			return p.Data
		}
		if time.Now().After(deadline) {
			_, all := e.Do(e.Owner, "GET", "/v1/webhooks/"+id+"/deliveries", nil)
			t.Fatalf("%d successful deliveries after 20 s, want %d: %s", len(p.Data), n, all)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// TestDunningWebhooks drives Dunning's webhook API for real on both
// engines: create (the secret shown once), validation in Dunning's codes,
// numbered pages, get, update, a test delivery signed and received, the
// deliveries, a retry, the secret's rotation, idempotent writes, delete,
// and another organization that sees nothing.
func TestDunningWebhooks(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, nil, func(t *testing.T, db *store.DB) {
		e := hookEnv(t, db)
		rcv := producttest.NewReceiver(t)

		code, body := e.Do(e.Owner, "POST", "/v1/webhooks", map[string]any{"label": "ERP", "url": rcv.URL, "external_id": "erp",
			"subscribed_events": []string{"dunning.charge.*", "webhook.test"}, "auth": "header", "header_name": "X-Api-Key", "header_value": "k-1"})
		created := data[map[string]any](t, code, body, 201)
		secret, _ := created["signing_secret"].(string)
		if !strings.HasPrefix(secret, "whsec_") || created["external_id"] != "erp" || strings.Contains(body, "k-1") {
			t.Fatalf("create: %s", body)
		}
		var keys []string
		for k := range created {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if strings.Join(keys, ",") != "auth,consecutive_failures,created_at,external_id,id,label,signing_secret,status,subscribed_events,updated_at,url" {
			t.Fatalf("a Dunning webhook has no workspace or scope: %v", keys)
		}
		id := created["id"].(string)

		// Validation: 422 VALIDATION_ERROR, a detail per field; the catalog
		// is Dunning's.
		code, body = e.Do(e.Owner, "POST", "/v1/webhooks", map[string]any{"label": "Bad", "url": "ftp://x.example", "subscribed_events": []string{"email.received", "dunning.charge.paid"}})
		c, fields := errorOf(body)
		if code != 422 || c != "VALIDATION_ERROR" || !slices.Contains(fields, "url") || !slices.Contains(fields, "subscribed_events.0") || slices.Contains(fields, "subscribed_events.1") {
			t.Fatalf("validation: %d %s", code, body)
		}
		code, body = e.Do(e.Owner, "POST", "/v1/webhooks", map[string]any{"url": rcv.URL, "subscribed_events": []string{"*"}, "colour": "red"})
		if c, fields := errorOf(body); code != 422 || c != "VALIDATION_ERROR" || !slices.Equal(fields, []string{"colour", "label"}) {
			t.Fatalf("schema validation: %d %s", code, body)
		}
		if code, body = e.Do(e.Owner, "POST", "/v1/webhooks", map[string]any{"label": "Dup", "url": rcv.URL, "external_id": "erp", "subscribed_events": []string{"*"}}); code != 409 {
			t.Fatalf("duplicate external_id: %d %s", code, body)
		} else if c, _ := errorOf(body); c != "CONFLICT" {
			t.Fatalf("duplicate external_id code: %s", body)
		}

		// Numbered pages: three webhooks, two per page.
		for _, l := range []string{"Second", "Third"} {
			code, body := e.Do(e.Owner, "POST", "/v1/webhooks", map[string]any{"label": l, "url": rcv.URL, "subscribed_events": []string{"dunning.notification.failed"}})
			data[hook](t, code, body, 201)
		}
		p := list[hook](t, e, "/v1/webhooks?per_page=2")
		if len(p.Data) != 2 || p.Data[0].ID != id || p.Meta.Total != 3 || p.Meta.Page != 1 || p.Meta.PerPage != 2 || p.Meta.TotalPages != 2 {
			t.Fatalf("page 1: %+v", p)
		}
		if p = list[hook](t, e, "/v1/webhooks?per_page=2&page=2"); len(p.Data) != 1 || p.Data[0].Label != "Third" || p.Meta.Page != 2 {
			t.Fatalf("page 2: %+v", p)
		}
		if p = list[hook](t, e, "/v1/webhooks?per_page=2&page=3"); len(p.Data) != 0 || p.Meta.Total != 3 {
			t.Fatalf("page 3: %+v", p)
		}
		if p = list[hook](t, e, "/v1/webhooks"); len(p.Data) != 3 || p.Meta.PerPage != 25 {
			t.Fatalf("default page: %+v", p)
		}
		for _, q := range []string{"per_page=101", "page=0", "cursor=x"} {
			if code, body := e.Do(e.Owner, "GET", "/v1/webhooks?"+q, nil); code != 422 {
				t.Fatalf("?%s: %d %s", q, code, body)
			} else if c, _ := errorOf(body); c != "VALIDATION_ERROR" {
				t.Fatalf("?%s: %s", q, body)
			}
		}

		// Get by external id; update.
		code, body = e.Do(e.Owner, "GET", "/v1/webhooks/erp", nil)
		if got := data[hook](t, code, body, 200); got.ID != id || strings.Contains(body, "signing_secret") {
			t.Fatalf("get: %s", body)
		}
		code, body = e.Do(e.Owner, "PATCH", "/v1/webhooks/erp", map[string]any{"label": "ERP v2"})
		if got := data[hook](t, code, body, 200); got.Label != "ERP v2" {
			t.Fatalf("update: %s", body)
		}

		// A test delivery, signed with the secret, carries the organization.
		code, body = e.Do(e.Owner, "POST", "/v1/webhooks/"+id+"/test", nil)
		ev := data[map[string]any](t, code, body, 202)
		if ev["slug"] != "webhook.test" || ev["workspace_id"] != nil {
			t.Fatalf("test event: %s", body)
		}
		first := waitDeliveries(t, e, id, 1)[0]
		got, ok := rcv.ByDelivery(first.ID)
		if !ok || !webhooks.Verify(secret, got.Body, got.Header.Get("X-Kobana-Signature")) || got.Header.Get("X-Api-Key") != "k-1" || got.Header.Get("X-Kobana-Event") != "webhook.test" {
			t.Fatalf("delivery: %v %v", ok, got.Header)
		}
		var payload struct {
			Data struct {
				Message      string
				Organization struct{ ID, Name string }
			}
		}
		if err := json.Unmarshal(got.Body, &payload); err != nil || payload.Data.Organization.ID != e.Mine.ID || payload.Data.Organization.Name != "Mine" ||
			!strings.Contains(payload.Data.Message, "Kobana Dunning") {
			t.Fatalf("payload: %v %s", err, got.Body)
		}
		code, body = e.Do(e.Owner, "GET", "/v1/webhooks/"+id+"/deliveries/"+first.ID, nil)
		if d := data[webhooks.Delivery](t, code, body, 200); d.ID != first.ID || d.RequestBody != string(got.Body) || strings.Contains(body, "k-1") {
			t.Fatalf("delivery get (credential masked): %s", body)
		}

		// Retry: a new delivery of the same event, replay_of the first.
		code, body = e.Do(e.Owner, "POST", "/v1/webhooks/"+id+"/deliveries/"+first.ID+"/retry", nil)
		retry := data[webhooks.Delivery](t, code, body, 202)
		if retry.ReplayOf == nil || *retry.ReplayOf != first.ID || retry.SystemEventID != first.SystemEventID {
			t.Fatalf("retry: %s", body)
		}
		all := waitDeliveries(t, e, id, 2)
		if all[0].ID != retry.ID || all[1].ID != first.ID {
			t.Fatalf("deliveries not newest first: %s %s", all[0].ID, all[1].ID)
		}
		if dp := list[webhooks.Delivery](t, e, "/v1/webhooks/"+id+"/deliveries?per_page=1&page=2"); len(dp.Data) != 1 || dp.Data[0].ID != first.ID || dp.Meta.Total != 2 || dp.Meta.TotalPages != 2 {
			t.Fatalf("deliveries page 2: %+v", dp)
		}
		if dp := list[webhooks.Delivery](t, e, "/v1/webhooks/"+id+"/deliveries?status=failed"); len(dp.Data) != 0 || dp.Meta.Total != 0 {
			t.Fatalf("no delivery failed: %+v", dp)
		}

		// Rotation: the new secret signs, the old one no longer verifies.
		code, body = e.Do(e.Owner, "POST", "/v1/webhooks/"+id+"/rotate-secret", nil)
		rotated := data[map[string]string](t, code, body, 200)["signing_secret"]
		if rotated == "" || rotated == secret {
			t.Fatalf("rotate: %s", body)
		}
		e.Do(e.Owner, "POST", "/v1/webhooks/"+id+"/test", nil)
		third := waitDeliveries(t, e, id, 3)[0]
		got, _ = rcv.ByDelivery(third.ID)
		if sig := got.Header.Get("X-Kobana-Signature"); !webhooks.Verify(rotated, got.Body, sig) || webhooks.Verify(secret, got.Body, sig) {
			t.Fatal("after rotation the new secret must sign, and the old one must not verify")
		}

		// Idempotent writes: the same key replays, another body conflicts.
		body1 := map[string]any{"label": "Idem", "url": rcv.URL, "subscribed_events": []string{"*"}}
		c1, h1, r1 := e.DoFull(e.Token(e.Owner, "api"), "POST", "/v1/webhooks", body1, "X-Idempotency-Key", "create-1")
		c2, h2, r2 := e.DoFull(e.Token(e.Owner, "api"), "POST", "/v1/webhooks", body1, "X-Idempotency-Key", "create-1")
		if c1 != 201 || c2 != 201 || r1 != r2 || h1.Get("Idempotent-Replayed") != "" || h2.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("idempotent create: %d %d %s %s", c1, c2, r1, r2)
		}
		body1["label"] = "Other"
		if code, body := e.Do(e.Owner, "POST", "/v1/webhooks", body1, "X-Idempotency-Key", "create-1"); code != 409 {
			t.Fatalf("reused key: %d %s", code, body)
		} else if c, _ := errorOf(body); c != "CONFLICT" {
			t.Fatalf("reused key: %s", body)
		}

		// Another organization: every route with an id is NOT_FOUND and
		// changes nothing; its list is empty.
		hookPath := "/v1/webhooks/" + id
		for _, r := range []struct{ method, path string }{
			{"GET", hookPath}, {"GET", "/v1/webhooks/erp"}, {"PATCH", hookPath}, {"DELETE", hookPath},
			{"POST", hookPath + "/test"}, {"POST", hookPath + "/rotate-secret"}, {"GET", hookPath + "/deliveries"},
			{"GET", hookPath + "/deliveries/" + first.ID}, {"POST", hookPath + "/deliveries/" + first.ID + "/retry"},
		} {
			var b any
			if r.method == "PATCH" {
				b = map[string]any{"label": "taken"}
			}
			code, resp := e.Do(e.Other, r.method, r.path, b)
			if c, _ := errorOf(resp); code != 404 || c != "NOT_FOUND" {
				t.Errorf("%s %s as another organization: %d %s", r.method, r.path, code, resp)
			}
		}
		if tp := func() page[hook] {
			code, body := e.Do(e.Other, "GET", "/v1/webhooks", nil)
			var p page[hook]
			_ = json.Unmarshal([]byte(body), &p)
			if code != 200 {
				t.Fatalf("their list: %d", code)
			}
			return p
		}(); tp.Meta.Total != 0 {
			t.Errorf("their list shows mine: %+v", tp)
		}

		// Through MCP: the tools read, and the destructive ones need a
		// confirmation this client cannot give.
		if text, isErr := e.Call(e.Owner, "dunning_webhooks_get", map[string]any{"id": "erp"}); isErr || !strings.Contains(text, id) || !strings.Contains(text, "\n  ") {
			t.Fatalf("dunning_webhooks_get (indented text): %s", text)
		}
		if text, isErr := e.Call(e.Owner, "dunning_webhooks_list", map[string]any{"per_page": 1}); isErr || !strings.Contains(text, `"total_pages": 4`) {
			t.Fatalf("dunning_webhooks_list: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "dunning_webhooks_delete", map[string]any{"id": "erp"}); !isErr || !strings.Contains(text, "confirmation_required") {
			t.Fatalf("dunning_webhooks_delete without a way to confirm: %s", text)
		}

		// Delete: 204, then NOT_FOUND.
		if code, body := e.Do(e.Owner, "DELETE", "/v1/webhooks/erp", nil); code != 204 {
			t.Fatalf("delete: %d %s", code, body)
		}
		if code, body := e.Do(e.Owner, "GET", hookPath, nil); code != 404 || !strings.Contains(body, `"NOT_FOUND"`) {
			t.Fatalf("after delete: %d %s", code, body)
		}
	})
}
