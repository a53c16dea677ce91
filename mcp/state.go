package mcp

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// StateSealer seals the requestState of input_required results with
// AES-256-GCM. The client holds the state; the server keeps nothing, so the
// state must be unreadable and unforgeable, and bound to the exact request
// it continues.
//
// Keys rotate by themselves: each sealing key is derived (HKDF-SHA256) from
// a shared secret and the current epoch, so every replica configured with
// the same secrets seals and opens the same states without talking to the
// others. A state opens under the current or the previous epoch's key. To
// retire a secret, put the new one first and keep the old one until its
// states have expired.
type StateSealer struct {
	secrets []stateSecret
	period  time.Duration
	ttl     time.Duration
	now     func() time.Time

	mu    sync.Mutex
	aeads map[aeadKey]cipher.AEAD
}

type stateSecret struct {
	id     uint32
	secret []byte
}

type aeadKey struct {
	id    uint32
	epoch int64
}

// StateOptions tunes a StateSealer. Zero values take the defaults.
type StateOptions struct {
	// TTL is how long a state stays valid (default 5 minutes).
	TTL time.Duration
	// RotationPeriod is how often the derived key changes (default 24 h;
	// at least twice the TTL).
	RotationPeriod time.Duration
	// Now replaces the clock, for tests.
	Now func() time.Time
}

// NewStateSealer builds a sealer from one or more shared secrets of at least
// 32 bytes. The first seals; all open.
func NewStateSealer(secrets [][]byte, opts StateOptions) (*StateSealer, error) {
	if len(secrets) == 0 {
		return nil, errors.New("mcp: at least one state secret is required")
	}
	s := &StateSealer{ttl: opts.TTL, period: opts.RotationPeriod, now: opts.Now, aeads: map[aeadKey]cipher.AEAD{}}
	if s.ttl <= 0 {
		s.ttl = 5 * time.Minute
	}
	if s.period <= 0 {
		s.period = 24 * time.Hour
	}
	if s.period < 2*s.ttl {
		s.period = 2 * s.ttl
	}
	if s.now == nil {
		s.now = time.Now
	}
	for _, secret := range secrets {
		if len(secret) < 32 {
			return nil, errors.New("mcp: a state secret must have at least 32 bytes")
		}
		sum := sha256.Sum256(secret)
		s.secrets = append(s.secrets, stateSecret{id: binary.BigEndian.Uint32(sum[:4]), secret: append([]byte(nil), secret...)})
	}
	return s, nil
}

// NewRandomStateSealer seals with a secret made up now: fine for one
// process and for tests, useless across replicas.
func NewRandomStateSealer() *StateSealer {
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	s, _ := NewStateSealer([][]byte{secret}, StateOptions{})
	return s
}

// State is an opened requestState.
type State struct {
	// Nonce is unique to this state. A product that must run something at
	// most once consumes it in its database in the same transaction as the
	// operation, so a replayed state runs nothing.
	Nonce string
	// Expires is when the state stops opening.
	Expires time.Time
	// Data is what the handler sealed.
	Data []byte
	// asked maps each input request key to its method.
	asked map[string]string
}

// binding is what a state is bound to: who asked, for what, with which
// arguments.
type binding struct {
	principal string
	method    string
	name      string
	argsHash  string
}

type statePayload struct {
	Principal string            `json:"p"`
	Method    string            `json:"m"`
	Name      string            `json:"n"`
	ArgsHash  string            `json:"h"`
	Expires   int64             `json:"x"`
	Nonce     string            `json:"u"`
	Asked     map[string]string `json:"k,omitempty"`
	Data      []byte            `json:"d,omitempty"`
}

const stateFormat = 1

// seal returns the requestState for an input_required result.
func (s *StateSealer) seal(b binding, asked map[string]string, data []byte, ttl time.Duration) (string, error) {
	// A state may outlive the default TTL (an approval the person grants
	// later), but never half a rotation period, so its key still opens it.
	if ttl <= 0 {
		ttl = s.ttl
	}
	ttl = min(ttl, s.period/2)
	nonce := make([]byte, 16)
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	now := s.now()
	p := statePayload{
		Principal: b.principal, Method: b.method, Name: b.name, ArgsHash: b.argsHash,
		Expires: now.Add(ttl).Unix(), Nonce: base64.RawURLEncoding.EncodeToString(nonce),
		Asked: asked, Data: data,
	}
	plain, err := json.Marshal(p, json.Deterministic(true))
	if err != nil {
		return "", err
	}
	epoch := now.Unix() / int64(s.period/time.Second)
	sec := s.secrets[0]
	aead, err := s.aead(sec, epoch)
	if err != nil {
		return "", err
	}
	header := make([]byte, 1+4+8, 1+4+8+aead.NonceSize()+len(plain)+aead.Overhead())
	header[0] = stateFormat
	binary.BigEndian.PutUint32(header[1:5], sec.id)
	binary.BigEndian.PutUint64(header[5:13], uint64(epoch))
	gcmNonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(gcmNonce); err != nil {
		return "", err
	}
	out := append(header, gcmNonce...)
	out = aead.Seal(out, gcmNonce, plain, header)
	return base64.RawURLEncoding.EncodeToString(out), nil
}

// open checks a requestState against the request that carries it.
func (s *StateSealer) open(token string, b binding) (*State, error) {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(raw) < 13 || raw[0] != stateFormat {
		return nil, fmt.Errorf("%w: malformed", ErrInvalidState)
	}
	id := binary.BigEndian.Uint32(raw[1:5])
	epoch := int64(binary.BigEndian.Uint64(raw[5:13]))
	now := s.now()
	current := now.Unix() / int64(s.period/time.Second)
	if epoch != current && epoch != current-1 {
		return nil, fmt.Errorf("%w: expired", ErrInvalidState)
	}
	var sec *stateSecret
	for i := range s.secrets {
		if s.secrets[i].id == id {
			sec = &s.secrets[i]
			break
		}
	}
	if sec == nil {
		return nil, fmt.Errorf("%w: unknown key", ErrInvalidState)
	}
	aead, err := s.aead(*sec, epoch)
	if err != nil {
		return nil, err
	}
	rest := raw[13:]
	if len(rest) < aead.NonceSize() {
		return nil, fmt.Errorf("%w: malformed", ErrInvalidState)
	}
	plain, err := aead.Open(nil, rest[:aead.NonceSize()], rest[aead.NonceSize():], raw[:13])
	if err != nil {
		return nil, fmt.Errorf("%w: not authentic", ErrInvalidState)
	}
	var p statePayload
	if err := json.Unmarshal(plain, &p); err != nil {
		return nil, fmt.Errorf("%w: malformed", ErrInvalidState)
	}
	if now.Unix() >= p.Expires {
		return nil, fmt.Errorf("%w: expired", ErrInvalidState)
	}
	if !equal(p.Principal, b.principal) {
		return nil, fmt.Errorf("%w: issued to another caller", ErrInvalidState)
	}
	if p.Method != b.method || !equal(p.Name, b.name) {
		return nil, fmt.Errorf("%w: issued for another request", ErrInvalidState)
	}
	if !equal(p.ArgsHash, b.argsHash) {
		return nil, fmt.Errorf("%w: issued for other arguments", ErrInvalidState)
	}
	return &State{Nonce: p.Nonce, Expires: time.Unix(p.Expires, 0), Data: p.Data, asked: p.Asked}, nil
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

func (s *StateSealer) aead(sec stateSecret, epoch int64) (cipher.AEAD, error) {
	k := aeadKey{sec.id, epoch}
	s.mu.Lock()
	defer s.mu.Unlock()
	if a, ok := s.aeads[k]; ok {
		return a, nil
	}
	key, err := hkdf.Key(sha256.New, sec.secret, nil, "mcp request state v1 epoch "+strconv.FormatInt(epoch, 10), 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	a, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	if len(s.aeads) > 64 {
		clear(s.aeads)
	}
	s.aeads[k] = a
	return a, nil
}

// argumentsHash is the SHA-256 of the RFC 8785 canonical form of the
// arguments, so the same arguments written in another key order or number
// spelling bind the same, and any other arguments do not.
func argumentsHash(args jsontext.Value) string {
	if len(args) == 0 || string(args) == "null" {
		args = jsontext.Value("{}")
	}
	c := args.Clone()
	if err := c.Canonicalize(); err != nil {
		c = args
	}
	sum := sha256.Sum256(c)
	return hex.EncodeToString(sum[:])
}
