package sqlstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/oauth/server/sqlstore"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestRoleLookupAndRevokedGrants: the role comes from the membership, a
// revoked grant refuses only its own tokens, the mark joins the
// transaction it is written in, and it is purged once no token of the
// grant can still be accepted.
func TestRoleLookupAndRevokedGrants(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, sqlstore.Migrations, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := sqlstore.New(db)
		acc := accounts.New(db, accounts.Options{Password: accounts.PasswordParams{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}})
		org, _ := acc.CreateOrganization(ctx, "Acme")
		u, err := acc.CreateUser(ctx, accounts.NewUser{Email: "ana@example.com", Password: "long enough", OrganizationID: org.ID, Role: identity.RoleAdmin})
		if err != nil {
			t.Fatal(err)
		}
		other, _ := acc.CreateOrganization(ctx, "Other")
		roles := sqlstore.RoleLookup(db)
		id := func(grant string) *identity.Identity {
			return &identity.Identity{Subject: u.ID, UserID: u.ID, OrganizationID: org.ID, GrantID: grant}
		}
		expect := func(what string, in *identity.Identity, role identity.Role, want error) {
			t.Helper()
			got, err := roles(ctx, in)
			if !errors.Is(err, want) || (want == nil && got != role) {
				t.Fatalf("%s: role %q, error %v; want %q, %v", what, got, err, role, want)
			}
		}
		expect("developer token (no grant)", id(""), identity.RoleAdmin, nil)
		expect("live grant", id("g1"), identity.RoleAdmin, nil)
		expect("subject only (external issuer)", &identity.Identity{Subject: u.ID, OrganizationID: org.ID}, identity.RoleAdmin, nil)
		expect("another organization", &identity.Identity{Subject: u.ID, UserID: u.ID, OrganizationID: other.ID, GrantID: "g1"}, "", oauth.ErrNoMembership)
		expect("another organization, no grant", &identity.Identity{Subject: u.ID, UserID: u.ID, OrganizationID: other.ID}, "", oauth.ErrNoMembership)

		now := time.Now().UTC()
		if err := s.RevokeGrant(ctx, "g1", now, now.Add(20*time.Minute)); err != nil {
			t.Fatal(err)
		}
		// Twice is no error, and the first mark stays.
		if err := s.RevokeGrant(ctx, "g1", now.Add(time.Minute), now.Add(time.Hour)); err != nil {
			t.Fatalf("revoking a revoked grant: %v", err)
		}
		var expires time.Time
		if err := db.Get(ctx, &expires, "SELECT expires_at FROM oauth_revoked_grants WHERE grant_id = ?", "g1"); err != nil || expires.Sub(now.Add(20*time.Minute)).Abs() > time.Millisecond {
			t.Fatalf("mark of g1: %v %v", expires, err)
		}
		expect("revoked grant", id("g1"), "", oauth.ErrGrantRevoked)
		expect("another grant of the person", id("g2"), identity.RoleAdmin, nil)
		expect("developer token after a revocation", id(""), identity.RoleAdmin, nil)

		// In a transaction: nothing until it commits.
		tx, err := s.BeginTx(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.RevokeGrant(tx, "g2", now, now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := s.Rollback(tx); err != nil {
			t.Fatal(err)
		}
		expect("grant revoked in a rolled-back transaction", id("g2"), identity.RoleAdmin, nil)
		tx, _ = s.BeginTx(ctx)
		if err := s.RevokeGrant(tx, "g2", now, now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(tx); err != nil {
			t.Fatal(err)
		}
		expect("grant revoked in a committed transaction", id("g2"), "", oauth.ErrGrantRevoked)

		// Purging: g1's mark has expired by then, g2's has not.
		if err := s.PurgeExpired(ctx, now.Add(30*time.Minute)); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := db.Get(ctx, &n, "SELECT COUNT(*) FROM oauth_revoked_grants WHERE grant_id = ?", "g1"); err != nil || n != 0 {
			t.Fatalf("expired mark kept: %d %v", n, err)
		}
		expect("grant whose mark is still needed", id("g2"), "", oauth.ErrGrantRevoked)

		// Removing the person refuses every token, revoked or not.
		if _, err := db.Exec(ctx, "DELETE FROM memberships WHERE user_id = ?", u.ID); err != nil {
			t.Fatal(err)
		}
		expect("removed person, live grant", id("g3"), "", oauth.ErrNoMembership)
		expect("removed person, no grant", id(""), "", oauth.ErrNoMembership)
	})
}
