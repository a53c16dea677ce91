package webhooks

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

var testSealingSecret = bytes.Repeat([]byte("k"), 32)

func TestSealRoundTripAndBinding(t *testing.T) {
	t.Parallel()
	s := &Service{aead: newSealer(testSealingSecret)}
	sealed := s.seal("p4ss", "credentials:1")
	if !strings.HasPrefix(sealed, sealedPrefix) || strings.Contains(sealed, "p4ss") {
		t.Fatalf("sealed = %q", sealed)
	}
	if got, err := s.unseal(sealed, "credentials:1"); err != nil || got != "p4ss" {
		t.Fatalf("unseal = %q, %v", got, err)
	}
	if _, err := s.unseal(sealed, "credentials:2"); err == nil {
		t.Fatal("a value sealed for one row opened for another")
	}
	other := &Service{aead: newSealer(bytes.Repeat([]byte("x"), 32))}
	if _, err := other.unseal(sealed, "credentials:1"); err == nil {
		t.Fatal("opened with another sealing secret")
	}
	if _, err := (&Service{}).unseal(sealed, "credentials:1"); err == nil {
		t.Fatal("opened without a sealing secret")
	}
	if got, err := s.unseal("whsec_plain", "signing_secret:1"); err != nil || got != "whsec_plain" {
		t.Fatalf("plain value: %q, %v", got, err)
	}
}

func TestSealedAtRest(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		cfg := testConfig()
		cfg.SealingSecret = testSealingSecret
		s := New(db, nil, cfg)
		tn := newTenant(t, db)
		w, secret, err := s.Create(ctx, NewWebhook{OrganizationID: tn.org, WorkspaceID: tn.ws, URL: "https://example.com/h",
			Auth: AuthBasic, Credentials: Credentials{Username: "u", Password: "hunter2"}, SubscribedEvents: []string{"*"}})
		if err != nil {
			t.Fatal(err)
		}
		var creds, stored string
		if err := db.Get(ctx, &creds, `SELECT credentials FROM webhooks WHERE id = ?`, w.ID); err != nil {
			t.Fatal(err)
		}
		if err := db.Get(ctx, &stored, `SELECT signing_secret FROM webhooks WHERE id = ?`, w.ID); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(creds, "hunter2") || !strings.HasPrefix(creds, sealedPrefix) {
			t.Errorf("credentials stored as %q", creds)
		}
		if strings.Contains(stored, secret) || !strings.HasPrefix(stored, sealedPrefix) {
			t.Errorf("signing secret stored as %q", stored)
		}
		r, err := s.load(ctx, db, tn.org, tn.ws, w.ID)
		if err != nil {
			t.Fatal(err)
		}
		if c, err := s.credentials(&r); err != nil || c.Password != "hunter2" || c.Username != "u" {
			t.Errorf("credentials read back: %+v, %v", c, err)
		}
	})
}
