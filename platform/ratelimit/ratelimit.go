// Package ratelimit counts what callers do and refuses what is over their
// limits: per token and per organization, per product, reads and writes
// apart, in this process's memory or in Redis shared by every replica. The
// counting is github.com/ulule/limiter/v3's (fixed windows; its memory and
// Redis stores behave alike); this package decides what is counted under
// which key, and how a decision reads as X-RateLimit-* headers.
//
// Two limits apply to each authenticated request, and both must pass:
//
//   - the token's: issuer, subject, OAuth client and organization (one
//     person through one client application, acting for one
//     organization, on one product);
//   - the organization's: everyone in it, through every client, on that
//     product.
//
// Each has a rate for reads and one for writes (Rates). A write is a
// tools/call of a tool that is not read-only ([mcp.OperationOf]) or an API
// operation that is not; everything else is a read. The headers describe
// whichever of the two limits is tighter (fewer requests remaining), or
// the one that refused.
//
// A request the limiter cannot judge because the store fails (Redis is
// down) is let through without headers, and the failure is logged: an
// outage of the counters must not become an outage of the product.
package ratelimit

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/ulule/limiter/v3"
	"github.com/ulule/limiter/v3/drivers/store/memory"
	redisstore "github.com/ulule/limiter/v3/drivers/store/redis"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/identity"
)

// Rate is a number of requests per period.
type Rate = limiter.Rate

// ParseRate reads "<count>-<period>", the period S, M, H or D ("600-M": 600
// a minute).
func ParseRate(s string) (Rate, error) {
	r, err := limiter.NewRateFromFormatted(strings.TrimSpace(s))
	if err != nil {
		return Rate{}, fmt.Errorf("rate %q: want <count>-<S|M|H|D>, like 600-M", s)
	}
	if r.Limit <= 0 {
		return Rate{}, fmt.Errorf("rate %q: the count must be positive", s)
	}
	return r, nil
}

// MustParseRate is ParseRate for constants.
func MustParseRate(s string) Rate {
	r, err := ParseRate(s)
	if err != nil {
		panic(err)
	}
	return r
}

// Rates are one product's limits.
type Rates struct {
	// Reads and Writes limit one token (issuer, subject, client and
	// organization).
	Reads, Writes Rate
	// OrgReads and OrgWrites limit one organization, all its tokens
	// together.
	OrgReads, OrgWrites Rate
}

// DefaultRates are generous: an agent working flat out stays under them,
// a runaway loop does not.
var DefaultRates = Rates{
	Reads:     MustParseRate("600-M"),
	Writes:    MustParseRate("120-M"),
	OrgReads:  MustParseRate("3000-M"),
	OrgWrites: MustParseRate("600-M"),
}

// rateKeys are the names Rates go by in a spec, in order.
var rateKeys = []string{"reads", "writes", "org-reads", "org-writes"}

func (r *Rates) field(key string) *Rate {
	switch key {
	case "reads":
		return &r.Reads
	case "writes":
		return &r.Writes
	case "org-reads":
		return &r.OrgReads
	case "org-writes":
		return &r.OrgWrites
	}
	return nil
}

// String is the spec of r, which ParseRates reads back.
func (r Rates) String() string {
	parts := make([]string, len(rateKeys))
	for i, k := range rateKeys {
		f := r.field(k)
		parts[i] = k + "=" + formatRate(*f)
	}
	return strings.Join(parts, ",")
}

func formatRate(r Rate) string {
	unit := map[time.Duration]string{time.Second: "S", time.Minute: "M", time.Hour: "H", 24 * time.Hour: "D"}[r.Period]
	return fmt.Sprintf("%d-%s", r.Limit, unit)
}

// ParseRates reads a spec such as "reads=600-M,writes=120-M,org-reads=3000-M,
// org-writes=600-M" over base: keys not named keep base's rate, so a
// product's spec need only name what it changes.
func ParseRates(spec string, base Rates) (Rates, error) {
	out := base
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		f := out.field(strings.TrimSpace(k))
		if !ok || f == nil {
			return Rates{}, fmt.Errorf("%q: want key=rate with key one of %s", part, strings.Join(rateKeys, ", "))
		}
		r, err := ParseRate(v)
		if err != nil {
			return Rates{}, err
		}
		*f = r
	}
	return out, nil
}

// Store is where the counters live: this process's memory, or a Redis
// server every replica shares.
type Store struct {
	store  limiter.Store
	client *redis.Client // nil for memory
}

// NewMemoryStore counts in this process's memory: right for one process,
// per replica with several.
func NewMemoryStore() *Store {
	return &Store{store: memory.NewStoreWithOptions(limiter.StoreOptions{Prefix: "kobana", CleanUpInterval: 30 * time.Second})}
}

// OpenRedis counts in the Redis server at url (redis://[user:pass@]host:port/db,
// rediss:// for TLS; go-redis options such as read_timeout may be given as
// query parameters), under keys starting with prefix. It fails when the
// server cannot be reached now.
func OpenRedis(ctx context.Context, url, prefix string) (*Store, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", err)
	}
	// A limiter waits on Redis in every request: keep the waits short
	// unless the URL says otherwise.
	if opts.DialTimeout == 0 {
		opts.DialTimeout = 2 * time.Second
	}
	if opts.ReadTimeout == 0 {
		opts.ReadTimeout = 500 * time.Millisecond
	}
	if opts.WriteTimeout == 0 {
		opts.WriteTimeout = 500 * time.Millisecond
	}
	client := redis.NewClient(opts)
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := client.Ping(pctx).Err(); err != nil {
		_ = client.Close()
		return nil, fmt.Errorf("redis at %s: %w", opts.Addr, err)
	}
	st, err := redisstore.NewStoreWithOptions(client, limiter.StoreOptions{Prefix: prefix})
	if err != nil {
		_ = client.Close()
		return nil, fmt.Errorf("redis at %s: %w", opts.Addr, err)
	}
	return &Store{store: st, client: client}, nil
}

// Open opens the Redis store at url, or the memory store when url is
// empty.
func Open(ctx context.Context, url, prefix string) (*Store, error) {
	if url == "" {
		return NewMemoryStore(), nil
	}
	return OpenRedis(ctx, url, prefix)
}

// Shared reports whether the counters are shared by replicas (Redis).
func (s *Store) Shared() bool { return s.client != nil }

// Ping checks that the shared store answers (always nil in memory), for
// readiness probes.
func (s *Store) Ping(ctx context.Context) error {
	if s.client == nil {
		return nil
	}
	return s.client.Ping(ctx).Err()
}

// Close releases the Redis connections.
func (s *Store) Close() error {
	if s.client == nil {
		return nil
	}
	return s.client.Close()
}

// Take counts one event under key and returns the state of its window
// after it; Reached means this event was over the rate.
func (s *Store) Take(ctx context.Context, key string, rate Rate) (limiter.Context, error) {
	return s.store.Get(ctx, key, rate)
}

// Peek returns the state of key's window without counting anything.
func (s *Store) Peek(ctx context.Context, key string, rate Rate) (limiter.Context, error) {
	return s.store.Peek(ctx, key, rate)
}

// Limiter is one product's limiter. It is the MCP endpoint's
// [mcp.RateLimiter] and, through Charge, the API's.
type Limiter struct {
	store   *Store
	product string
	rates   Rates
	log     *slog.Logger
	now     func() time.Time

	lastWarn atomic.Int64 // unix seconds of the last store failure logged

	// keys remembers the store keys of recent callers: hashing them is
	// most of what the limiter itself costs per request. Bounded by
	// maxKeys; past it, it starts over.
	keys  sync.Map // keyParts → string
	nkeys atomic.Int64
}

// maxKeys bounds Limiter.keys.
const maxKeys = 10000

type keyParts struct{ class, kind, issuer, subject, client, org string }

// key is storeKey(l.product, …) remembered per caller.
func (l *Limiter) key(k keyParts) string {
	if v, ok := l.keys.Load(k); ok {
		return v.(string)
	}
	var key string
	if k.kind == "org" {
		key = storeKey(l.product, k.class, k.kind, k.org)
	} else {
		key = storeKey(l.product, k.class, k.kind, k.issuer, k.subject, k.client, k.org)
	}
	if l.nkeys.Add(1) > maxKeys {
		l.keys.Clear()
		l.nkeys.Store(1)
	}
	l.keys.Store(k, key)
	return key
}

// NewLimiter limits the product named product (a key such as "inbox";
// organizations are counted per product) with rates.
func NewLimiter(store *Store, product string, rates Rates, log *slog.Logger) *Limiter {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Limiter{store: store, product: product, rates: rates, log: log, now: time.Now}
}

// Limit judges an MCP request: the identity the endpoint verified, and
// whether the message is a write ([mcp.OperationOf]).
func (l *Limiter) Limit(r *http.Request) mcp.RateDecision {
	ctx := r.Context()
	return l.Charge(ctx, identity.From(ctx), mcp.OperationOf(ctx).Write)
}

var _ mcp.OperationLimiter = (*Limiter)(nil)

// LimitOperation is Limit for an endpoint that hands over the operation
// itself ([mcp.OperationLimiter]), which spares the endpoint a copy of the
// request per call.
func (l *Limiter) LimitOperation(ctx context.Context, _ *http.Request, op mcp.Operation) mcp.RateDecision {
	return l.Charge(ctx, identity.From(ctx), op.Write)
}

// Charge counts one operation of id's, a write or a read, against the
// token's limit and then the organization's, and decides. The token is
// counted first: a request its token may not make is refused without
// using the organization's allowance. With no identity it allows and
// writes no headers.
func (l *Limiter) Charge(ctx context.Context, id *identity.Identity, write bool) mcp.RateDecision {
	if id == nil {
		return mcp.RateDecision{Allowed: true}
	}
	class, tokenRate, orgRate := "r", l.rates.Reads, l.rates.OrgReads
	if write {
		class, tokenRate, orgRate = "w", l.rates.Writes, l.rates.OrgWrites
	}
	tok, err := l.store.Take(ctx, l.key(keyParts{class, "tok", id.Issuer, id.Subject, id.ClientID, id.OrganizationID}), tokenRate)
	if err != nil {
		l.storeFailed(ctx, err)
		return mcp.RateDecision{Allowed: true}
	}
	d := l.decision(tok)
	if !d.Allowed {
		return d
	}
	od, ok := l.takeOrganization(ctx, class, id.OrganizationID, orgRate)
	if !ok {
		return d
	}
	if !od.Allowed || od.Remaining < d.Remaining || (od.Remaining == d.Remaining && od.Limit < d.Limit) {
		return od
	}
	return d
}

// ChargeOrganization counts one operation against the organization's
// limit alone, for work that arrives with no token but is the
// organization's all the same — mail delivered to one of its inboxes over
// SMTP. It shares the allowance of the organization's API and MCP calls
// (the same key), so a flood of mail and a flood of calls are one flood.
func (l *Limiter) ChargeOrganization(ctx context.Context, org string, write bool) mcp.RateDecision {
	if org == "" {
		return mcp.RateDecision{Allowed: true}
	}
	class, rate := "r", l.rates.OrgReads
	if write {
		class, rate = "w", l.rates.OrgWrites
	}
	d, ok := l.takeOrganization(ctx, class, org, rate)
	if !ok {
		return mcp.RateDecision{Allowed: true}
	}
	return d
}

// takeOrganization counts one event of class against org's window and
// decides; ok is false when the store failed (logged), and the caller lets
// the request through.
func (l *Limiter) takeOrganization(ctx context.Context, class, org string, rate Rate) (mcp.RateDecision, bool) {
	c, err := l.store.Take(ctx, l.key(keyParts{class: class, kind: "org", org: org}), rate)
	if err != nil {
		l.storeFailed(ctx, err)
		return mcp.RateDecision{}, false
	}
	return l.decision(c), true
}

// decision turns a window's state into headers. Reset is rounded up to
// the next second, so a client that waits for it finds the window reset.
func (l *Limiter) decision(c limiter.Context) mcp.RateDecision {
	reset := c.Reset + 1
	return mcp.RateDecision{
		Allowed:           !c.Reached,
		Limit:             int(c.Limit),
		Remaining:         int(c.Remaining),
		ResetUnix:         reset,
		RetryAfterSeconds: int(max(reset-l.now().Unix(), 1)),
	}
}

// storeFailed logs a failure of the store, at most once every 10 s.
func (l *Limiter) storeFailed(ctx context.Context, err error) {
	now := l.now().Unix()
	if last := l.lastWarn.Load(); now-last >= 10 && l.lastWarn.CompareAndSwap(last, now) {
		l.log.WarnContext(ctx, "rate limit store failed; letting requests through uncounted", "error", err)
	}
}

// hashKey names a caller in the store without writing its identifiers
// (e-mail addresses, subjects) there in clear.
func hashKey(parts ...string) string {
	var enc [24]byte
	digest(&enc, parts)
	return string(enc[:])
}

// digest writes the base64 of the first 18 bytes of the SHA-256 of parts,
// each followed by a zero byte, into enc, hashing from a buffer on the
// stack when the parts are short (the identifiers of a token are).
func digest(enc *[24]byte, parts []string) {
	var buf [512]byte
	b := buf[:0]
	for _, p := range parts {
		b = append(b, p...)
		b = append(b, 0)
	}
	sum := sha256.Sum256(b)
	base64.RawURLEncoding.Encode(enc[:], sum[:18])
}

// storeKey is product:class:kind:digest(parts), built with one allocation:
// the limiter makes two per request (docs/performance.md, "Identity read
// cache").
func storeKey(product, class, kind string, parts ...string) string {
	var enc [24]byte
	digest(&enc, parts)
	return product + ":" + class + ":" + kind + ":" + string(enc[:])
}

// HashKey is the digest the package puts in store keys, for callers that
// count their own events in a Store (the authorization server's limits).
func HashKey(parts ...string) string { return hashKey(parts...) }
