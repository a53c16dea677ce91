package oauth

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

func TestDBKeyStoreSharesSealedKeys(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		secret := []byte(strings.Repeat("s", 32))
		ks1, err := NewDBKeyStore(db, secret)
		if err != nil {
			t.Fatal(err)
		}
		set1, err := NewKeySet(ks1, KeySetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		is := &Issuer{URL: testIssuer, Keys: set1}
		tok, _, err := is.Issue(Grant{Subject: "s", OrganizationID: "o", Audience: testResource, TTL: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		// Another replica, same database and secret: same keys.
		ks2, _ := NewDBKeyStore(db, secret)
		set2, err := NewKeySet(ks2, KeySetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		v := &JWTVerifier{Issuer: testIssuer, Audience: testResource, Keys: KeySetSource{set2}}
		if _, err := v.Verify(context.Background(), tok); err != nil {
			t.Fatalf("replica cannot verify: %v", err)
		}
		// The private key is not stored in clear.
		var sealed []string
		if err := db.Select(context.Background(), &sealed, `SELECT sealed_jwk FROM oauth_signing_keys`); err != nil || len(sealed) != 1 {
			t.Fatalf("%v %v", sealed, err)
		}
		raw, _ := base64.RawStdEncoding.DecodeString(sealed[0])
		if strings.Contains(string(raw), `"kty"`) || strings.Contains(sealed[0], `"kty"`) {
			t.Fatal("the private key is readable in the database")
		}
		// Another secret cannot open them.
		ks3, _ := NewDBKeyStore(db, []byte(strings.Repeat("x", 32)))
		if _, err := ks3.LoadKeys(); err == nil {
			t.Fatal("keys opened with the wrong secret")
		}
	})
}
