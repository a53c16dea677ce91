package oauth

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
)

// DBKeyStore keeps the signing keys in the database, so every replica signs
// and verifies with the same set. Private keys are sealed with AES-256-GCM
// under a key derived (HKDF-SHA256) from the deployment's secret: a
// database dump alone does not let anyone mint tokens.
type DBKeyStore struct {
	DB   store.Querier
	aead cipher.AEAD
}

// NewDBKeyStore returns a key store sealing keys with a key derived from
// secret (at least 32 bytes).
func NewDBKeyStore(db store.Querier, secret []byte) (*DBKeyStore, error) {
	if len(secret) < 32 {
		return nil, errors.New("oauth: the key-sealing secret must have at least 32 bytes")
	}
	key, err := hkdf.Key(sha256.New, secret, nil, "kobana-mcp oauth signing keys v1", 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &DBKeyStore{DB: db, aead: aead}, nil
}

type keyRow struct {
	ID        string    `db:"id"`
	CreatedAt time.Time `db:"created_at"`
	SealedJWK string    `db:"sealed_jwk"`
}

// LoadKeys reads and opens every stored key.
func (s *DBKeyStore) LoadKeys() ([]Key, error) {
	var rows []keyRow
	if err := s.DB.Select(context.Background(), &rows, `SELECT id, created_at, sealed_jwk FROM oauth_signing_keys ORDER BY created_at DESC`); err != nil {
		return nil, err
	}
	keys := make([]Key, 0, len(rows))
	for _, r := range rows {
		raw, err := base64.RawStdEncoding.DecodeString(r.SealedJWK)
		if err != nil || len(raw) < s.aead.NonceSize() {
			return nil, fmt.Errorf("oauth: signing key %s is corrupt", r.ID)
		}
		plain, err := s.aead.Open(nil, raw[:s.aead.NonceSize()], raw[s.aead.NonceSize():], []byte(r.ID))
		if err != nil {
			return nil, fmt.Errorf("oauth: signing key %s does not open with this secret", r.ID)
		}
		var k Key
		if err := json.Unmarshal(plain, &k); err != nil {
			return nil, fmt.Errorf("oauth: signing key %s: %w", r.ID, err)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// SaveKeys makes the stored set equal to keys, in one transaction. Two
// replicas rotating at once each insert their own key; both stay valid.
func (s *DBKeyStore) SaveKeys(keys []Key) error {
	ctx := context.Background()
	return s.DB.WithTx(ctx, func(tx *store.Tx) error {
		var existing []string
		if err := tx.Select(ctx, &existing, `SELECT id FROM oauth_signing_keys`); err != nil {
			return err
		}
		want := map[string]Key{}
		for _, k := range keys {
			want[k.ID] = k
		}
		for _, id := range existing {
			if _, ok := want[id]; !ok {
				if _, err := tx.Exec(ctx, `DELETE FROM oauth_signing_keys WHERE id = ?`, id); err != nil {
					return err
				}
			}
			delete(want, id)
		}
		for _, k := range want {
			plain, err := json.Marshal(k)
			if err != nil {
				return err
			}
			nonce := make([]byte, s.aead.NonceSize())
			if _, err := rand.Read(nonce); err != nil {
				return err
			}
			sealed := base64.RawStdEncoding.EncodeToString(s.aead.Seal(nonce, nonce, plain, []byte(k.ID)))
			if _, err := tx.Exec(ctx, `INSERT INTO oauth_signing_keys (id, created_at, sealed_jwk) VALUES (?, ?, ?)`, k.ID, k.Created.UTC(), sealed); err != nil {
				return err
			}
		}
		return nil
	})
}
