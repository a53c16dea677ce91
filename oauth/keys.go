package oauth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// SigningAlgorithm is the JWS algorithm of our access tokens: ECDSA P-256,
// asymmetric so resource servers verify with the public JWKS alone.
const SigningAlgorithm = jose.ES256

// Key is one signing key of the built-in authorization server.
type Key struct {
	ID      string    `json:"kid"`
	Created time.Time `json:"created"`
	// Private is the JWK of the private key.
	Private jose.JSONWebKey `json:"jwk"`
}

// KeyStore persists the key set so restarts and replicas agree on it.
type KeyStore interface {
	LoadKeys() ([]Key, error)
	SaveKeys([]Key) error
}

// KeySet signs with its newest key and verifies with every key it keeps.
// Keys rotate: when the newest is older than the rotation period a new one
// is made, and keys older than the period plus the longest token lifetime
// are dropped, so no valid token loses its key.
type KeySet struct {
	store    KeyStore
	rotation time.Duration
	keep     time.Duration
	now      func() time.Time

	mu   sync.RWMutex
	keys []Key // newest first
}

// KeySetOptions tunes rotation; zero values take the defaults.
type KeySetOptions struct {
	// Rotation is how long a key signs (default 30 days).
	Rotation time.Duration
	// MaxTokenLifetime is the longest lifetime of a token signed by a key
	// (default 1 hour); a retired key verifies for that long.
	MaxTokenLifetime time.Duration
	Now              func() time.Time
}

// NewKeySet loads the keys from store, making the first one if there are
// none.
func NewKeySet(store KeyStore, opts KeySetOptions) (*KeySet, error) {
	ks := &KeySet{store: store, rotation: opts.Rotation, keep: opts.MaxTokenLifetime, now: opts.Now}
	if ks.rotation <= 0 {
		ks.rotation = 30 * 24 * time.Hour
	}
	if ks.keep <= 0 {
		ks.keep = time.Hour
	}
	if ks.now == nil {
		ks.now = time.Now
	}
	keys, err := store.LoadKeys()
	if err != nil {
		return nil, err
	}
	ks.keys = keys
	ks.sort()
	if err := ks.Rotate(); err != nil {
		return nil, err
	}
	return ks, nil
}

func (ks *KeySet) sort() {
	sort.Slice(ks.keys, func(i, j int) bool { return ks.keys[i].Created.After(ks.keys[j].Created) })
}

// Rotate makes a new signing key when the current one is due and drops
// keys nobody can still need. It is cheap to call often.
func (ks *KeySet) Rotate() error {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	now := ks.now()
	changed := false
	if len(ks.keys) == 0 || now.Sub(ks.keys[0].Created) >= ks.rotation {
		k, err := newKey(now)
		if err != nil {
			return err
		}
		ks.keys = append([]Key{k}, ks.keys...)
		changed = true
	}
	kept := ks.keys[:1]
	for _, k := range ks.keys[1:] {
		if now.Sub(k.Created) < ks.rotation+ks.keep {
			kept = append(kept, k)
		} else {
			changed = true
		}
	}
	ks.keys = kept
	if changed {
		return ks.store.SaveKeys(ks.keys)
	}
	return nil
}

func newKey(now time.Time) (Key, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Key{}, err
	}
	id := make([]byte, 12)
	if _, err := rand.Read(id); err != nil {
		return Key{}, err
	}
	kid := fmt.Sprintf("%x", id)
	return Key{ID: kid, Created: now.UTC(), Private: jose.JSONWebKey{Key: priv, KeyID: kid, Algorithm: string(SigningAlgorithm), Use: "sig"}}, nil
}

// Signer returns a JWS signer with the current key.
func (ks *KeySet) Signer() (jose.Signer, error) {
	ks.mu.RLock()
	k := ks.keys[0]
	ks.mu.RUnlock()
	opts := (&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", k.ID)
	return jose.NewSigner(jose.SigningKey{Algorithm: SigningAlgorithm, Key: k.Private.Key}, opts)
}

// JWKS is the public key set, as published at the jwks_uri.
func (ks *KeySet) JWKS() jose.JSONWebKeySet {
	ks.mu.RLock()
	defer ks.mu.RUnlock()
	set := jose.JSONWebKeySet{}
	for _, k := range ks.keys {
		set.Keys = append(set.Keys, k.Private.Public())
	}
	return set
}

// FileKeyStore keeps the key set in a file readable only by its owner: the
// embedded default for one process. Replicas share a database store.
type FileKeyStore struct{ Path string }

// LoadKeys reads the key set; a missing file is an empty set.
func (f FileKeyStore) LoadKeys() ([]Key, error) {
	b, err := os.ReadFile(f.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var keys []Key
	if err := json.Unmarshal(b, &keys); err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path, err)
	}
	return keys, nil
}

// SaveKeys writes the key set atomically.
func (f FileKeyStore) SaveKeys(keys []Key) error {
	b, err := json.MarshalIndent(keys, "", "  ")
	if err != nil {
		return err
	}
	tmp := f.Path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, f.Path)
}

// MemoryKeyStore keeps keys in memory, for tests.
type MemoryKeyStore struct {
	mu   sync.Mutex
	keys []Key
}

func (m *MemoryKeyStore) LoadKeys() ([]Key, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Key(nil), m.keys...), nil
}

func (m *MemoryKeyStore) SaveKeys(keys []Key) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.keys = append([]Key(nil), keys...)
	return nil
}
