package webhooks

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// unknownCount is how many attempts a service counted with an unknown
// outcome.
func unknownCount(t *testing.T, s *Service) float64 {
	t.Helper()
	var m dto.Metric
	if err := s.metrics.deliveries.WithLabelValues(outcomeUnknown).Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

// checkInFlight fails unless the delivery shows attempt n in flight: its
// request captured, and no response, error or next retry.
func checkInFlight(t *testing.T, got Delivery, n int) {
	t.Helper()
	if got.Status != DeliveryPending || got.Attempt != n || got.NextRetryAt != nil || got.Error != nil ||
		got.ResponseStatus != nil || !strings.Contains(got.RequestBody, `"attempt":`) || got.RequestHeaders["X-Kobana-Delivery-Id"] != got.ID {
		t.Errorf("attempt %d in flight: delivery %+v", n, got)
	}
}

// checkUnknown fails unless the delivery shows attempt n with an unknown
// outcome, why in its error, the request it started with, and a retry
// scheduled.
func checkUnknown(t *testing.T, got Delivery, n int, why string, request string) {
	t.Helper()
	if got.Status != DeliveryPending || got.Attempt != n || got.NextRetryAt == nil || got.ResponseStatus != nil ||
		got.Error == nil || !strings.Contains(*got.Error, "outcome of attempt") || !strings.Contains(*got.Error, why) ||
		got.RequestBody != request || got.RequestHeaders["X-Kobana-Delivery-Id"] != got.ID {
		t.Errorf("attempt %d unknown (%s): delivery %+v", n, why, got)
	}
}

// checkSentTwice fails unless the receiver got attempts 1 and 2 of one
// delivery, both signed with the same delivery id.
func checkSentTwice(t *testing.T, rcv *receiver, deliveryID string) {
	t.Helper()
	reqs := rcv.requests()
	if len(reqs) != 2 {
		t.Fatalf("the receiver got %d requests, want the unknown attempt and its retry", len(reqs))
	}
	for i, r := range reqs {
		b := decodeBody(t, r.Body)
		if r.Header.Get("X-Kobana-Delivery-Id") != deliveryID || b.Delivery.ID != deliveryID || b.Delivery.Attempt != i+1 {
			t.Errorf("request %d: delivery id %q, body %s", i+1, r.Header.Get("X-Kobana-Delivery-Id"), r.Body)
		}
	}
}

// A hard stop (the shutdown grace ran out) cuts off an attempt in flight:
// the stopped run records its outcome as unknown, the job goes back to
// the queue, and another replica's queue sends the retry.
func TestAnAttemptCutOffByAHardStopIsUnknownAndRetried(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		log := slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelError}))
		first, err := jobs.New(ctx, db, jobs.Config{Work: true, PollInterval: 50 * time.Millisecond, Logger: log})
		if err != nil {
			t.Fatal(err)
		}
		s := New(db, first, testConfig())
		if err := first.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = first.Stop(context.Background()) })

		tn := newTenant(t, db)
		rcv := newReceiver(t, -1) // the first request hangs until its client gives up
		w, _ := hook(t, s, tn, rcv.URL, "*")
		emit(t, s, tn, "email.processed", "")
		d := onlyDelivery(t, s, tn, w.ID)
		waitFor(t, "the first attempt to reach the receiver", func() bool { return len(rcv.requests()) == 1 })
		inFlight, err := s.GetDelivery(ctx, tn.org, tn.ws, w.ID, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		checkInFlight(t, inFlight, 1)

		sctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		if err := first.Stop(sctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Stop = %v, want the grace to run out", err)
		}
		got, err := s.GetDelivery(ctx, tn.org, tn.ws, w.ID, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		checkUnknown(t, got, 1, "stopped while its request was in flight", inFlight.RequestBody)
		if n := unknownCount(t, s); n != 1 {
			t.Errorf("unknown attempts counted %v, want 1", n)
		}

		var other *Service
		startQueue(t, db, func(q *jobs.Queue) { other = New(db, q, testConfig()) })
		waitFor(t, "the retry to succeed", func() bool {
			got, _ := other.GetDelivery(ctx, tn.org, tn.ws, w.ID, d.ID)
			return got.Status == DeliverySuccess
		})
		checkSentTwice(t, rcv, d.ID)
		if got, _ := other.GetDelivery(ctx, tn.org, tn.ws, w.ID, d.ID); got.Attempt != 2 || got.Error != nil || *got.ResponseStatus != 200 {
			t.Errorf("after the retry: %+v", got)
		}
	})
}

// A worker that stops answering in the middle of an attempt — its process
// died, as far as anyone else can tell — leaves the attempt started and
// without an outcome. The run that takes the job over (River's rescue)
// records the outcome as unknown and retries; the old run, should it ever
// wake, cannot overwrite what came after.
func TestAnAttemptLeftInFlightIsUnknownAndRetried(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		cfg := testConfig()
		cfg.Timeout = time.Minute // the stuck request does not time out by itself
		dead := New(db, nil, cfg)
		tn := newTenant(t, db)
		rcv := newReceiver(t, -1)
		w, _ := hook(t, dead, tn, rcv.URL, "*")
		emit(t, dead, tn, "email.processed", "")
		d := onlyDelivery(t, dead, tn, w.ID)
		args := deliveryArgs{DeliveryID: d.ID, OrganizationID: tn.org, Product: "inbox"}

		zombie, wake := context.WithCancel(ctx)
		defer wake()
		woke := make(chan error, 1)
		go func() {
			_, err := dead.attempt(zombie, args)
			woke <- err
		}()
		waitFor(t, "the first attempt to reach the receiver", func() bool { return len(rcv.requests()) == 1 })
		inFlight, err := dead.GetDelivery(ctx, tn.org, tn.ws, w.ID, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		checkInFlight(t, inFlight, 1)

		// Another replica runs the job.
		live := New(db, nil, testConfig())
		res, err := live.attempt(ctx, args)
		if err != nil || res.Outcome != outcomeUnknown || res.Wait != testConfig().Retries[0] {
			t.Fatalf("the rescuing run: %+v, %v; want the unknown outcome recorded and a retry scheduled", res, err)
		}
		got, _ := live.GetDelivery(ctx, tn.org, tn.ws, w.ID, d.ID)
		checkUnknown(t, got, 1, "never recorded", inFlight.RequestBody)
		if n := len(rcv.requests()); n != 1 {
			t.Errorf("recording the unknown outcome sent %d more requests", n-1)
		}
		if outcomes := deliverAll(t, live, tn, d.ID); strings.Join(outcomes, ",") != "success" {
			t.Fatalf("the retry: outcomes %v", outcomes)
		}
		checkSentTwice(t, rcv, d.ID)
		if n := unknownCount(t, live); n != 1 {
			t.Errorf("unknown attempts counted %v, want 1", n)
		}

		// The stuck run wakes (its request ends) and finds the delivery
		// moved on: it records nothing.
		wake()
		if err := <-woke; !errors.Is(err, context.Canceled) {
			t.Errorf("the stuck run ended with %v", err)
		}
		if got, _ := live.GetDelivery(ctx, tn.org, tn.ws, w.ID, d.ID); got.Status != DeliverySuccess || got.Attempt != 2 || got.Error != nil {
			t.Errorf("the stuck run overwrote the delivery: %+v", got)
		}
	})
}

// An unknown outcome on the last attempt fails the delivery, saying so.
func TestAnUnknownLastAttemptFailsTheDelivery(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := New(db, nil, testConfig())
		s.cfg.Retries = nil // one attempt in all
		tn := newTenant(t, db)
		w, _ := hook(t, s, tn, "https://hooks.example.com/in", "*")
		emit(t, s, tn, "email.processed", "")
		d, err := s.loadDelivery(ctx, db, tn.org, onlyDelivery(t, s, tn, w.ID).ID)
		if err != nil {
			t.Fatal(err)
		}
		res := sendResult{Body: []byte(`{}`), RequestHeaders: map[string]string{"X-Kobana-Delivery-Id": d.ID}}
		if ok, err := s.markStarted(ctx, d, 1, res); !ok || err != nil {
			t.Fatalf("markStarted = %v, %v", ok, err)
		}
		// A second run cannot start the same attempt.
		if ok, err := s.markStarted(ctx, d, 1, res); ok || err != nil {
			t.Fatalf("second markStarted = %v, %v; want refused", ok, err)
		}
		out, err := s.attempt(ctx, deliveryArgs{DeliveryID: d.ID, OrganizationID: tn.org, Product: "inbox"})
		if err != nil || out.Outcome != outcomeUnknown || out.Wait != 0 {
			t.Fatalf("attempt = %+v, %v", out, err)
		}
		got, _ := s.GetDelivery(ctx, tn.org, tn.ws, w.ID, d.ID)
		if got.Status != DeliveryFailed || got.Attempt != 1 || got.Error == nil ||
			!strings.Contains(*got.Error, "unknown") || !strings.Contains(*got.Error, "gave up after 1 attempts") {
			t.Errorf("delivery %+v", got)
		}
	})
}
