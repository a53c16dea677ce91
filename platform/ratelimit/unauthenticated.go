package ratelimit

import (
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/kobana/kobana-mcp/platform/httpx"
)

// DefaultUnauthenticatedRate is how many 401 answers one client address
// may cause in a window before its requests are refused.
var DefaultUnauthenticatedRate = MustParseRate("300-M")

// Unauthenticated limits, per client address, the requests that end in
// 401 — no token, a bad or expired one, a token for another resource —
// so that unauthenticated traffic (which carries no identity to count
// against, and still costs a body read and a signature check) is not an
// unlimited path into the server. Each 401 counts against the address;
// once an address has used its allowance for the window, every request
// from it gets 429 with Retry-After until the window ends, without being
// served. Authenticated requests only peek at the counter.
//
// It always counts in this process's memory, so each replica allows the
// rate on its own: it is a cheap guard against floods, not an exact
// quota, and a Redis round trip on every request would cost more than
// what it guards. Addresses are the connection's peer (IPv6 by /64);
// behind a reverse proxy every client shares the proxy's address.
type Unauthenticated struct {
	store *Store
	rate  Rate
	// lastCounted is when a 401 was last counted (Unix nanoseconds; 0:
	// never). A counter's window opens at its first 401 and lasts one
	// period, so when none was counted for a period no address can be
	// over its allowance and a request need not peek at all: the common
	// case, where peeking (its key built from the address, the store's
	// lock) was a few percent of a signed-in request. (A second of margin
	// covers the store stamping the window a moment after this.)
	lastCounted atomic.Int64
}

// NewUnauthenticated allows rate 401 answers per client address.
func NewUnauthenticated(rate Rate) *Unauthenticated {
	return &Unauthenticated{store: NewMemoryStore(), rate: rate}
}

// Wrap limits next.
func (u *Unauthenticated) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := ""
		if last := u.lastCounted.Load(); last != 0 && time.Since(time.Unix(0, last)) <= u.rate.Period+time.Second {
			key = "unauth:" + clientAddress(r)
			if c, err := u.store.Peek(r.Context(), key, u.rate); err == nil && c.Remaining <= 0 {
				Refuse(w, r, time.Until(time.Unix(c.Reset+1, 0)), "Too many unauthenticated requests from this address; retry after the time in Retry-After")
				return
			}
		}
		sw := &httpx.StatusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		if sw.Status == http.StatusUnauthorized {
			if key == "" {
				key = "unauth:" + clientAddress(r)
			}
			// Noted before the count, so a request peeking meanwhile
			// peeks rather than skips.
			u.lastCounted.Store(time.Now().UnixNano())
			_, _ = u.store.Take(r.Context(), key, u.rate)
		}
	})
}

// Refuse answers 429 with Retry-After in the endpoint's shape (a
// JSON-RPC error on an MCP endpoint).
func Refuse(w http.ResponseWriter, r *http.Request, retryAfter time.Duration, message string) {
	httpx.Refuse(w, r, http.StatusTooManyRequests, retryAfter, message)
}

// clientAddress is the connection's peer address, IPv6 addresses cut to
// their /64 (one host usually holds a whole /64).
func clientAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return host
	}
	if ip.To4() == nil {
		return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
	}
	return ip.String()
}
