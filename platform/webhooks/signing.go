package webhooks

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
)

// SignatureHeader carries a delivery's signature.
const SignatureHeader = "X-Kobana-Signature"

// secretPrefix starts every signing secret, so a leaked one is recognizable.
const secretPrefix = "whsec_"

// newSecret is a new signing secret: 32 random bytes, base64url.
func newSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return secretPrefix + base64.RawURLEncoding.EncodeToString(b)
}

// Sign is the X-Kobana-Signature value of a delivery: "sha256=" and the
// hex HMAC-SHA256 of the exact raw body bytes under the webhook's signing
// secret (the whole "whsec_…" string is the key). Receivers compute the
// same over the body as received, before parsing it.
func Sign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// Verify reports whether header (an X-Kobana-Signature value) holds a
// signature of body under secret, in constant time, for receivers written
// in Go and for tests. During a rotation's grace period the header holds
// two signatures separated by a space (the new secret's, then the old
// one's), as Standard Webhooks does: a receiver with either secret
// verifies.
func Verify(secret string, body []byte, header string) bool {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	want := m.Sum(nil)
	ok := false
	for _, part := range strings.Fields(header) {
		got, found := strings.CutPrefix(part, "sha256=")
		if !found {
			continue
		}
		sig, err := hex.DecodeString(got)
		if err == nil && hmac.Equal(sig, want) {
			ok = true
		}
	}
	return ok
}

// signWith is the header value signed by secret and, during a grace
// period, by previous too.
func signWith(secret, previous string, body []byte) string {
	h := Sign(secret, body)
	if previous != "" {
		h += " " + Sign(previous, body)
	}
	return h
}
