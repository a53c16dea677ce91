package sqlstore_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/oauth/server"
	"github.com/kobana/kobana-mcp/oauth/server/sqlstore"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

func TestRecords(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, sqlstore.Migrations, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := sqlstore.New(db)
		now := time.Now().UTC()
		rec := func(kind server.Kind, sig, req string, exp time.Time) *server.Record {
			return &server.Record{Kind: kind, Signature: sig, RequestID: req, ClientID: "c", Subject: "u", Active: true,
				ExpiresAt: exp, CreatedAt: now, Data: []byte(`{"id":"` + req + `"}`)}
		}
		for _, r := range []*server.Record{
			rec(server.KindRefresh, "r1", "g1", now.Add(time.Hour)),
			rec(server.KindRefresh, "r2", "g1", now.Add(time.Hour)),
			rec(server.KindRefresh, "r3", "g2", now.Add(time.Hour)),
			rec(server.KindAccess, "r1", "g1", now.Add(time.Hour)), // same signature, another kind
			rec(server.KindCode, "old", "g3", now.Add(-time.Minute)),
		} {
			if err := s.CreateRecord(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.GetRecord(ctx, server.KindRefresh, "r1")
		if err != nil || !got.Active || got.RequestID != "g1" || !bytes.Equal(got.Data, []byte(`{"id":"g1"}`)) || got.ExpiresAt.Sub(now.Add(time.Hour)).Abs() > time.Millisecond {
			t.Fatalf("get: %+v %v", got, err)
		}
		if _, err := s.GetRecord(ctx, server.KindCode, "r1"); !errors.Is(err, server.ErrNotFound) {
			t.Fatalf("missing record: %v", err)
		}
		// Deactivation wins once.
		if err := s.DeactivateRecord(ctx, server.KindRefresh, "r1"); err != nil {
			t.Fatal(err)
		}
		if err := s.DeactivateRecord(ctx, server.KindRefresh, "r1"); !errors.Is(err, server.ErrNotFound) {
			t.Fatalf("second deactivation: %v", err)
		}
		if got, _ := s.GetRecord(ctx, server.KindRefresh, "r1"); got.Active {
			t.Fatal("still active")
		}
		if got, _ := s.GetRecord(ctx, server.KindAccess, "r1"); !got.Active {
			t.Fatal("a record of another kind was deactivated")
		}
		// A grant's records, and no other grant's.
		if err := s.DeactivateGrant(ctx, server.KindRefresh, "g1"); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.GetRecord(ctx, server.KindRefresh, "r2"); got.Active {
			t.Fatal("grant not deactivated")
		}
		if got, _ := s.GetRecord(ctx, server.KindRefresh, "r3"); !got.Active {
			t.Fatal("another grant deactivated")
		}
		if err := s.DeleteRecord(ctx, server.KindRefresh, "r2"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GetRecord(ctx, server.KindRefresh, "r2"); !errors.Is(err, server.ErrNotFound) {
			t.Fatalf("deleted record: %v", err)
		}
		if err := s.DeleteRecord(ctx, server.KindRefresh, "r2"); err != nil {
			t.Fatalf("deleting twice: %v", err)
		}
		// Purge: expired records go, the rest stay.
		if err := s.PurgeExpired(ctx, now); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GetRecord(ctx, server.KindCode, "old"); !errors.Is(err, server.ErrNotFound) {
			t.Fatalf("expired record kept: %v", err)
		}
		if _, err := s.GetRecord(ctx, server.KindRefresh, "r3"); err != nil {
			t.Fatalf("live record purged: %v", err)
		}
	})
}

func TestTransactions(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, sqlstore.Migrations, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := sqlstore.New(db)
		mk := func(sig string) *server.Record {
			return &server.Record{Kind: server.KindAccess, Signature: sig, RequestID: "g", ClientID: "c", Subject: "u", Active: true,
				ExpiresAt: time.Now().Add(time.Hour), CreatedAt: time.Now(), Data: []byte("{}")}
		}
		tx, err := s.BeginTx(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.CreateRecord(tx, mk("rolled-back")); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GetRecord(tx, server.KindAccess, "rolled-back"); err != nil {
			t.Fatalf("own write inside the transaction: %v", err)
		}
		if err := s.Rollback(tx); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GetRecord(ctx, server.KindAccess, "rolled-back"); !errors.Is(err, server.ErrNotFound) {
			t.Fatalf("rolled-back write visible: %v", err)
		}
		tx, _ = s.BeginTx(ctx)
		if err := s.CreateRecord(tx, mk("committed")); err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(tx); err != nil {
			t.Fatal(err)
		}
		if err := s.Rollback(tx); err != nil {
			t.Fatalf("rollback after commit: %v", err)
		}
		if _, err := s.GetRecord(ctx, server.KindAccess, "committed"); err != nil {
			t.Fatalf("committed write: %v", err)
		}
	})
}

func TestClientsAndSessions(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, sqlstore.Migrations, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := sqlstore.New(db)
		c := &server.ClientRecord{ID: "kc_1", SecretHash: []byte{1, 2, 3}, Name: "App", RedirectURIs: []string{"https://a.example/cb", "http://127.0.0.1/cb"},
			GrantTypes: []string{"authorization_code"}, ResponseTypes: []string{"code"}, TokenEndpointAuthMethod: "client_secret_basic",
			Metadata: []byte(`{"client_id":"kc_1"}`), CreatedAt: time.Now()}
		if err := s.CreateClient(ctx, c); err != nil {
			t.Fatal(err)
		}
		pub := &server.ClientRecord{ID: "kc_2", Name: "", RedirectURIs: []string{"http://localhost/cb"}, GrantTypes: []string{"authorization_code"},
			ResponseTypes: []string{"code"}, TokenEndpointAuthMethod: "none", Metadata: []byte("{}"), CreatedAt: time.Now()}
		if err := s.CreateClient(ctx, pub); err != nil {
			t.Fatal(err)
		}
		got, err := s.GetClient(ctx, "kc_1")
		if err != nil || !bytes.Equal(got.SecretHash, c.SecretHash) || !slices.Equal(got.RedirectURIs, c.RedirectURIs) || got.TokenEndpointAuthMethod != "client_secret_basic" {
			t.Fatalf("client: %+v %v", got, err)
		}
		if got, err := s.GetClient(ctx, "kc_2"); err != nil || got.SecretHash != nil {
			t.Fatalf("public client: %+v %v", got, err)
		}
		if _, err := s.GetClient(ctx, "nope"); !errors.Is(err, server.ErrNotFound) {
			t.Fatalf("missing client: %v", err)
		}

		acc := accounts.New(db, accounts.Options{Password: accounts.PasswordParams{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}})
		org, _ := acc.CreateOrganization(ctx, "Acme")
		u, err := acc.CreateUser(ctx, accounts.NewUser{Email: "ana@example.com", Password: "long enough", OrganizationID: org.ID, Role: identity.RoleAdmin})
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now().UTC()
		anon := &server.BrowserSession{IDHash: "h1", Issuer: "http://x", CSRFSecret: []byte{9, 9}, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
		signed := &server.BrowserSession{IDHash: "h2", Issuer: "http://x", UserID: u.ID, Email: u.Email, CSRFSecret: []byte{7}, CreatedAt: now, AuthenticatedAt: now, ExpiresAt: now.Add(time.Hour)}
		expired := &server.BrowserSession{IDHash: "h3", Issuer: "http://x", CSRFSecret: []byte{1}, CreatedAt: now, ExpiresAt: now.Add(-time.Second)}
		for _, bs := range []*server.BrowserSession{anon, signed, expired} {
			if err := s.CreateSession(ctx, bs); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := s.GetSession(ctx, "h1"); err != nil || got.UserID != "" || !bytes.Equal(got.CSRFSecret, []byte{9, 9}) {
			t.Fatalf("anonymous session: %+v %v", got, err)
		}
		if got, err := s.GetSession(ctx, "h2"); err != nil || got.UserID != u.ID || got.AuthenticatedAt.IsZero() {
			t.Fatalf("signed-in session: %+v %v", got, err)
		}
		if _, err := s.GetSession(ctx, "h3"); !errors.Is(err, server.ErrNotFound) {
			t.Fatalf("expired session: %v", err)
		}
		if err := s.DeleteSession(ctx, "h1"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GetSession(ctx, "h1"); !errors.Is(err, server.ErrNotFound) {
			t.Fatalf("deleted session: %v", err)
		}

		// The accounts adapter.
		a := sqlstore.Accounts{Store: acc}
		if _, err := a.VerifyPassword(ctx, "ana@example.com", "wrong one"); !errors.Is(err, server.ErrBadCredentials) {
			t.Fatalf("wrong password: %v", err)
		}
		if _, err := a.VerifyPassword(ctx, "nobody@example.com", "wrong one"); !errors.Is(err, server.ErrBadCredentials) {
			t.Fatalf("unknown email: %v", err)
		}
		p, err := a.VerifyPassword(ctx, "ANA@example.com", "long enough")
		if err != nil || p.UserID != u.ID {
			t.Fatalf("sign-in: %+v %v", p, err)
		}
		ms, err := a.Memberships(ctx, u.ID)
		if err != nil || len(ms) != 1 || ms[0].OrganizationID != org.ID || ms[0].OrganizationName != "Acme" || ms[0].Role != identity.RoleAdmin {
			t.Fatalf("memberships: %+v %v", ms, err)
		}
		// Deleting the user ends their sessions.
		if _, err := db.Exec(ctx, "DELETE FROM users WHERE id = ?", u.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GetSession(ctx, "h2"); !errors.Is(err, server.ErrNotFound) {
			t.Fatalf("session of a deleted user: %v", err)
		}
	})
}
