package sqlstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/oauth/server/sqlstore"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

type cacheFixture struct {
	db       *store.DB
	acc      *accounts.Store
	org      accounts.Organization
	user     accounts.User
	id       *identity.Identity
	withheld *identity.Identity // same person, a grant of its own
}

func newCacheFixture(t *testing.T, db *store.DB) *cacheFixture {
	ctx := context.Background()
	acc := accounts.New(db, accounts.Options{Password: accounts.PasswordParams{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}})
	org, err := acc.CreateOrganization(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	u, err := acc.CreateUser(ctx, accounts.NewUser{Email: "ana@example.com", Password: "long enough", OrganizationID: org.ID, Role: identity.RoleAdmin})
	if err != nil {
		t.Fatal(err)
	}
	id := &identity.Identity{Subject: u.ID, UserID: u.ID, OrganizationID: org.ID, GrantID: "g1"}
	other := *id
	other.GrantID = "g2"
	return &cacheFixture{db: db, acc: acc, org: org, user: u, id: id, withheld: &other}
}

func lookup(c *sqlstore.RoleCache, id *identity.Identity) identity.Role {
	r, err := c.Lookup(context.Background(), id)
	if err != nil {
		return "refused"
	}
	return r
}

// frozen is a clock that never moves, so no entry expires by its TTL and
// only invalidation can drop it.
func frozen() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }

// TestRoleCacheSameReplicaAtOnce: the read is cached (a change no one
// announces is not seen), and a demotion, a revoked grant and a removal
// made through this process are seen by the next lookup, with no clock
// moving.
func TestRoleCacheSameReplicaAtOnce(t *testing.T) {
	// Not parallel: it asserts that an entry stays cached, and any identity
	// change made by another test of this binary moves the process-wide
	// accounts.Generation (or, on PostgreSQL, sends a notice every schema
	// of the database hears), which rightly drops it — seen once in CI.
	storetest.RunWith(t, sqlstore.Migrations, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newCacheFixture(t, db)
		c := sqlstore.NewRoleCache(ctx, db, sqlstore.RoleCacheOptions{Now: frozen})
		t.Cleanup(c.Close)
		waitListening(t, c)
		if lookup(c, f.id) != identity.RoleAdmin || lookup(c, f.withheld) != identity.RoleAdmin {
			t.Fatal("not an admin")
		}
		// Cached: a change by hand, announced to no one, is not seen.
		if _, err := db.Exec(ctx, "UPDATE memberships SET role = ? WHERE user_id = ?", string(identity.RoleMember), f.user.ID); err != nil {
			t.Fatal(err)
		}
		if got := lookup(c, f.id); got != identity.RoleAdmin || c.Len() != 2 {
			t.Fatalf("the read is not cached: %q, %d entries", got, c.Len())
		}
		if err := f.acc.SetRole(ctx, f.org.ID, f.user.ID, identity.RoleViewer); err != nil {
			t.Fatal(err)
		}
		if got := lookup(c, f.id); got != identity.RoleViewer {
			t.Fatalf("after the demotion: %q", got)
		}
		if err := sqlstore.New(db).RevokeGrant(ctx, "g2", time.Now().UTC(), time.Now().UTC().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if got := lookup(c, f.withheld); got != "refused" {
			t.Fatalf("after revoking the grant: %q", got)
		}
		if err := f.acc.RemoveMember(ctx, f.org.ID, f.user.ID); err != nil {
			t.Fatal(err)
		}
		if got := lookup(c, f.id); got != "refused" {
			t.Fatalf("after the removal: %q", got)
		}
	})
}

// TestRoleCacheTTL: without any notice, an entry is trusted for the TTL
// at most (what SQL by hand, or another process on one SQLite file, relies
// on).
func TestRoleCacheTTL(t *testing.T) {
	// Not parallel: it asserts that an entry stays cached, and any identity
	// change made by another test of this binary moves the process-wide
	// accounts.Generation (or, on PostgreSQL, sends a notice every schema
	// of the database hears), which rightly drops it — seen once in CI.
	storetest.RunWith(t, sqlstore.Migrations, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newCacheFixture(t, db)
		now := frozen()
		c := sqlstore.NewRoleCache(ctx, db, sqlstore.RoleCacheOptions{Now: func() time.Time { return now }, TTL: time.Hour})
		t.Cleanup(c.Close)
		waitListening(t, c)
		lookup(c, f.id)
		if _, err := db.Exec(ctx, "UPDATE memberships SET role = ? WHERE user_id = ?", string(identity.RoleViewer), f.user.ID); err != nil {
			t.Fatal(err)
		}
		now = now.Add(sqlstore.DefaultRoleTTL - time.Millisecond)
		if got := lookup(c, f.id); got != identity.RoleAdmin {
			t.Fatalf("within the TTL: %q", got)
		}
		now = now.Add(time.Millisecond) // a TTL above the default is capped
		if got := lookup(c, f.id); got != identity.RoleViewer {
			t.Fatalf("after the TTL: %q", got)
		}
	})
}

// TestRoleCacheNotice: on PostgreSQL a change committed elsewhere with its
// notice — as another replica's accounts.NoteChange sends it, without this
// process's generation moving — drops the entries within the notice's
// delivery, with no clock moving.
func TestRoleCacheNotice(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.Postgres, sqlstore.Migrations)
	ctx := context.Background()
	f := newCacheFixture(t, db)
	c := sqlstore.NewRoleCache(ctx, db, sqlstore.RoleCacheOptions{Now: frozen})
	t.Cleanup(c.Close)
	waitListening(t, c)
	lookup(c, f.id)
	err := db.WithTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE memberships SET role = ? WHERE user_id = ?", string(identity.RoleViewer), f.user.ID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "SELECT pg_notify("+accounts.ChangeChannel+", '')")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for lookup(c, f.id) != identity.RoleViewer {
		if time.Since(start) > time.Second {
			t.Fatal("the notice did not drop the entry within 1 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Logf("seen after %v", time.Since(start))
}

// TestRoleCacheLostListener: when the LISTEN connection is lost, entries
// read before are not trusted again (notices may have been missed) and
// nothing is cached until it is back.
func TestRoleCacheLostListener(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.Postgres, sqlstore.Migrations)
	ctx := context.Background()
	f := newCacheFixture(t, db)
	c := sqlstore.NewRoleCache(ctx, db, sqlstore.RoleCacheOptions{Now: frozen})
	t.Cleanup(c.Close)
	waitListening(t, c)
	lookup(c, f.id)
	if c.Len() != 1 {
		t.Fatal("not cached")
	}
	// A change with no notice, then the listener's connection dies.
	if _, err := db.Exec(ctx, "UPDATE memberships SET role = ? WHERE user_id = ?", string(identity.RoleViewer), f.user.ID); err != nil {
		t.Fatal(err)
	}
	var killed int
	if err := db.Get(ctx, &killed, `SELECT COUNT(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE application_name = ? AND pid <> pg_backend_pid()) k`, sqlstore.ListenerName); err != nil || killed == 0 {
		t.Fatalf("terminating the listener: %v (%d)", err, killed)
	}
	start := time.Now()
	for lookup(c, f.id) != identity.RoleViewer {
		if time.Since(start) > time.Second {
			t.Fatal("the entry read before the listener was lost is still trusted")
		}
		time.Sleep(5 * time.Millisecond)
	}
	// Once it is back, reads are cached again.
	waitListening(t, c)
	lookup(c, f.id)
	if c.Len() != 1 {
		t.Fatal("the cache did not resume once the listener was back")
	}
}

func waitListening(t *testing.T, c *sqlstore.RoleCache) {
	t.Helper()
	start := time.Now()
	for !c.Listening() {
		if time.Since(start) > 5*time.Second {
			t.Fatal("the listener did not connect")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

var _ oauth.RoleLookup = (*sqlstore.RoleCache)(nil).Lookup
