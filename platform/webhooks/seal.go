package webhooks

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
)

// sealedPrefix marks a stored value sealed by sealer; any other value is
// plain text.
const sealedPrefix = "sealed:v1:"

// newSealer derives the AES-256-GCM key that seals the webhooks'
// credentials and signing secrets from the deployment's secret.
func newSealer(secret []byte) cipher.AEAD {
	key, err := hkdf.Key(sha256.New, secret, nil, "kobana-mcp webhook secrets v1", 32)
	if err != nil {
		panic(err) // only for lengths hkdf cannot produce; 32 it always can
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		panic(err) // the key is 32 bytes
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return aead
}

// seal returns the value to store for plain: sealed, bound to the
// webhook and column (context) so a sealed value cannot be moved to
// another row or column, or plain text when no sealing secret is set.
func (s *Service) seal(plain, context string) string {
	if s.aead == nil || plain == "" {
		return plain
	}
	nonce := make([]byte, s.aead.NonceSize())
	_, _ = rand.Read(nonce)
	out := s.aead.Seal(nonce, nonce, []byte(plain), []byte(context))
	return sealedPrefix + base64.RawURLEncoding.EncodeToString(out)
}

// unseal reverses seal; a value stored in plain text comes back as is.
func (s *Service) unseal(stored, context string) (string, error) {
	b64, sealed := strings.CutPrefix(stored, sealedPrefix)
	if !sealed {
		return stored, nil
	}
	if s.aead == nil {
		return "", errors.New("webhooks: a stored secret is sealed but no sealing secret is configured")
	}
	raw, err := base64.RawURLEncoding.DecodeString(b64)
	if err != nil || len(raw) < s.aead.NonceSize() {
		return "", errors.New("webhooks: a stored secret is corrupt")
	}
	n := s.aead.NonceSize()
	plain, err := s.aead.Open(nil, raw[:n], raw[n:], []byte(context))
	if err != nil {
		return "", errors.New("webhooks: a stored secret does not open with the configured sealing secret")
	}
	return string(plain), nil
}
