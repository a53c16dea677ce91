package webhooks

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// waitFor polls cond until it holds; the bound is reached only when
// something is broken.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startQueue opens a working queue; fn registers services on it before it
// starts. It stops when the test ends, before the database closes.
func startQueue(t *testing.T, db *store.DB, fn func(q *jobs.Queue)) {
	t.Helper()
	ctx := context.Background()
	q, err := jobs.New(ctx, db, jobs.Config{Work: true, PollInterval: 50 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		t.Fatal(err)
	}
	fn(q)
	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := q.Stop(ctx); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
}

// The whole path through the job queue: an emitted event is delivered by
// the worker, retried after 5xx answers no sooner than the schedule says,
// and two products' services share the one queue.
func TestDeliveriesRunThroughTheQueue(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		cfg := testConfig()
		cfg.Retries = []time.Duration{200 * time.Millisecond, 400 * time.Millisecond}
		var inbox, dunning *Service
		startQueue(t, db, func(q *jobs.Queue) {
			inbox = New(db, q, cfg)
			dcfg := testConfig()
			dcfg.Product = "dunning"
			dunning = New(db, q, dcfg)
		})
		tn := newTenant(t, db)
		rcv := newReceiver(t, 500, 503) // then 200
		w, secret := hook(t, inbox, tn, rcv.URL, "email.*")
		ev := emit(t, inbox, tn, "email.processed", "inbox-1")
		d := onlyDelivery(t, inbox, tn, w.ID)
		waitFor(t, "the delivery to succeed", func() bool {
			got, err := inbox.GetDelivery(ctx, tn.org, tn.ws, w.ID, d.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status == DeliveryFailed {
				t.Fatalf("delivery failed: %v", *got.Error)
			}
			return got.Status == DeliverySuccess
		})
		reqs := rcv.requests()
		if len(reqs) != 3 {
			t.Fatalf("%d requests, want 3", len(reqs))
		}
		for i, r := range reqs {
			b := decodeBody(t, r.Body)
			if b.Event.ID != ev.ID || b.Delivery.ID != d.ID || b.Delivery.Attempt != i+1 || !Verify(secret, r.Body, r.Header.Get(SignatureHeader)) {
				t.Errorf("request %d: %s", i+1, r.Body)
			}
			if i > 0 {
				if gap := r.At.Sub(reqs[i-1].At); gap < cfg.Retries[i-1] {
					t.Errorf("retry %d came %s after the previous attempt, before the scheduled %s", i, gap, cfg.Retries[i-1])
				}
			}
		}
		if got, _ := inbox.GetDelivery(ctx, tn.org, tn.ws, w.ID, d.ID); got.Attempt != 3 || *got.ResponseStatus != 200 {
			t.Errorf("delivery %+v", got)
		}

		// The other product's deliveries run on the same queue, and Test
		// and Replay enqueue theirs.
		drcv := newReceiver(t)
		dw, _ := hook(t, dunning, tn, drcv.URL, "dunning.*")
		emit(t, dunning, tn, "dunning.charge.paid", "")
		if _, err := inbox.Test(ctx, tn.org, tn.ws, w.ID, map[string]string{"hello": "world"}); err != nil {
			t.Fatal(err)
		}
		if _, err := inbox.Replay(ctx, tn.org, tn.ws, w.ID, d.ID); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the other deliveries", func() bool { return len(drcv.requests()) == 1 && len(rcv.requests()) == 5 })
		if got := drcv.requests()[0].Header.Get("X-Kobana-Event"); got != "dunning.charge.paid" {
			t.Errorf("dunning event %q", got)
		}
		var slugs []string
		for _, r := range rcv.requests()[3:] {
			slugs = append(slugs, r.Header.Get("X-Kobana-Event"))
		}
		if s := strings.Join(slugs, ","); s != "webhook.test,email.processed" && s != "email.processed,webhook.test" {
			t.Errorf("test and replay sent %v", slugs)
		}
		waitFor(t, "the dunning delivery to be recorded", func() bool {
			ds, _ := dunning.ListDeliveries(ctx, tn.org, tn.ws, dw.ID, "", 10)
			return len(ds) == 1 && ds[0].Status == DeliverySuccess
		})
	})
}

// Two runs racing on the same attempt record it once.
func TestAnAttemptIsRecordedOnce(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := New(db, nil, testConfig())
		tn := newTenant(t, db)
		w, _ := hook(t, s, tn, "https://a.example.com", "*")
		emit(t, s, tn, "email.processed", "")
		d, err := s.loadDelivery(ctx, db, tn.org, onlyDelivery(t, s, tn, w.ID).ID)
		if err != nil {
			t.Fatal(err)
		}
		status := 500
		res := sendResult{Sent: true, Status: &status, Err: "the target answered 500", Retryable: true, RequestHeaders: map[string]string{}}
		first, err := s.record(ctx, d, 1, store.Now(), res)
		if err != nil || first.Outcome != outcomeRetry {
			t.Fatalf("first: %+v, %v", first, err)
		}
		second, err := s.record(ctx, d, 1, store.Now(), res)
		if err != nil || second.Outcome != "" {
			t.Fatalf("second: %+v, %v", second, err)
		}
		if got, _ := s.GetDelivery(ctx, tn.org, tn.ws, w.ID, d.ID); got.Attempt != 1 {
			t.Errorf("attempt %d", got.Attempt)
		}
	})
}
