package idempotency

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/rest"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newStore(db *store.DB) (*Store, *clock) {
	c := &clock{t: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)}
	return New(db, Options{Namespace: "test", Now: c.now}), c
}

// A key is claimed once; while its request runs a second one is told it
// is in use; once completed, the same request gets the stored response
// and another request with the key is a conflict.
func TestIdempotencyClaimCompleteReplay(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s, _ := newStore(db)
		replay, claim, err := s.Begin(ctx, "test:org1", "k1", "fp-a")
		if err != nil || replay != nil || claim == "" {
			t.Fatalf("first Begin: %v %v %q", replay, err, claim)
		}
		if _, _, err := s.Begin(ctx, "test:org1", "k1", "fp-a"); !errors.Is(err, rest.ErrIdempotencyKeyInUse) {
			t.Fatalf("while running: %v", err)
		}
		if _, _, err := s.Begin(ctx, "test:org1", "k1", "fp-b"); !errors.Is(err, rest.ErrIdempotencyKeyReused) {
			t.Fatalf("other request while running: %v", err)
		}
		want := rest.StoredResponse{Status: 201, Header: http.Header{"Content-Type": {"application/json"}, "Location": {"/x/1"}}, Body: []byte(`{"data":{"id":"1"}}`)}
		if err := s.Complete(ctx, "test:org1", "k1", claim, want); err != nil {
			t.Fatal(err)
		}
		got, _, err := s.Begin(ctx, "test:org1", "k1", "fp-a")
		if err != nil || got == nil {
			t.Fatalf("replay: %v %v", got, err)
		}
		if got.Status != 201 || string(got.Body) != string(want.Body) || got.Header.Get("Location") != "/x/1" || got.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("replayed %+v", got)
		}
		if _, _, err := s.Begin(ctx, "test:org1", "k1", "fp-b"); !errors.Is(err, rest.ErrIdempotencyKeyReused) {
			t.Fatalf("other request after completion: %v", err)
		}
		// Another organization's key space is its own.
		if r, c, err := s.Begin(ctx, "test:org2", "k1", "fp-b"); err != nil || r != nil || c == "" {
			t.Fatalf("other scope: %v %v", r, err)
		}
	})
}

// Abort frees the key: the retry runs afresh. A claim that outlived its
// lease is taken over, and its late Complete stores nothing.
func TestIdempotencyAbortAndLease(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s, c := newStore(db)
		_, claim, _ := s.Begin(ctx, "test:o", "k", "fp")
		if err := s.Abort(ctx, "test:o", "k", claim); err != nil {
			t.Fatal(err)
		}
		_, stale, err := s.Begin(ctx, "test:o", "k", "fp")
		if err != nil || stale == "" || stale == claim {
			t.Fatalf("after abort: %v %q", err, stale)
		}
		c.add(DefaultLease + time.Second)
		_, fresh, err := s.Begin(ctx, "test:o", "k", "fp")
		if err != nil || fresh == "" {
			t.Fatalf("after the lease: %v", err)
		}
		if err := s.Complete(ctx, "test:o", "k", stale, rest.StoredResponse{Status: 200}); !errors.Is(err, errClaimLost) {
			t.Fatalf("late complete: %v", err)
		}
		if err := s.Complete(ctx, "test:o", "k", fresh, rest.StoredResponse{Status: 200, Body: []byte("ok")}); err != nil {
			t.Fatal(err)
		}
		if r, _, err := s.Begin(ctx, "test:o", "k", "fp"); err != nil || r == nil || string(r.Body) != "ok" {
			t.Fatalf("replay of the taker: %v %v", r, err)
		}
	})
}

// A response is replayed for 24 hours; afterwards the key is new again,
// and the purge removes expired rows only.
func TestIdempotencyExpiryAndPurge(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s, c := newStore(db)
		_, claim, _ := s.Begin(ctx, "test:o", "old", "fp")
		_ = s.Complete(ctx, "test:o", "old", claim, rest.StoredResponse{Status: 200, Body: []byte("1")})
		c.add(23 * time.Hour)
		if r, _, err := s.Begin(ctx, "test:o", "old", "fp"); err != nil || r == nil {
			t.Fatalf("within 24 h: %v %v", r, err)
		}
		_, claim2, _ := s.Begin(ctx, "test:o", "young", "fp")
		_ = s.Complete(ctx, "test:o", "young", claim2, rest.StoredResponse{Status: 200, Body: []byte("2")})
		c.add(2 * time.Hour)
		n, err := s.Purge(ctx)
		if err != nil || n != 1 {
			t.Fatalf("purge: %d %v", n, err)
		}
		if r, _, err := s.Begin(ctx, "test:o", "young", "fp"); err != nil || r == nil || string(r.Body) != "2" {
			t.Fatalf("unexpired key after purge: %v %v", r, err)
		}
		// Expired but not yet purged: Begin claims it afresh, even for another request.
		_, claim3, _ := s.Begin(ctx, "test:o", "late", "fp")
		_ = s.Complete(ctx, "test:o", "late", claim3, rest.StoredResponse{Status: 200})
		c.add(25 * time.Hour)
		if r, cl, err := s.Begin(ctx, "test:o", "late", "other"); err != nil || r != nil || cl == "" {
			t.Fatalf("expired key: %v %v", r, err)
		}
	})
}

// Of many concurrent requests with one key exactly one claims it; the
// others are told it is in use (replicas agree through the database).
func TestIdempotencyConcurrentClaims(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		s, _ := newStore(db)
		var claimed, inUse atomic.Int32
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, claim, err := s.Begin(context.Background(), "test:o", "race", "fp")
				switch {
				case err == nil && claim != "":
					claimed.Add(1)
				case errors.Is(err, rest.ErrIdempotencyKeyInUse):
					inUse.Add(1)
				default:
					t.Errorf("Begin: %v", err)
				}
			}()
		}
		wg.Wait()
		if claimed.Load() != 1 || inUse.Load() != 7 {
			t.Fatalf("claimed %d, in use %d", claimed.Load(), inUse.Load())
		}
	})
}
