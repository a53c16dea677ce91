package observe

import (
	"sync"
	"testing"
)

func TestNewRequestIDFormatAndUniqueness(t *testing.T) {
	t.Parallel()
	const perGoroutine, goroutines = 2000, 8
	ids := make(chan string, perGoroutine*goroutines)
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for range perGoroutine {
				ids <- newRequestID()
			}
		})
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		if len(id) != 24 || !validRequestID(id) {
			t.Fatalf("id %q: want 24 lower-case hex characters", id)
		}
		for i := 0; i < len(id); i++ {
			if c := id[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
				t.Fatalf("id %q is not hex", id)
			}
		}
		if seen[id] {
			t.Fatalf("id %q made twice", id)
		}
		seen[id] = true
	}
}

func TestNewRequestIDGeneratorsAreSeededApart(t *testing.T) {
	t.Parallel()
	// Two generators made one after the other must not give the same ids:
	// each is seeded from crypto/rand, not from a shared or fixed seed.
	a := idSources.New()
	b := idSources.New()
	idSources.Put(a)
	first := newRequestID()
	idSources.Put(b)
	second := newRequestID()
	if first == second {
		t.Fatalf("two generators gave the same id %q", first)
	}
}
