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

// Verify reports whether header (an X-Kobana-Signature value) is the
// signature of body under secret, in constant time, for receivers written
// in Go and for tests.
func Verify(secret string, body []byte, header string) bool {
	got, ok := strings.CutPrefix(strings.TrimSpace(header), "sha256=")
	if !ok {
		return false
	}
	sig, err := hex.DecodeString(got)
	if err != nil {
		return false
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return hmac.Equal(sig, m.Sum(nil))
}
