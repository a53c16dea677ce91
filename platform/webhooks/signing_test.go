package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
)

func TestSignIsHexHMACOfRawBody(t *testing.T) {
	t.Parallel()
	body := []byte(`{"event":{"id":"1","slug":"email.processed"}}`)
	m := hmac.New(sha256.New, []byte("whsec_k"))
	m.Write(body)
	if got, want := Sign("whsec_k", body), "sha256="+hex.EncodeToString(m.Sum(nil)); got != want {
		t.Fatalf("Sign = %s, want %s", got, want)
	}
}

func TestVerify(t *testing.T) {
	t.Parallel()
	body := []byte(`{"a":1}`)
	sig := Sign("whsec_one", body)
	cases := []struct {
		name, secret, body, header string
		want                       bool
	}{
		{"exact", "whsec_one", `{"a":1}`, sig, true},
		{"surrounding space", "whsec_one", `{"a":1}`, " " + sig + " ", true},
		{"other secret", "whsec_two", `{"a":1}`, sig, false},
		{"body re-encoded", "whsec_one", `{"a": 1}`, sig, false},
		{"no scheme", "whsec_one", `{"a":1}`, strings.TrimPrefix(sig, "sha256="), false},
		{"other scheme", "whsec_one", `{"a":1}`, "sha1=" + strings.TrimPrefix(sig, "sha256="), false},
		{"not hex", "whsec_one", `{"a":1}`, "sha256=zz", false},
		{"truncated", "whsec_one", `{"a":1}`, sig[:len(sig)-2], false},
		{"empty", "whsec_one", `{"a":1}`, "", false},
	}
	for _, c := range cases {
		if got := Verify(c.secret, []byte(c.body), c.header); got != c.want {
			t.Errorf("%s: Verify = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestNewSecretIs32RandomBytes(t *testing.T) {
	t.Parallel()
	a, b := newSecret(), newSecret()
	if a == b {
		t.Fatal("two secrets are equal")
	}
	raw, ok := strings.CutPrefix(a, "whsec_")
	if !ok {
		t.Fatalf("secret %q lacks the whsec_ prefix", a)
	}
	if k, err := base64.RawURLEncoding.DecodeString(raw); err != nil || len(k) != 32 {
		t.Fatalf("secret %q: %d bytes, %v", a, len(k), err)
	}
}
