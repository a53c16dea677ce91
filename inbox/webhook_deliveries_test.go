package inbox

import (
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/platform/webhooks"
	"github.com/kobana/kobana-mcp/productkit/producttest"
)

// TestWebhookDeliveries sends real deliveries to a loopback receiver: a
// test event arrives signed with the secret shown at creation; after a
// rotation only the new secret verifies; a replay is a second delivery of
// the same event; deliveries are listed newest first and read one by one,
// and a delivery is reachable only through its own webhook.
func TestWebhookDeliveries(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := newTestEnv(t, db, whConfig())
		rcv := producttest.NewReceiver(t)
		w, secret := whCreate(t, e, map[string]any{"label": "Receiver", "url": rcv.URL, "subscribed_events": []string{"email.processed"},
			"auth": "header", "header_name": "X-Api-Key", "header_value": "k-123"})
		hook := "/api/v1/webhooks/" + w.ID

		// 1. Test: 202 with the event; the delivery arrives signed.
		code, body := e.Do(e.Owner, "POST", hook+"/test", nil)
		ev := whJSON[systemEventJSON](t, code, body, 202)
		if ev.Slug != "webhook.test" || ev.ID == "" || ev.EmailID != nil || ev.WorkspaceID != e.MineWS.ID {
			t.Fatalf("test event: %s", body)
		}
		first := whWaitDeliveries(t, e, w.ID, 1)[0]
		got, ok := rcv.ByDelivery(first.ID)
		if !ok {
			t.Fatalf("the receiver got no request for delivery %s", first.ID)
		}
		if !webhooks.Verify(secret, got.Body, got.Header.Get("X-Kobana-Signature")) || got.Header.Get("X-Api-Key") != "k-123" {
			t.Fatalf("first delivery: signature %q, key %q", got.Header.Get("X-Kobana-Signature"), got.Header.Get("X-Api-Key"))
		}
		if first.SystemEventID != ev.ID || first.EventSlug != "webhook.test" || first.Status != "success" || first.ResponseStatus == nil || *first.ResponseStatus != 200 {
			t.Fatalf("first delivery: %+v", first)
		}
		code, body = e.Do(e.Owner, "GET", hook+"/deliveries/"+first.ID, nil)
		one := whJSON[webhooks.Delivery](t, code, body, 200)
		if one.ID != first.ID || one.RequestBody != string(got.Body) || strings.Contains(body, "k-123") {
			t.Fatalf("delivery get (the credential must be masked): %s", body)
		}

		// 2. Rotate: the new secret signs, the old one no longer verifies.
		code, body = e.Do(e.Owner, "POST", hook+"/regenerate-secret", nil)
		rotated := whJSON[map[string]string](t, code, body, 200)["signing_secret"]
		if rotated == "" || rotated == secret {
			t.Fatalf("rotate: %s", body)
		}
		if code, body := e.Do(e.Owner, "POST", hook+"/test", nil); code != 202 {
			t.Fatalf("second test: %d %s", code, body)
		}
		second := whWaitDeliveries(t, e, w.ID, 2)[0]
		got, ok = rcv.ByDelivery(second.ID)
		sig := got.Header.Get("X-Kobana-Signature")
		if !ok || second.ID == first.ID || !webhooks.Verify(rotated, got.Body, sig) || webhooks.Verify(secret, got.Body, sig) {
			t.Fatalf("after rotation: delivery %s, new secret verifies %v, old verifies %v", second.ID,
				webhooks.Verify(rotated, got.Body, sig), webhooks.Verify(secret, got.Body, sig))
		}

		// 3. Replay the first delivery: 202, a new delivery of the same
		//    event, signed with the current secret.
		code, body = e.Do(e.Owner, "POST", hook+"/deliveries/"+first.ID+"/replay", nil)
		replay := whJSON[webhooks.Delivery](t, code, body, 202)
		if replay.ID == first.ID || replay.ReplayOf == nil || *replay.ReplayOf != first.ID || replay.SystemEventID != ev.ID {
			t.Fatalf("replay: %s", body)
		}
		all := whWaitDeliveries(t, e, w.ID, 3)
		if all[0].ID != replay.ID || all[1].ID != second.ID || all[2].ID != first.ID {
			t.Fatalf("deliveries are not newest first: %v %v %v", all[0].ID, all[1].ID, all[2].ID)
		}
		got, ok = rcv.ByDelivery(replay.ID)
		if !ok || !webhooks.Verify(rotated, got.Body, got.Header.Get("X-Kobana-Signature")) {
			t.Fatalf("the replay did not arrive signed with the current secret")
		}

		// 4. Pagination to the end and the status filter.
		p := whListGet[webhooks.Delivery](t, e, e.Owner, hook+"/deliveries?limit=2")
		if len(p.Data) != 2 || p.Meta.NextCursor == nil || p.Data[0].ID != replay.ID {
			t.Fatalf("page 1: %+v", p)
		}
		p = whListGet[webhooks.Delivery](t, e, e.Owner, hook+"/deliveries?limit=2&cursor="+*p.Meta.NextCursor)
		if len(p.Data) != 1 || p.Data[0].ID != first.ID || p.Meta.NextCursor != nil {
			t.Fatalf("page 2: %+v", p)
		}
		p = whListGet[webhooks.Delivery](t, e, e.Owner, hook+"/deliveries?status=success&limit=1")
		if len(p.Data) != 1 || p.Meta.NextCursor == nil {
			t.Fatalf("status filter, page 1: %+v", p)
		}
		if p = whListGet[webhooks.Delivery](t, e, e.Owner, hook+"/deliveries?status=failed"); len(p.Data) != 0 {
			t.Fatalf("no delivery failed: %+v", p.Data)
		}
		if code, body := e.Do(e.Owner, "GET", hook+"/deliveries?status=lost", nil); code != 422 || !whFieldError(body, "status") {
			t.Fatalf("bad status filter: %d %s", code, body)
		}

		// 5. A delivery is reachable only through its own webhook.
		other, _ := whCreate(t, e, map[string]any{"label": "Other", "url": rcv.URL, "subscribed_events": []string{"*"}})
		for _, r := range []struct{ method, path string }{
			{"GET", "/api/v1/webhooks/" + other.ID + "/deliveries/" + first.ID},
			{"POST", "/api/v1/webhooks/" + other.ID + "/deliveries/" + first.ID + "/replay"},
			{"GET", hook + "/deliveries/" + store.NewID()},
			{"GET", hook + "/deliveries/not-an-id"},
		} {
			if code, body := e.Do(e.Owner, r.method, r.path, nil); code != 404 || !strings.Contains(body, "delivery not found") {
				t.Errorf("%s %s: %d %s", r.method, r.path, code, body)
			}
		}

		// 6. An inactive webhook sends nothing: test and replay conflict.
		e.Do(e.Owner, "PATCH", hook, map[string]any{"status": "inactive"})
		for _, path := range []string{hook + "/test", hook + "/deliveries/" + first.ID + "/replay"} {
			if code, body := e.Do(e.Owner, "POST", path, nil); code != 409 || !strings.Contains(body, "inactive") {
				t.Errorf("POST %s on an inactive webhook: %d %s", path, code, body)
			}
		}

		// 7. Through MCP: the listing and one delivery.
		if text, isErr := e.Call(e.Owner, "webhook_deliveries_list", map[string]any{"id": w.ID, "limit": 1}); isErr || !strings.Contains(text, replay.ID) {
			t.Fatalf("webhook_deliveries_list: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "webhook_deliveries_get", map[string]any{"id": w.ID, "delivery_id": first.ID}); isErr || !strings.Contains(text, first.ID) || strings.Contains(text, "k-123") {
			t.Fatalf("webhook_deliveries_get: %s", text)
		}
		if text, isErr := e.Call(e.Other, "webhook_deliveries_get", map[string]any{"id": w.ID, "delivery_id": first.ID}); !isErr || !strings.Contains(text, `"not_found"`) {
			t.Fatalf("webhook_deliveries_get, another organization: %s", text)
		}
	})
}
