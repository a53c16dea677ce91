package sqlstore_test

import (
	"context"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/oauth/server/sqlstore"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestChangesReachEveryReplicaWithinASecond: two replicas — two database
// handles on one database, each with its resource server as products
// build it (token verification cached, role and grant read cached by a
// RoleCache of its own)
// — serve one token under load. A demotion made through replica A takes
// effect on A at once and on B within one second, then a removal, then a
// revoked grant on a second token (docs/decisions.md, "Performance of the
// signed-in path").
func TestChangesReachEveryReplicaWithinASecond(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			url := storetest.URL(t, engine)
			open := func() *store.DB {
				db, err := store.Open(ctx, url)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = db.Close() })
				return db
			}
			dbA, dbB := open(), open()
			if _, err := dbA.Migrate(ctx, sqlstore.Migrations); err != nil {
				t.Fatal(err)
			}
			acc := accounts.New(dbA, accounts.Options{Password: accounts.PasswordParams{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}})
			org, _ := acc.CreateOrganization(ctx, "Acme")
			u, err := acc.CreateUser(ctx, accounts.NewUser{Email: "ana@example.com", Password: "long enough", OrganizationID: org.ID, Role: identity.RoleAdmin})
			if err != nil {
				t.Fatal(err)
			}
			const resource = "http://127.0.0.1:1/mcp"
			keys, _ := oauth.NewKeySet(&oauth.MemoryKeyStore{}, oauth.KeySetOptions{})
			issuer := &oauth.Issuer{URL: "http://127.0.0.1:1", Keys: keys}
			replica := func(db *store.DB) *oauth.ResourceServer {
				roles := sqlstore.NewRoleCache(ctx, db, sqlstore.RoleCacheOptions{})
				t.Cleanup(roles.Close)
				return &oauth.ResourceServer{Resource: resource, Roles: roles.Lookup,
					Verifier: oauth.NewCachedVerifier(&oauth.JWTVerifier{Issuer: issuer.URL, Audience: resource, Keys: oauth.KeySetSource{Keys: keys}})}
			}
			a, b := replica(dbA), replica(dbB)
			token := func(grant string) string {
				s, _, err := issuer.Issue(oauth.Grant{Subject: u.ID, UserID: u.ID, OrganizationID: org.ID, Audience: resource, Scopes: []string{"x"}, TTL: time.Hour, GrantID: grant})
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
			role := func(rs *oauth.ResourceServer, tok string) identity.Role {
				r := httptest.NewRequest("POST", "/mcp", nil)
				r.Header.Set("Authorization", "Bearer "+tok)
				id, err := rs.Identify(r)
				if err != nil {
					return "refused"
				}
				return id.Role
			}
			t1, t2 := token("g1"), token("g2")
			if role(a, t1) != identity.RoleAdmin || role(b, t1) != identity.RoleAdmin || role(b, t2) != identity.RoleAdmin {
				t.Fatal("the admin is not an admin on both replicas")
			}
			// Load on replica B for the whole test.
			stop := make(chan struct{})
			var served atomic.Int64
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() {
					for {
						select {
						case <-stop:
							return
						default:
							role(b, t1)
							served.Add(1)
						}
					}
				})
			}
			defer func() { close(stop); wg.Wait() }()
			within := func(what string, tok string, want identity.Role) {
				t.Helper()
				if got := role(a, tok); got != want {
					t.Fatalf("%s: replica A, which made the change, says %q, want %q", what, got, want)
				}
				start := time.Now()
				for role(b, tok) != want {
					if time.Since(start) > time.Second {
						t.Fatalf("%s: replica B still says %q after 1 s", what, role(b, tok))
					}
					time.Sleep(10 * time.Millisecond)
				}
				t.Logf("%s: replica B after %v (%d requests served on B so far)", what, time.Since(start).Round(time.Millisecond), served.Load())
			}
			if err := acc.SetRole(ctx, org.ID, u.ID, identity.RoleViewer); err != nil {
				t.Fatal(err)
			}
			within("demotion", t1, identity.RoleViewer)
			if err := sqlstore.New(dbA).RevokeGrant(ctx, "g2", time.Now().UTC(), time.Now().UTC().Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
			within("revoked grant", t2, "refused")
			if role(b, t1) != identity.RoleViewer {
				t.Fatal("revoking g2 refused g1 too")
			}
			if err := acc.RemoveMember(ctx, org.ID, u.ID); err != nil {
				t.Fatal(err)
			}
			within("removal", t1, "refused")
		})
	}
}
