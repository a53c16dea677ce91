package webhooks

import (
	"context"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

func TestRotationGraceSignsWithBothSecrets(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		cfg := testConfig()
		cfg.RotationGrace = 24 * time.Hour
		cfg.SealingSecret = []byte("0123456789abcdef0123456789abcdef")
		s := New(db, nil, cfg)
		tn := newTenant(t, db)
		rcv := newReceiver(t)
		w, first := hook(t, s, tn, rcv.URL, "email.*")
		second, err := s.RotateSecret(ctx, tn.org, tn.ws, w.ID)
		if err != nil {
			t.Fatal(err)
		}
		third, err := s.RotateSecret(ctx, tn.org, tn.ws, w.ID)
		if err != nil {
			t.Fatal(err)
		}
		emit(t, s, tn, "email.received", "")
		d := onlyDelivery(t, s, tn, w.ID)
		deliverAll(t, s, tn, d.ID)
		r := rcv.requests()[0]
		h := r.Header.Get(SignatureHeader)
		if !Verify(third, r.Body, h) || !Verify(second, r.Body, h) {
			t.Fatalf("during the grace both the new and the previous secret must verify: %s", h)
		}
		// Only the secret just rotated out is kept: two rotations drop the first.
		if Verify(first, r.Body, h) {
			t.Fatal("a secret two rotations old still verifies")
		}
		if got := signWith(third, second, r.Body); got != h {
			t.Fatalf("header %q, want the new signature then the old one %q", h, got)
		}
		// A tampered body verifies with neither.
		if Verify(third, append(r.Body, ' '), h) || Verify(second, append(r.Body, ' '), h) {
			t.Fatal("a changed body verified")
		}
	})
}

func TestRotationGraceEnds(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	stored := joinSecrets("whsec_new", "whsec_old", now.Add(time.Hour))
	if cur, prev := parseSecrets(stored, now.Add(59*time.Minute)); cur != "whsec_new" || prev != "whsec_old" {
		t.Fatalf("inside the grace: %q %q", cur, prev)
	}
	if cur, prev := parseSecrets(stored, now.Add(time.Hour)); cur != "whsec_new" || prev != "" {
		t.Fatalf("at the grace's end: %q %q", cur, prev)
	}
	if cur, prev := parseSecrets("whsec_only", now); cur != "whsec_only" || prev != "" {
		t.Fatalf("a plain secret: %q %q", cur, prev)
	}
	body := []byte(`{"a":1}`)
	if !Verify("whsec_old", body, signWith("whsec_new", "whsec_old", body)) || Verify("whsec_x", body, signWith("whsec_new", "whsec_old", body)) {
		t.Fatal("Verify over two signatures")
	}
}

func TestRotationWithoutGraceDropsTheOldSecret(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := New(db, nil, testConfig())
		tn := newTenant(t, db)
		rcv := newReceiver(t)
		w, old := hook(t, s, tn, rcv.URL, "email.*")
		if _, err := s.RotateSecret(ctx, tn.org, tn.ws, w.ID); err != nil {
			t.Fatal(err)
		}
		emit(t, s, tn, "email.received", "")
		deliverAll(t, s, tn, onlyDelivery(t, s, tn, w.ID).ID)
		r := rcv.requests()[0]
		if Verify(old, r.Body, r.Header.Get(SignatureHeader)) {
			t.Fatal("without a grace the old secret still verifies")
		}
	})
}
