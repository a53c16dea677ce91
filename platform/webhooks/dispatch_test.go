package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// body is a delivered body as a receiver decodes it.
type body struct {
	Event    struct{ ID, Slug string } `json:"event"`
	Delivery struct {
		ID      string `json:"id"`
		Attempt int    `json:"attempt"`
	} `json:"delivery"`
	CreatedAt   time.Time      `json:"created_at"`
	DeliveredAt time.Time      `json:"delivered_at"`
	WorkspaceID string         `json:"workspace_id"`
	Data        map[string]int `json:"data"`
}

func decodeBody(t *testing.T, b []byte) body {
	t.Helper()
	var out body
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("body %s: %v", b, err)
	}
	return out
}

func TestDeliveryIsSignedAndCaptured(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := New(db, nil, testConfig())
		tn := newTenant(t, db)
		rcv := newReceiver(t)
		w, secret, err := s.Create(ctx, NewWebhook{OrganizationID: tn.org, WorkspaceID: tn.ws, URL: rcv.URL + "/in",
			Auth: AuthBearer, Credentials: Credentials{Token: "tok-secret"}, SubscribedEvents: []string{"email.*"}})
		if err != nil {
			t.Fatal(err)
		}
		ev := emit(t, s, tn, "email.processed", "")
		d := onlyDelivery(t, s, tn, w.ID)
		if got := deliverAll(t, s, tn, d.ID); strings.Join(got, ",") != "success" {
			t.Fatalf("outcomes %v", got)
		}
		reqs := rcv.requests()
		if len(reqs) != 1 {
			t.Fatalf("%d requests", len(reqs))
		}
		r := reqs[0]
		for k, want := range map[string]string{
			"Content-Type": "application/json", "User-Agent": UserAgent, "X-Kobana-Event": "email.processed",
			"X-Kobana-Delivery-Id": d.ID, "X-Kobana-Environment": "test", "Authorization": "Bearer tok-secret",
		} {
			if got := r.Header.Get(k); got != want {
				t.Errorf("header %s = %q, want %q", k, got, want)
			}
		}
		if !Verify(secret, r.Body, r.Header.Get(SignatureHeader)) {
			t.Errorf("signature %q does not verify", r.Header.Get(SignatureHeader))
		}
		b := decodeBody(t, r.Body)
		if b.Event.ID != ev.ID || b.Event.Slug != "email.processed" || b.Delivery.ID != d.ID || b.Delivery.Attempt != 1 ||
			b.WorkspaceID != tn.ws || b.Data["n"] != 1 || !b.CreatedAt.Equal(ev.CreatedAt) {
			t.Errorf("body %s", r.Body)
		}
		if ts, _ := strconv.ParseInt(r.Header.Get("X-Kobana-Timestamp"), 10, 64); ts != b.DeliveredAt.Unix() {
			t.Errorf("X-Kobana-Timestamp %d, delivered_at %s", ts, b.DeliveredAt)
		}

		got, err := s.GetDelivery(ctx, tn.org, tn.ws, w.ID, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != DeliverySuccess || got.Attempt != 1 || got.RequestBody != string(r.Body) || got.Error != nil ||
			got.ResponseStatus == nil || *got.ResponseStatus != 200 || got.ResponseBody == nil || *got.ResponseBody != `{"received":true}` ||
			got.ResponseHeaders["X-Receiver"] != "yes" || got.DurationMS == nil || got.DeliveredAt == nil || !got.DeliveredAt.Equal(b.DeliveredAt) ||
			got.NextRetryAt != nil {
			t.Errorf("delivery %+v", got)
		}
		if got.RequestHeaders["Authorization"] != "Bearer ********" || got.RequestHeaders[SignatureHeader] != r.Header.Get(SignatureHeader) {
			t.Errorf("captured request headers %v", got.RequestHeaders)
		}
		if j, _ := json.Marshal(got); strings.Contains(string(j), "tok-secret") || strings.Contains(string(j), secret) {
			t.Errorf("delivery JSON leaks a credential: %s", j)
		}

		// After a rotation, deliveries are signed with the new secret only.
		newSecret, err := s.RotateSecret(ctx, tn.org, tn.ws, w.ID)
		if err != nil || newSecret == secret {
			t.Fatalf("rotate: %q, %v", newSecret, err)
		}
		emit(t, s, tn, "email.received", "")
		ds, _ := s.ListDeliveries(ctx, tn.org, tn.ws, w.ID, "", 10)
		deliverAll(t, s, tn, ds[0].ID)
		r = rcv.requests()[1]
		if Verify(secret, r.Body, r.Header.Get(SignatureHeader)) {
			t.Error("the old secret still verifies after rotation")
		}
		if !Verify(newSecret, r.Body, r.Header.Get(SignatureHeader)) {
			t.Error("the new secret does not verify")
		}
	})
}

func TestDeliveryAuthHeadersAreMasked(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := New(db, nil, testConfig())
		tn := newTenant(t, db)
		rcv := newReceiver(t)
		cases := []struct {
			creds              Credentials
			auth, header, sent string
			captured           string
		}{
			{Credentials{Username: "ana", Password: "pw"}, AuthBasic, "Authorization", "Basic YW5hOnB3", "Basic ********"},
			{Credentials{HeaderName: "x-api-key", HeaderValue: "k-123"}, AuthHeader, "X-Api-Key", "k-123", "********"},
		}
		for i, c := range cases {
			w, _, err := s.Create(ctx, NewWebhook{OrganizationID: tn.org, WorkspaceID: tn.ws, URL: rcv.URL, Auth: c.auth,
				Credentials: c.creds, SubscribedEvents: []string{"only." + c.auth}})
			if err != nil {
				t.Fatal(err)
			}
			emit(t, s, tn, "only."+c.auth, "")
			d := onlyDelivery(t, s, tn, w.ID)
			deliverAll(t, s, tn, d.ID)
			if got := rcv.requests()[i].Header.Get(c.header); got != c.sent {
				t.Errorf("%s: sent %s %q, want %q", c.auth, c.header, got, c.sent)
			}
			got, _ := s.GetDelivery(ctx, tn.org, tn.ws, w.ID, d.ID)
			if got.RequestHeaders[c.header] != c.captured {
				t.Errorf("%s: captured %s %q, want %q", c.auth, c.header, got.RequestHeaders[c.header], c.captured)
			}
		}
	})
}

func TestRetriesFollowTheScheduleThenSucceed(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		cfg := testConfig()
		cfg.Retries = []time.Duration{time.Hour, 2 * time.Hour}
		s := New(db, nil, cfg)
		tn := newTenant(t, db)
		rcv := newReceiver(t, 500, 503)
		w, _ := hook(t, s, tn, rcv.URL, "*")
		emit(t, s, tn, "email.processed", "")
		d := onlyDelivery(t, s, tn, w.ID)
		args := deliveryArgs{DeliveryID: d.ID, OrganizationID: tn.org, Product: "inbox"}

		// makeDue moves the scheduled retry to the past, as time would.
		makeDue := func() {
			if _, err := db.Exec(ctx, `UPDATE webhook_deliveries SET next_retry_at = ? WHERE id = ?`, store.Now().Add(-time.Second), d.ID); err != nil {
				t.Fatal(err)
			}
		}
		for i, status := range []int{500, 503} {
			before := store.Now()
			res, err := s.attempt(ctx, args)
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != outcomeRetry || res.Wait != cfg.Retries[i] {
				t.Fatalf("attempt %d: %+v, want a retry in %s", i+1, res, cfg.Retries[i])
			}
			got, _ := s.GetDelivery(ctx, tn.org, tn.ws, w.ID, d.ID)
			if got.Status != DeliveryPending || got.Attempt != i+1 || got.ResponseStatus == nil || *got.ResponseStatus != status ||
				got.Error == nil || !strings.Contains(*got.Error, strconv.Itoa(status)) || got.NextRetryAt == nil ||
				got.NextRetryAt.Before(before.Add(cfg.Retries[i])) || got.NextRetryAt.After(store.Now().Add(cfg.Retries[i])) {
				t.Fatalf("after attempt %d: %+v", i+1, got)
			}
			// A run before the retry is due (a duplicate job) sends nothing
			// and waits for it.
			res, err = s.attempt(ctx, args)
			if err != nil || res.Outcome != "" || res.Wait <= 0 || res.Wait > cfg.Retries[i] || len(rcv.requests()) != i+1 {
				t.Fatalf("early run after attempt %d: %+v, %v, %d requests", i+1, res, err, len(rcv.requests()))
			}
			makeDue()
		}
		res, err := s.attempt(ctx, args)
		if err != nil || res.Outcome != outcomeSuccess || res.Wait != 0 {
			t.Fatalf("third attempt: %+v, %v", res, err)
		}
		reqs := rcv.requests()
		if len(reqs) != 3 {
			t.Fatalf("%d requests", len(reqs))
		}
		for i, r := range reqs {
			b := decodeBody(t, r.Body)
			if b.Delivery.ID != d.ID || b.Delivery.Attempt != i+1 {
				t.Errorf("request %d: delivery %+v", i+1, b.Delivery)
			}
		}
		got, _ := s.GetDelivery(ctx, tn.org, tn.ws, w.ID, d.ID)
		if got.Status != DeliverySuccess || got.Attempt != 3 || got.Error != nil || got.NextRetryAt != nil ||
			*got.ResponseStatus != 200 || got.RequestBody != string(reqs[2].Body) {
			t.Errorf("final delivery %+v", got)
		}
		// A finished delivery is not sent again by another run of its job.
		if res, err := s.attempt(ctx, args); err != nil || res.Outcome != "" || len(rcv.requests()) != 3 {
			t.Errorf("run after success: %+v, %v, %d requests", res, err, len(rcv.requests()))
		}
	})
}

func TestGivesUpAfterTheLastAttempt(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := New(db, nil, testConfig()) // 3 retries: 4 attempts
		tn := newTenant(t, db)
		rcv := newReceiver(t, 500, 500, 500, 500)
		w, _ := hook(t, s, tn, rcv.URL, "*")
		emit(t, s, tn, "email.processed", "")
		d := onlyDelivery(t, s, tn, w.ID)
		if got := deliverAll(t, s, tn, d.ID); strings.Join(got, ",") != "retry,retry,retry,failed" {
			t.Fatalf("outcomes %v", got)
		}
		got, _ := s.GetDelivery(ctx, tn.org, tn.ws, w.ID, d.ID)
		if got.Status != DeliveryFailed || got.Attempt != 4 || got.Error == nil || !strings.Contains(*got.Error, "gave up after 4 attempts") || got.NextRetryAt != nil {
			t.Errorf("delivery %+v", got)
		}
		if len(rcv.requests()) != 4 {
			t.Errorf("%d requests", len(rcv.requests()))
		}
		if hw, _ := s.Get(ctx, tn.org, tn.ws, w.ID); hw.ConsecutiveFailures != 1 {
			t.Errorf("consecutive failures %d, want 1", hw.ConsecutiveFailures)
		}
		// The next success resets the count.
		emit(t, s, tn, "email.received", "")
		ds, _ := s.ListDeliveries(ctx, tn.org, tn.ws, w.ID, "", 10)
		if got := deliverAll(t, s, tn, ds[0].ID); strings.Join(got, ",") != "success" {
			t.Fatalf("outcomes %v", got)
		}
		if hw, _ := s.Get(ctx, tn.org, tn.ws, w.ID); hw.ConsecutiveFailures != 0 {
			t.Errorf("consecutive failures %d after a success", hw.ConsecutiveFailures)
		}
	})
}

func TestStatusesThatFailAtOnceOrRetry(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := New(db, nil, testConfig())
		tn := newTenant(t, db)
		cases := map[int]string{
			404: outcomeFailed, 400: outcomeFailed, 401: outcomeFailed, 410: outcomeFailed, 301: outcomeFailed, 307: outcomeFailed,
			408: outcomeRetry, 429: outcomeRetry, 500: outcomeRetry, 502: outcomeRetry,
		}
		redirected := newReceiver(t)
		for status, want := range cases {
			rcv := newRedirectingReceiver(t, redirected.URL, status)
			slug := "status.s" + strconv.Itoa(status)
			w, _ := hook(t, s, tn, rcv.URL, slug)
			emit(t, s, tn, slug, "")
			d := onlyDelivery(t, s, tn, w.ID)
			res, err := s.attempt(ctx, deliveryArgs{DeliveryID: d.ID, OrganizationID: tn.org, Product: "inbox"})
			if err != nil || res.Outcome != want {
				t.Errorf("%d: %+v, %v; want %s", status, res, err, want)
			}
			got, _ := s.GetDelivery(ctx, tn.org, tn.ws, w.ID, d.ID)
			if got.Attempt != 1 || got.ResponseStatus == nil || *got.ResponseStatus != status || got.Error == nil {
				t.Errorf("%d: delivery %+v", status, got)
			}
			if want == outcomeFailed && got.Status != DeliveryFailed {
				t.Errorf("%d: status %s", status, got.Status)
			}
			if len(rcv.requests()) != 1 {
				t.Errorf("%d: %d requests", status, len(rcv.requests()))
			}
		}
		if n := len(redirected.requests()); n != 0 {
			t.Errorf("a redirect was followed (%d requests)", n)
		}
	})
}

func TestTimeoutIsRetryable(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		cfg := testConfig()
		cfg.Timeout = 300 * time.Millisecond
		s := New(db, nil, cfg)
		tn := newTenant(t, db)
		rcv := newReceiver(t, -1) // hangs once, then answers 200
		w, _ := hook(t, s, tn, rcv.URL, "*")
		emit(t, s, tn, "email.processed", "")
		d := onlyDelivery(t, s, tn, w.ID)
		args := deliveryArgs{DeliveryID: d.ID, OrganizationID: tn.org, Product: "inbox"}
		res, err := s.attempt(ctx, args)
		if err != nil || res.Outcome != outcomeRetry {
			t.Fatalf("timed-out attempt: %+v, %v", res, err)
		}
		got, _ := s.GetDelivery(ctx, tn.org, tn.ws, w.ID, d.ID)
		if got.Status != DeliveryPending || got.Error == nil || !strings.Contains(*got.Error, "no answer within") || got.ResponseStatus != nil {
			t.Errorf("after the timeout: %+v", got)
		}
		if got := deliverAll(t, s, tn, d.ID); strings.Join(got, ",") != "success" {
			t.Fatalf("outcomes %v", got)
		}
		if got, _ := s.GetDelivery(ctx, tn.org, tn.ws, w.ID, d.ID); got.Attempt != 2 || got.Status != DeliverySuccess {
			t.Errorf("final %+v", got)
		}
	})
}

// With private targets refused, a webhook whose name resolves to loopback,
// or that names a loopback address, is refused when connecting: the
// delivery fails at once with a clear error and the receiver sees nothing.
func TestPrivateTargetsAreRefusedAtConnect(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		rcv := newReceiver(t)
		port := strconv.Itoa(rcv.Listener.Addr().(*net.TCPAddr).Port)
		// The webhooks were created while private targets were allowed
		// (URL validation would refuse them now).
		dev := New(db, nil, testConfig())
		tn := newTenant(t, db)
		urls := map[string]string{
			"https://127.0.0.1:" + port + "/in": "not allowed",
			"https://localhost:" + port + "/in": "not allowed",
			"http://127.0.0.1:" + port + "/in":  "must use https",
		}
		cfg := testConfig()
		cfg.AllowPrivateTargets = false
		s := New(db, nil, cfg)
		for url, want := range urls {
			w, _ := hook(t, dev, tn, url, "*")
			if _, _, err := s.Create(ctx, NewWebhook{OrganizationID: tn.org, WorkspaceID: tn.ws, URL: url, SubscribedEvents: []string{"*"}}); err == nil {
				t.Errorf("Create(%s) accepted with private targets refused", url)
			}
			ev := emit(t, s, tn, "email.processed", "")
			var id string
			if err := db.Get(ctx, &id, `SELECT id FROM webhook_deliveries WHERE webhook_id = ? AND system_event_id = ?`, w.ID, ev.ID); err != nil {
				t.Fatal(err)
			}
			if got := deliverAll(t, s, tn, id); strings.Join(got, ",") != "failed" {
				t.Errorf("%s: outcomes %v, want failed at once", url, got)
			}
			d, _ := s.GetDelivery(ctx, tn.org, tn.ws, w.ID, id)
			if d.Status != DeliveryFailed || d.Error == nil || !strings.Contains(*d.Error, want) || d.ResponseStatus != nil {
				t.Errorf("%s: delivery %+v", url, d)
			} else if strings.Contains(*d.Error, "127.0.0.1") || strings.Contains(*d.Error, "::1") || strings.Contains(*d.Error, port) {
				t.Errorf("%s: the delivery's error names the address the target resolved to: %s", url, *d.Error)
			}
		}
		if n := len(rcv.requests()); n != 0 {
			t.Errorf("the receiver got %d requests", n)
		}
	})
}

func TestDeletedOrInactiveWebhookGetsNoRequest(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := New(db, nil, testConfig())
		tn := newTenant(t, db)
		rcv := newReceiver(t)
		deleted, _ := hook(t, s, tn, rcv.URL, "*")
		inactive, _ := hook(t, s, tn, rcv.URL, "*")
		ev := emit(t, s, tn, "email.processed", "")
		var ids []struct {
			ID      string `db:"id"`
			Webhook string `db:"webhook_id"`
		}
		if err := db.Select(ctx, &ids, `SELECT id, webhook_id FROM webhook_deliveries WHERE system_event_id = ?`, ev.ID); err != nil || len(ids) != 2 {
			t.Fatalf("%v %v", ids, err)
		}
		off := StatusInactive
		if _, err := s.Update(ctx, tn.org, tn.ws, inactive.ID, WebhookPatch{Status: &off}); err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, tn.org, tn.ws, deleted.ID); err != nil {
			t.Fatal(err)
		}
		for _, d := range ids {
			if got := deliverAll(t, s, tn, d.ID); strings.Join(got, ",") != "failed" {
				t.Errorf("outcomes %v", got)
			}
			var row deliveryRow
			if err := db.Get(ctx, &row, `SELECT `+deliveryColumns+` FROM webhook_deliveries WHERE id = ?`, d.ID); err != nil {
				t.Fatal(err)
			}
			want := "inactive"
			if d.Webhook == deleted.ID {
				want = "deleted"
			}
			if row.Status != DeliveryFailed || row.Attempt != 0 || row.Error == nil || !strings.Contains(*row.Error, want) || row.DeliveredAt != nil {
				t.Errorf("delivery to the %s webhook: %+v", want, row.Delivery)
			}
		}
		if n := len(rcv.requests()); n != 0 {
			t.Errorf("the receiver got %d requests", n)
		}
		if hw, _ := s.Get(ctx, tn.org, tn.ws, inactive.ID); hw.ConsecutiveFailures != 0 {
			t.Errorf("an unsent delivery counted as a failure of the target")
		}
		// An inactive webhook cannot be replayed to.
		var ve *ValidationError
		for _, d := range ids {
			if d.Webhook != inactive.ID {
				continue
			}
			if _, err := s.Replay(ctx, tn.org, tn.ws, inactive.ID, d.ID); !errors.As(err, &ve) || ve.Field != "status" {
				t.Errorf("replay to an inactive webhook: %v", err)
			}
		}
	})
}
