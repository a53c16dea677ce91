package sqlstore

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
)

// RoleCacheOptions bound a RoleCache; the zero value is the production
// setting.
type RoleCacheOptions struct {
	// TTL is how long an entry is trusted at most, whatever the notices
	// say (default and upper limit DefaultRoleTTL): the bound for a change
	// no notice announces — SQL run by hand, another process on the same
	// SQLite file, a listener connection lost without an error.
	TTL time.Duration
	// Max bounds the entries (default 10 000).
	Max int
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// DefaultRoleTTL is the longest a cached identity read is trusted.
const DefaultRoleTTL = time.Second

// RoleCache is RoleLookup with its answers kept, so a signed-in request
// costs no database read when nothing changed (docs/decisions.md,
// "Identity read cache"). It stays authoritative:
//
//   - a change made through this process (accounts.Store.SetRole,
//     RemoveMember, Store.RevokeGrant) moves accounts.Generation, and an
//     entry read at an older generation is not trusted: the replica that
//     made the change sees it on the next request;
//   - on PostgreSQL each change also sends a notice on
//     accounts.ChangeChannel with its commit; the cache's own LISTEN
//     connection drops every entry when one arrives, so the other replicas
//     see it within the notice's delivery (milliseconds). While that
//     connection is down nothing is cached — every request reads the
//     database, as without the cache — and when it is back every entry
//     read before is dropped, since notices were missed;
//   - no entry is trusted longer than TTL (≤ 1 s), which bounds what no
//     notice announces.
//
// Only successful reads are kept: a refused token is read again each time.
type RoleCache struct {
	next oauth.RoleLookup
	ttl  time.Duration
	max  int
	now  func() time.Time

	listening atomic.Bool   // entries may be trusted (always on SQLite)
	remote    atomic.Uint64 // notices received, and listener restarts
	done      chan struct{}
	cancel    context.CancelFunc

	mu      sync.Mutex
	entries map[roleKey]roleEntry
}

type roleKey struct{ org, user, grant string }

type roleEntry struct {
	role          identity.Role
	local, remote uint64
	at            time.Time
}

// NewRoleCache caches RoleLookup(db). On PostgreSQL it opens one
// connection of its own for LISTEN, until ctx ends or Close.
func NewRoleCache(ctx context.Context, db *store.DB, opts RoleCacheOptions) *RoleCache {
	c := &RoleCache{next: RoleLookup(db), ttl: opts.TTL, max: opts.Max, now: opts.Now,
		entries: map[roleKey]roleEntry{}, done: make(chan struct{})}
	if c.ttl <= 0 || c.ttl > DefaultRoleTTL {
		c.ttl = DefaultRoleTTL
	}
	if c.max <= 0 {
		c.max = 10000
	}
	if c.now == nil {
		c.now = time.Now
	}
	cfg := db.PostgresConfig()
	if cfg == nil {
		// SQLite: one process by design; its changes move the generation,
		// anything else is bounded by the TTL.
		c.listening.Store(true)
		close(c.done)
		c.cancel = func() {}
		return c
	}
	ctx, c.cancel = context.WithCancel(ctx)
	go c.listen(ctx, cfg)
	return c
}

// Close stops the listener and waits for it.
func (c *RoleCache) Close() {
	c.cancel()
	<-c.done
}

// Listening reports whether entries are trusted now: always on SQLite,
// while the LISTEN connection is up on PostgreSQL.
func (c *RoleCache) Listening() bool { return c.listening.Load() }

// Len is how many entries the cache holds.
func (c *RoleCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// Lookup is the oauth.RoleLookup.
func (c *RoleCache) Lookup(ctx context.Context, id *identity.Identity) (identity.Role, error) {
	if !c.listening.Load() {
		return c.next(ctx, id)
	}
	userID := id.UserID
	if userID == "" {
		userID = id.Subject
	}
	k := roleKey{id.OrganizationID, userID, id.GrantID}
	// The tags are taken before the read: a change that commits while it
	// runs moves them, so what it read is not trusted afterwards.
	local, remote, now := accounts.Generation(), c.remote.Load(), c.now()
	c.mu.Lock()
	e, ok := c.entries[k]
	c.mu.Unlock()
	if ok && e.local == local && e.remote == remote && now.Sub(e.at) < c.ttl {
		return e.role, nil
	}
	role, err := c.next(ctx, id)
	if err != nil || !c.listening.Load() {
		return role, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= c.max {
		for k, v := range c.entries {
			if v.local != local || v.remote != remote || now.Sub(v.at) >= c.ttl {
				delete(c.entries, k)
			}
		}
		if len(c.entries) >= c.max {
			clear(c.entries)
		}
	}
	c.entries[k] = roleEntry{role: role, local: local, remote: remote, at: now}
	return role, nil
}

// ListenerName is the application_name of the LISTEN connection.
const ListenerName = "kobana-mcp identity listener"

func (c *RoleCache) listen(ctx context.Context, cfg *pgx.ConnConfig) {
	defer close(c.done)
	cfg.RuntimeParams["application_name"] = ListenerName
	wait := 50 * time.Millisecond
	for ctx.Err() == nil {
		if c.listenOnce(ctx, cfg) {
			wait = 50 * time.Millisecond
		}
		c.listening.Store(false)
		c.remote.Add(1)
		c.mu.Lock()
		clear(c.entries)
		c.mu.Unlock()
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
		wait = min(2*wait, time.Second)
	}
}

// listenOnce holds one LISTEN connection until it fails; it reports
// whether it was listening.
func (c *RoleCache) listenOnce(ctx context.Context, cfg *pgx.ConnConfig) bool {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return false
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var channel string
	if err := conn.QueryRow(ctx, "SELECT "+accounts.ChangeChannel).Scan(&channel); err != nil {
		return false
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
		return false
	}
	// Notices sent before LISTEN were missed: what was read before is
	// dropped, then entries may be trusted again.
	c.remote.Add(1)
	c.listening.Store(true)
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			c.listening.Store(false)
			return true
		}
		c.remote.Add(1)
	}
}
