// Package idempotency keeps API idempotency keys in the database (table
// idempotency_keys), so that every replica of a product agrees on which
// request owns a key and replays the same first response
// (docs/decisions.md, "API conventions"). It implements rest.Idempotency:
//
//	rest.Config{…, Idempotency: idempotency.New(db, idempotency.Options{Namespace: "inbox"})}
//
// Keys are per product (Namespace) and organization: two tenants may use
// the same key, and one tenant's key never replays another's answer. A
// claim is a row inserted with INSERT … ON CONFLICT DO NOTHING: of two
// concurrent requests exactly one inserts it, on SQLite and PostgreSQL
// alike, and the other is told the key is in use.
package idempotency

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/rest"
)

// Defaults of Options.
const (
	// DefaultTTL is how long a response is replayed (docs/decisions.md, "API conventions":
	// 24 h).
	DefaultTTL = 24 * time.Hour
	// DefaultLease is how long a running request holds its key before
	// another request may take it over: longer than any request runs, so
	// only the claim of a replica that died is ever taken over.
	DefaultLease = 5 * time.Minute
	// DefaultWait is how long a retry waits for a first request still
	// running before it answers 409 idempotency_key_in_use.
	DefaultWait = 5 * time.Second
)

// Options configure a Store; the zero value is the production setting
// for a single product.
type Options struct {
	// Namespace prefixes every scope ("inbox"), so products sharing a
	// database keep their keys apart.
	Namespace string
	// Scope names a request's key space; default ByOrganization. "" turns
	// idempotency off for the request.
	Scope func(r *http.Request) string
	// Vary names request headers that select what a request acts on
	// ("X-Workspace-Id"): their values are part of its fingerprint, so a
	// key reused for another workspace is a conflict, not a replay.
	Vary []string
	// TTL is how long a response is kept (default DefaultTTL); Lease how
	// long a request may run holding its key (default DefaultLease); Wait
	// how long a retry waits for the key's first request to end before it
	// is told the key is in use (default DefaultWait; PostgreSQL — SQLite
	// waits for its busy timeout).
	TTL, Lease, Wait time.Duration
	// Now replaces the clock, for tests.
	Now func() time.Time
}

// ByOrganization scopes keys by the caller's organization (the identity
// the API's Authorize put in the request's context); "" when there is no
// caller.
func ByOrganization(r *http.Request) string {
	if id := identity.From(r.Context()); id != nil {
		return id.OrganizationID
	}
	return ""
}

// Store is the database's idempotency keys. It is safe for concurrent
// use.
type Store struct {
	db   *store.DB
	opts Options
	// open holds the transaction of each claim a request of this process
	// holds, until Complete or Abort ends it.
	open sync.Map // claimKey → func(commit bool) error
}

var (
	_ rest.Idempotency     = (*Store)(nil)
	_ rest.IdempotencyVary = (*Store)(nil)
)

// New returns the keys kept on db.
func New(db *store.DB, opts Options) *Store {
	if opts.Scope == nil {
		opts.Scope = ByOrganization
	}
	if opts.TTL <= 0 {
		opts.TTL = DefaultTTL
	}
	if opts.Lease <= 0 {
		opts.Lease = DefaultLease
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Wait <= 0 {
		opts.Wait = DefaultWait
	}
	return &Store{db: db, opts: opts}
}

func (s *Store) now() time.Time { return s.opts.Now().UTC().Truncate(time.Microsecond) }

// Scope implements rest.Idempotency.
func (s *Store) Scope(r *http.Request) string {
	sc := s.opts.Scope(r)
	if sc == "" {
		return ""
	}
	return s.opts.Namespace + ":" + sc
}

// VaryHeaders implements rest.IdempotencyVary.
func (s *Store) VaryHeaders() []string { return s.opts.Vary }

type row struct {
	RequestHash     string    `db:"request_hash"`
	Claim           string    `db:"claim"`
	State           string    `db:"state"`
	ResponseStatus  *int      `db:"response_status"`
	ResponseHeaders *string   `db:"response_headers"`
	ResponseBody    []byte    `db:"response_body"`
	ExpiresAt       time.Time `db:"expires_at"`
}

// Begin implements rest.Idempotency. It opens the request's ambient
// transaction (store.DB.BeginAmbient) and claims the key inside it: the
// operation's writes and the response Complete stores commit with the
// claim, or none of them does. A second request with the key waits for
// the first to end (on the key's row on PostgreSQL, on the write lock on
// SQLite) and then replays its answer; should the first process die, its
// transaction rolls back with it and the retry runs once. A row past its
// expiry (a response older than the TTL, or an in-flight claim left by a
// version that committed claims on their own) is removed and the key
// claimed afresh.
func (s *Store) Begin(ctx context.Context, scope, key, fingerprint string) (context.Context, *rest.StoredResponse, string, error) {
	run, finish, err := s.db.BeginAmbient(ctx)
	if isLockTimeout(err) {
		return ctx, nil, "", rest.ErrIdempotencyKeyInUse
	}
	if err != nil {
		return ctx, nil, "", err
	}
	replay, claim, err := s.claim(run, scope, key, fingerprint)
	if err != nil || replay != nil {
		_ = finish(false)
		if isLockTimeout(err) {
			err = rest.ErrIdempotencyKeyInUse
		}
		return ctx, replay, "", err
	}
	s.open.Store(claimKey{scope, key, claim}, finish)
	return run, nil, claim, nil
}

// claim inserts the key's row in the ambient transaction of ctx, or reads
// the row that is there.
func (s *Store) claim(ctx context.Context, scope, key, fingerprint string) (*rest.StoredResponse, string, error) {
	claim := rand.Text()
	if s.db.Dialect() == store.Postgres {
		// A request waiting on the key's first request gives up after a
		// while rather than hold a connection for as long as that one runs.
		if _, err := s.db.Exec(ctx, "SET LOCAL lock_timeout = '"+s.opts.Wait.String()+"'"); err != nil {
			return nil, "", err
		}
	}
	for range 3 {
		now := s.now()
		res, err := s.db.Exec(ctx, `INSERT INTO idempotency_keys (scope, key, request_hash, claim, state, created_at, expires_at)
			VALUES (?, ?, ?, ?, 'in_flight', ?, ?) ON CONFLICT (scope, key) DO NOTHING`,
			scope, key, fingerprint, claim, now, now.Add(s.opts.Lease))
		if err != nil {
			return nil, "", err
		}
		if n, err := res.RowsAffected(); err != nil {
			return nil, "", err
		} else if n == 1 {
			return nil, claim, nil
		}
		var r row
		err = s.db.Get(ctx, &r, `SELECT request_hash, claim, state, response_status, response_headers, response_body, expires_at
			FROM idempotency_keys WHERE scope = ? AND key = ?`, scope, key)
		if errors.Is(err, store.ErrNotFound) {
			continue // released or purged meanwhile: claim again
		}
		if err != nil {
			return nil, "", err
		}
		if !r.ExpiresAt.After(now) {
			// Only the row seen is removed: a takeover by another request
			// since then keeps its claim.
			if _, err := s.db.Exec(ctx, `DELETE FROM idempotency_keys WHERE scope = ? AND key = ? AND claim = ?`, scope, key, r.Claim); err != nil {
				return nil, "", err
			}
			continue
		}
		if r.RequestHash != fingerprint {
			return nil, "", rest.ErrIdempotencyKeyReused
		}
		if r.State != "done" || r.ResponseStatus == nil {
			return nil, "", rest.ErrIdempotencyKeyInUse
		}
		out := &rest.StoredResponse{Status: *r.ResponseStatus, Header: http.Header{}, Body: bytes.Clone(r.ResponseBody)}
		if r.ResponseHeaders != nil {
			if err := json.Unmarshal([]byte(*r.ResponseHeaders), &out.Header); err != nil {
				return nil, "", err
			}
		}
		return out, "", nil
	}
	// Three takeovers in a row: other requests keep winning the key.
	return nil, "", rest.ErrIdempotencyKeyInUse
}

// isLockTimeout reports a wait for another request's key that ran out:
// PostgreSQL's lock_timeout (55P03) or SQLite's busy timeout.
func isLockTimeout(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "55P03") || strings.Contains(msg, "lock timeout") || strings.Contains(msg, "SQLITE_BUSY") || strings.Contains(msg, "database is locked")
}

// claimKey names an open claim, whose transaction Complete or Abort ends.
type claimKey struct{ scope, key, claim string }

// errClaimLost is a Complete or Abort whose claim is gone: its lease ran
// out and another request took the key over.
var errClaimLost = errors.New("idempotency: the claim on the key was lost (its lease expired)")

// Complete implements rest.Idempotency: the response is kept for the TTL
// from now, and the request's transaction — the claim, the operation's
// writes, the response — commits. An error means none of it did.
func (s *Store) Complete(ctx context.Context, scope, key, claim string, res rest.StoredResponse) error {
	v, ok := s.open.LoadAndDelete(claimKey{scope, key, claim})
	if !ok {
		return errClaimLost
	}
	finish := v.(func(bool) error)
	h, err := json.Marshal(res.Header)
	if err != nil {
		_ = finish(false)
		return err
	}
	body := res.Body
	if body == nil {
		body = []byte{}
	}
	err = store.ExpectOne(s.db.Exec(ctx, `UPDATE idempotency_keys SET state = 'done', response_status = ?, response_headers = ?, response_body = ?, expires_at = ?
		WHERE scope = ? AND key = ? AND claim = ? AND state = 'in_flight'`,
		res.Status, string(h), body, s.now().Add(s.opts.TTL), scope, key, claim))
	if errors.Is(err, store.ErrNotFound) {
		err = errClaimLost
	}
	if err != nil {
		_ = finish(false)
		return err
	}
	return finish(true)
}

// Abort implements rest.Idempotency: the request's transaction rolls
// back, its writes and its claim with it.
func (s *Store) Abort(ctx context.Context, scope, key, claim string) error {
	v, ok := s.open.LoadAndDelete(claimKey{scope, key, claim})
	if !ok {
		return nil
	}
	return v.(func(bool) error)(false)
}

// Purge deletes expired keys and returns how many: responses past their
// TTL and claims past their lease. Begin ignores such rows anyway; the
// purge only keeps the table small. Run it from a periodic job.
func (s *Store) Purge(ctx context.Context) (int64, error) {
	res, err := s.db.Exec(ctx, `DELETE FROM idempotency_keys WHERE expires_at < ?`, s.now())
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
