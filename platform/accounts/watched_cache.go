package accounts

import (
	"sync"
	"time"
)

// WatchedCache keeps reads of identity and tenancy data — the role and
// grant read, the workspace pick — for as long as its ChangeWatch trusts
// them (docs/decisions.md, "Identity read cache"): an entry is served only
// while Fresh says nothing changed since its read. It is bounded: past Max
// entries the stale ones go, then all. Only what the caller puts is kept;
// callers put successful reads only.
type WatchedCache[K comparable, V any] struct {
	watch *ChangeWatch
	max   int
	// Now is the clock (time.Now); tests freeze it.
	Now func() time.Time

	mu      sync.Mutex
	entries map[K]watchedEntry[V]
}

type watchedEntry[V any] struct {
	v  V
	at Stamp
}

// NewWatchedCache is a cache trusted by w, of at most max entries (≤ 0:
// 10 000).
func NewWatchedCache[K comparable, V any](w *ChangeWatch, max int) *WatchedCache[K, V] {
	if max <= 0 {
		max = 10000
	}
	return &WatchedCache[K, V]{watch: w, max: max, Now: time.Now, entries: map[K]watchedEntry[V]{}}
}

// Get answers a fresh entry of k, and in any case the stamp a read made
// now is to be put with — taken before the read, so a change that commits
// while it runs makes it stale. With the stamp not OK (the listener down)
// nothing may be served nor kept.
func (c *WatchedCache[K, V]) Get(k K) (V, bool, Stamp) {
	now := c.Now()
	stamp := c.watch.Stamp(now)
	var zero V
	if !stamp.OK() {
		return zero, false, stamp
	}
	c.mu.Lock()
	e, ok := c.entries[k]
	c.mu.Unlock()
	if ok && c.watch.Fresh(e.at, now) {
		return e.v, true, stamp
	}
	return zero, false, stamp
}

// Put keeps v, read at stamp, for k.
func (c *WatchedCache[K, V]) Put(k K, v V, stamp Stamp) {
	if !stamp.OK() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= c.max {
		now := c.Now()
		for k, e := range c.entries {
			if !c.watch.Fresh(e.at, now) {
				delete(c.entries, k)
			}
		}
		if len(c.entries) >= c.max {
			clear(c.entries)
		}
	}
	c.entries[k] = watchedEntry[V]{v: v, at: stamp}
}

// Len is how many entries the cache holds.
func (c *WatchedCache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
