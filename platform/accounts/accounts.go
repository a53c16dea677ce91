// Package accounts keeps the identity data: the organizations that own
// everything (tenants) and their workspaces, the people who sign in
// (users, with argon2id password hashes), and the role each person holds in
// each organization (platform/identity roles). The authorization server
// signs people in with it; the APIs resolve an organization's workspaces
// with it.
//
// Tenant data is reached only through the organization that owns it: every
// function over workspaces or memberships takes the organization id, and a
// row of another organization answers store.ErrNotFound exactly like a
// missing one. Users themselves are not tenant data — one person may belong
// to several organizations — and are found by id or email.
//
// Errors: store.ErrNotFound, store.ErrConflict (a taken email or external
// id, the last owner, the last workspace), ErrInvalid (input that can never be stored), and
// ErrInvalidCredentials from VerifyPassword.
package accounts

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/kobana/kobana-mcp/platform/store"
)

var (
	// ErrInvalid: the input breaks a rule of the data (an email that is
	// not an address, an unknown role, an empty name); retrying the same
	// input cannot succeed. APIs answer it as 422.
	ErrInvalid = errors.New("accounts: invalid input")
	// ErrInvalidCredentials: the email and password do not sign anyone in.
	// It does not say whether the email exists.
	ErrInvalidCredentials = errors.New("accounts: invalid email or password")
	// ErrLastOwner: the change would leave an organization without an
	// owner, and so without anyone who may manage its people. It is a
	// store.ErrConflict too.
	ErrLastOwner = fmt.Errorf("%w: an organization keeps at least one owner", store.ErrConflict)
	// ErrLastWorkspace: the deletion would leave an organization without a
	// workspace. It is a store.ErrConflict too.
	ErrLastWorkspace = fmt.Errorf("%w: an organization keeps at least one workspace", store.ErrConflict)
)

// Store reads and writes the identity data on a database or inside a
// transaction. It is safe for concurrent use when made on a *store.DB.
type Store struct {
	q      store.Querier
	params PasswordParams
	// workspaces keeps SelectWorkspace's picks (Options.Watch); nil on a
	// Store without a watch and inside a transaction, which must read its
	// own writes.
	workspaces *WatchedCache[workspaceKey, Workspace]
	// dummy is a hash of a random password that VerifyPassword checks when
	// no user has the email, so a miss costs what a wrong password costs
	// and response times do not tell which addresses have accounts. It is
	// made by the first VerifyPassword, hit or miss, so commands that never
	// sign anyone in do not pay for it. Shared by InTx copies.
	dummy *dummyHash
}

type dummyHash struct {
	once sync.Once
	hash string
}

func (s *Store) dummyHash() string {
	s.dummy.once.Do(func() { s.dummy.hash = HashPassword(GeneratePassword(), s.params) })
	return s.dummy.hash
}

// Options tune a Store; the zero value is the production setting.
type Options struct {
	// Password are the argon2id costs of new hashes; zero means
	// DefaultPasswordParams. Tests lower them to stay fast.
	Password PasswordParams
	// Watch, when set, lets SelectWorkspace keep what it picked until the
	// watch says a change may have made it stale (the process's one watch,
	// shared with the role cache; docs/decisions.md, "Identity read
	// cache"). Nil reads the workspaces table on every pick.
	Watch *ChangeWatch
}

// New returns a Store over q, a *store.DB (each call its own transaction
// where it needs one) or a *store.Tx (every call inside that one).
func New(q store.Querier, opts Options) *Store {
	p := opts.Password
	if p == (PasswordParams{}) {
		p = DefaultPasswordParams
	}
	s := &Store{q: q, params: p, dummy: &dummyHash{}}
	// Only on the database: inside a transaction a pick must see the
	// transaction's own writes.
	if _, onDB := q.(*store.DB); onDB && opts.Watch != nil {
		s.workspaces = NewWatchedCache[workspaceKey, Workspace](opts.Watch, 0)
	}
	return s
}

// InTx returns the same Store working inside tx, so identity changes can
// commit or roll back together with other writes of the caller's.
func (s *Store) InTx(tx *store.Tx) *Store {
	c := *s
	c.q = tx
	c.workspaces = nil
	return &c
}

// Limits of free text, in characters.
const (
	maxNameRunes       = 200
	maxExternalIDRunes = 255
	maxEmailBytes      = 254 // RFC 5321 path limit
	maxEmailPrefix     = 60
)

// cleanText trims s and checks it is printable text of 1..max characters.
func cleanText(field, s string, max int) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", fmt.Errorf("%w: %s is empty", ErrInvalid, field)
	case !utf8.ValidString(s):
		return "", fmt.Errorf("%w: %s is not UTF-8", ErrInvalid, field)
	case utf8.RuneCountInString(s) > max:
		return "", fmt.Errorf("%w: %s has more than %d characters", ErrInvalid, field, max)
	case strings.ContainsFunc(s, unicode.IsControl):
		return "", fmt.Errorf("%w: %s contains control characters", ErrInvalid, field)
	}
	return s, nil
}
