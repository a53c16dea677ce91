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

// A key is claimed once; a second request with it waits for the first and
// replays its answer; once completed, another request with the key is a
// conflict, and another organization's key space is its own.
func TestIdempotencyClaimCompleteReplay(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s, _ := newStore(db)
		run, replay, claim, err := s.Begin(ctx, "test:org1", "k1", "fp-a")
		if err != nil || replay != nil || claim == "" || !db.InAmbient(run) {
			t.Fatalf("first Begin: %v %v %q", replay, err, claim)
		}
		waited := make(chan *rest.StoredResponse, 1)
		go func() {
			_, r, _, err := s.Begin(ctx, "test:org1", "k1", "fp-a")
			if err != nil {
				t.Errorf("the waiting retry: %v", err)
			}
			waited <- r
		}()
		time.Sleep(100 * time.Millisecond)
		want := rest.StoredResponse{Status: 201, Header: http.Header{"Content-Type": {"application/json"}, "Location": {"/x/1"}}, Body: []byte(`{"data":{"id":"1"}}`)}
		if err := s.Complete(run, "test:org1", "k1", claim, want); err != nil {
			t.Fatal(err)
		}
		if r := <-waited; r == nil || r.Status != 201 {
			t.Fatalf("the retry that waited: %+v", r)
		}
		_, got, _, err := s.Begin(ctx, "test:org1", "k1", "fp-a")
		if err != nil || got == nil {
			t.Fatalf("replay: %v %v", got, err)
		}
		if got.Status != 201 || string(got.Body) != string(want.Body) || got.Header.Get("Location") != "/x/1" || got.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("replayed %+v", got)
		}
		if _, _, _, err := s.Begin(ctx, "test:org1", "k1", "fp-b"); !errors.Is(err, rest.ErrIdempotencyKeyReused) {
			t.Fatalf("other request after completion: %v", err)
		}
		run2, r, c, err := s.Begin(ctx, "test:org2", "k1", "fp-b")
		if err != nil || r != nil || c == "" {
			t.Fatalf("other scope: %v %v", r, err)
		}
		_ = s.Abort(run2, "test:org2", "k1", c)
	})
}

// The claim, the request's own writes and the kept answer are one
// transaction: Abort rolls the writes back and frees the key, Complete
// commits them with the answer. An in-flight row committed by an older
// version, whose lease ran out, is taken over.
func TestIdempotencyWritesCommitWithTheKey(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s, c := newStore(db)
		orgs := func() int {
			var n int
			if err := db.Get(ctx, &n, "SELECT COUNT(*) FROM organizations"); err != nil {
				t.Fatal(err)
			}
			return n
		}
		before := orgs()
		insert := func(run context.Context, name string) {
			t.Helper()
			err := db.WithTx(run, func(tx *store.Tx) error {
				_, err := tx.Exec(run, "INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)", store.NewID(), name, time.Now().UTC())
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		run, _, claim, _ := s.Begin(ctx, "test:o", "k", "fp")
		insert(run, "rolled back")
		if err := s.Abort(run, "test:o", "k", claim); err != nil {
			t.Fatal(err)
		}
		if orgs() != before {
			t.Fatal("an aborted request's write committed")
		}
		run, r, claim, err := s.Begin(ctx, "test:o", "k", "fp")
		if err != nil || r != nil || claim == "" {
			t.Fatalf("after abort: %v %v", r, err)
		}
		insert(run, "kept")
		// A unit of work that fails inside the request rolls back alone.
		if err := db.WithTx(run, func(tx *store.Tx) error {
			if _, err := tx.Exec(run, "INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)", store.NewID(), "undone", time.Now().UTC()); err != nil {
				return err
			}
			return errors.New("changed my mind")
		}); err == nil {
			t.Fatal("the failing unit succeeded")
		}
		if err := s.Complete(run, "test:o", "k", claim, rest.StoredResponse{Status: 201, Body: []byte("ok")}); err != nil {
			t.Fatal(err)
		}
		if orgs() != before+1 {
			t.Fatalf("organizations %d, want %d (the kept write only)", orgs(), before+1)
		}
		// An older version committed in-flight claims on their own; one
		// whose lease ran out (its replica died) is taken over.
		now := c.now()
		if _, err := db.Exec(ctx, `INSERT INTO idempotency_keys (scope, key, request_hash, claim, state, created_at, expires_at) VALUES (?, ?, ?, ?, 'in_flight', ?, ?)`,
			"test:o", "legacy", "fp", "old", now, now.Add(DefaultLease)); err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := s.Begin(ctx, "test:o", "legacy", "fp"); !errors.Is(err, rest.ErrIdempotencyKeyInUse) {
			t.Fatalf("a live legacy claim: %v", err)
		}
		c.add(DefaultLease + time.Second)
		run, _, fresh, err := s.Begin(ctx, "test:o", "legacy", "fp")
		if err != nil || fresh == "" {
			t.Fatalf("after the lease: %v", err)
		}
		if err := s.Complete(run, "test:o", "legacy", fresh, rest.StoredResponse{Status: 200, Body: []byte("taken")}); err != nil {
			t.Fatal(err)
		}
		if _, r, _, err := s.Begin(ctx, "test:o", "legacy", "fp"); err != nil || r == nil || string(r.Body) != "taken" {
			t.Fatalf("replay of the taker: %v %v", r, err)
		}
	})
}

// A response is replayed for 24 hours; afterwards the key is new again,
// and the purge removes expired rows only.
func TestIdempotencyExpiryAndPurge(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s, c := newStore(db)
		run, _, claim, _ := s.Begin(ctx, "test:o", "old", "fp")
		_ = s.Complete(run, "test:o", "old", claim, rest.StoredResponse{Status: 200, Body: []byte("1")})
		c.add(23 * time.Hour)
		if _, r, _, err := s.Begin(ctx, "test:o", "old", "fp"); err != nil || r == nil {
			t.Fatalf("within 24 h: %v %v", r, err)
		}
		run, _, claim2, _ := s.Begin(ctx, "test:o", "young", "fp")
		_ = s.Complete(run, "test:o", "young", claim2, rest.StoredResponse{Status: 200, Body: []byte("2")})
		c.add(2 * time.Hour)
		n, err := s.Purge(ctx)
		if err != nil || n != 1 {
			t.Fatalf("purge: %d %v", n, err)
		}
		if _, r, _, err := s.Begin(ctx, "test:o", "young", "fp"); err != nil || r == nil || string(r.Body) != "2" {
			t.Fatalf("unexpired key after purge: %v %v", r, err)
		}
		// Expired but not yet purged: Begin claims it afresh, even for another request.
		run, _, claim3, _ := s.Begin(ctx, "test:o", "late", "fp")
		_ = s.Complete(run, "test:o", "late", claim3, rest.StoredResponse{Status: 200})
		c.add(25 * time.Hour)
		run, r, cl, err := s.Begin(ctx, "test:o", "late", "other")
		if err != nil || r != nil || cl == "" {
			t.Fatalf("expired key: %v %v", r, err)
		}
		_ = s.Abort(run, "test:o", "late", cl)
	})
}

// Of many concurrent requests with one key exactly one claims it; the
// others wait for it and replay its answer (replicas agree through the
// database); none runs twice.
func TestIdempotencyConcurrentClaims(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		s, _ := newStore(db)
		var claimed, replayed atomic.Int32
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				run, r, claim, err := s.Begin(context.Background(), "test:o", "race", "fp")
				switch {
				case err == nil && claim != "":
					claimed.Add(1)
					time.Sleep(50 * time.Millisecond)
					if err := s.Complete(run, "test:o", "race", claim, rest.StoredResponse{Status: 201, Body: []byte("one")}); err != nil {
						t.Error(err)
					}
				case err == nil && r != nil && string(r.Body) == "one":
					replayed.Add(1)
				default:
					t.Errorf("Begin: %v %v", r, err)
				}
			}()
		}
		wg.Wait()
		if claimed.Load() != 1 || replayed.Load() != 7 {
			t.Fatalf("claimed %d, replayed %d", claimed.Load(), replayed.Load())
		}
	})
}
