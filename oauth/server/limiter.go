package server

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limit is a token bucket: Burst events at once, then one every Every.
type Limit struct {
	Every time.Duration
	Burst int
}

// Limiter counts events per key (an address, an e-mail) for one of the
// server's limits. The default, a token bucket per key in this process's
// memory, gives each replica its own allowance; Config.NewLimiter can put
// the counters where every replica shares them.
type Limiter interface {
	// Allow takes one event from key's allowance, reporting whether there
	// was one.
	Allow(ctx context.Context, key string) bool
	// Exhausted reports whether key's allowance is used up, without
	// taking from it.
	Exhausted(ctx context.Context, key string) bool
}

// keyedLimiter holds one token bucket per key (an IP address, an email),
// in this process's memory. Replicas each keep their own: a person trying
// passwords across N replicas gets N times the allowance unless
// Config.NewLimiter shares the counters.
type keyedLimiter struct {
	limit Limit
	max   int

	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

func newKeyedLimiter(l Limit) *keyedLimiter {
	return &keyedLimiter{limit: l, max: 100_000, buckets: map[string]*bucket{}}
}

func (k *keyedLimiter) get(key string, now time.Time) *rate.Limiter {
	k.mu.Lock()
	defer k.mu.Unlock()
	if now.Sub(k.lastSweep) > time.Minute || len(k.buckets) >= k.max {
		k.sweep(now)
	}
	b := k.buckets[key]
	if b == nil {
		b = &bucket{lim: rate.NewLimiter(rate.Every(k.limit.Every), k.limit.Burst)}
		k.buckets[key] = b
	}
	b.seen = now
	return b.lim
}

// sweep forgets buckets that have refilled (forgetting them changes
// nothing) and, if an attacker filled the map with fresh keys, arbitrary
// others until it is back under its bound.
func (k *keyedLimiter) sweep(now time.Time) {
	k.lastSweep = now
	full := k.limit.Every * time.Duration(k.limit.Burst)
	for key, b := range k.buckets {
		if now.Sub(b.seen) > full {
			delete(k.buckets, key)
		}
	}
	for key := range k.buckets {
		if len(k.buckets) < k.max*9/10 {
			break
		}
		delete(k.buckets, key)
	}
}

// Allow takes one event from key's bucket, reporting whether there was one.
func (k *keyedLimiter) Allow(_ context.Context, key string) bool {
	now := time.Now()
	return k.get(key, now).AllowN(now, 1)
}

// Exhausted reports whether key's bucket is empty, without taking from it.
func (k *keyedLimiter) Exhausted(_ context.Context, key string) bool {
	now := time.Now()
	return k.get(key, now).TokensAt(now) < 1
}

// remoteIP is the address the request came from: the peer of the
// connection. Behind a reverse proxy every request would share the proxy's
// address; set Config.ClientIP to read the proxy's header instead.
func remoteIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
