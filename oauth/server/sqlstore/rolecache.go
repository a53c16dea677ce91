package sqlstore

import (
	"context"
	"time"

	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
)

// RoleCacheOptions bound a RoleCache; the zero value is the production
// setting.
type RoleCacheOptions struct {
	// Watch tells which entries may still be trusted; the process's one
	// watch, shared with its other identity and tenancy caches. Nil: the
	// cache opens a watch of its own (closed by Close), with TTL.
	Watch *accounts.ChangeWatch
	// TTL of the cache's own watch (default and upper limit
	// DefaultRoleTTL): the bound for a change no notice announces — SQL
	// run by hand, another process on the same SQLite file, a listener
	// connection lost without an error.
	TTL time.Duration
	// Max bounds the entries (default 10 000).
	Max int
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// DefaultRoleTTL is the longest a cached identity read is trusted.
const DefaultRoleTTL = accounts.DefaultTTL

// ListenerName is the application_name of the LISTEN connection.
const ListenerName = accounts.ListenerName

// RoleCache is RoleLookup with its answers kept, so a signed-in request
// costs no database read when nothing changed (docs/decisions.md,
// "Identity read cache"). It stays authoritative through its
// accounts.ChangeWatch: a change made through this process (SetRole,
// RemoveMember, Store.RevokeGrant) is seen on the next request, one made
// elsewhere on PostgreSQL within its notice's delivery, and nothing is
// trusted longer than the watch's TTL (≤ 1 s) nor while its listener is
// down.
//
// Only successful reads are kept: a refused token is read again each time.
type RoleCache struct {
	next    oauth.RoleLookup
	watch   *accounts.ChangeWatch
	own     bool
	entries *accounts.WatchedCache[roleKey, identity.Role]
}

type roleKey struct{ org, user, grant string }

// NewRoleCache caches RoleLookup(db). Without opts.Watch it opens a
// watch of its own (on PostgreSQL one LISTEN connection), until ctx ends
// or Close.
func NewRoleCache(ctx context.Context, db *store.DB, opts RoleCacheOptions) *RoleCache {
	c := &RoleCache{next: RoleLookup(db), watch: opts.Watch}
	if c.watch == nil {
		c.watch, c.own = accounts.NewChangeWatch(ctx, db, opts.TTL), true
	}
	c.entries = accounts.NewWatchedCache[roleKey, identity.Role](c.watch, opts.Max)
	if opts.Now != nil {
		c.entries.Now = opts.Now
	}
	return c
}

// Close stops the cache's own watch, if it opened one.
func (c *RoleCache) Close() {
	if c.own {
		c.watch.Close()
	}
}

// Listening reports whether entries are trusted now: always on SQLite,
// while the LISTEN connection is up on PostgreSQL.
func (c *RoleCache) Listening() bool { return c.watch.Listening() }

// Len is how many entries the cache holds.
func (c *RoleCache) Len() int { return c.entries.Len() }

// Lookup is the oauth.RoleLookup.
func (c *RoleCache) Lookup(ctx context.Context, id *identity.Identity) (identity.Role, error) {
	userID := id.UserID
	if userID == "" {
		userID = id.Subject
	}
	k := roleKey{id.OrganizationID, userID, id.GrantID}
	role, ok, stamp := c.entries.Get(k)
	if ok {
		return role, nil
	}
	role, err := c.next(ctx, id)
	if err == nil {
		c.entries.Put(k, role, stamp)
	}
	return role, err
}
