// Package confirm keeps the used confirmations of destructive MCP tools in
// the database, shared by every replica: the mcp.NonceStore of the
// products' endpoints, and the way a product consumes a confirmation inside
// its own transaction.
//
// Every confirmation (a sealed requestState, see mcp.ConfirmOptions)
// carries a nonce. Consuming it is inserting it into confirmation_nonces;
// the primary key refuses a second insert, so of two retries of the same
// confirmation, replayed or concurrent, exactly one runs. A product whose
// operation writes to the database consumes the nonce in that transaction
// (ConsumeIn), so the confirmation is used if and only if the operation
// committed; the MCP endpoint consumes it itself, just before running the
// tool, for every other tool (Consume).
package confirm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/store"
)

// ErrReplayed is what ConsumeIn returns for a confirmation already used:
// the caller must roll its transaction back and run nothing. It wraps
// mcp.ErrNonceUsed.
var ErrReplayed = fmt.Errorf("confirm: %w", mcp.ErrNonceUsed)

// Nonces is the table of used confirmations. It is safe for concurrent use.
type Nonces struct {
	db         *store.DB
	now        func() time.Time
	purgeEvery time.Duration
	log        *slog.Logger

	mu        sync.Mutex
	lastPurge time.Time
	purging   bool
	wg        sync.WaitGroup
}

// Options tune Nonces; the zero value is the production setting.
type Options struct {
	// PurgeEvery is how often, at most, expired rows are deleted (default
	// one minute). Purging happens after a consumption, in the background,
	// never inside the caller's transaction.
	PurgeEvery time.Duration
	// Now replaces the clock, for tests.
	Now func() time.Time
	// Logger receives purge failures; nil discards them.
	Logger *slog.Logger
}

// New returns the store of used confirmations on db.
func New(db *store.DB, opts Options) *Nonces {
	n := &Nonces{db: db, now: opts.Now, purgeEvery: opts.PurgeEvery, log: opts.Logger}
	if n.now == nil {
		n.now = time.Now
	}
	if n.purgeEvery <= 0 {
		n.purgeEvery = time.Minute
	}
	if n.log == nil {
		n.log = slog.New(slog.DiscardHandler)
	}
	return n
}

// Consume implements mcp.NonceStore: it records nonce as used, in a
// statement of its own, and returns mcp.ErrNonceUsed when it already was.
func (n *Nonces) Consume(ctx context.Context, nonce string, expires time.Time) error {
	err := insert(ctx, n.db, nonce, expires)
	n.maybePurge()
	return err
}

// ConsumeIn consumes the confirmation of the call being run (in ctx, see
// mcp.ConfirmationFrom) inside q, the transaction of the operation it
// confirms. With no confirmation in ctx (a REST request, a call that needed
// none) it does nothing. A confirmation already used is reported to the MCP
// endpoint (Replayed, so the call answers -32602) and returned as
// ErrReplayed: the caller must roll back.
//
// On PostgreSQL a concurrent transaction that inserted the same nonce makes
// this one wait for it: if it commits, this one finds the nonce used; if it
// rolls back, this one goes ahead.
func (n *Nonces) ConsumeIn(ctx context.Context, q store.Querier) error {
	c := mcp.ConfirmationFrom(ctx)
	if c == nil {
		return nil
	}
	err := insert(ctx, q, c.Nonce, c.Expires)
	if errors.Is(err, mcp.ErrNonceUsed) {
		c.Replayed()
		return ErrReplayed
	}
	if err == nil {
		n.maybePurge()
	}
	return err
}

// WithTx runs fn in a new transaction that first consumes the confirmation
// in ctx (ConsumeIn) and, once it has committed, tells the MCP endpoint the
// confirmation is spent. It is the way a destructive operation runs: the
// confirmation is used if and only if the operation's writes commit.
func (n *Nonces) WithTx(ctx context.Context, fn func(tx *store.Tx) error) error {
	err := n.db.WithTx(ctx, func(tx *store.Tx) error {
		if err := n.ConsumeIn(ctx, tx); err != nil {
			return err
		}
		return fn(tx)
	})
	if err == nil {
		if c := mcp.ConfirmationFrom(ctx); c != nil {
			c.Spent()
		}
	}
	return err
}

// insert is the consumption: ON CONFLICT DO NOTHING leaves a PostgreSQL
// transaction usable, where a unique violation would abort it.
func insert(ctx context.Context, q store.Querier, nonce string, expires time.Time) error {
	if nonce == "" {
		return errors.New("confirm: empty nonce")
	}
	res, err := q.Exec(ctx, "INSERT INTO confirmation_nonces (nonce, expires_at) VALUES (?, ?) ON CONFLICT (nonce) DO NOTHING",
		nonce, expires.UTC().Truncate(time.Microsecond))
	if err != nil {
		return err
	}
	rows, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if rows == 0 {
		return mcp.ErrNonceUsed
	}
	return nil
}

// Purge deletes the records of confirmations whose states have expired:
// those can no longer be presented, so forgetting them is safe.
func (n *Nonces) Purge(ctx context.Context) error {
	_, err := n.db.Exec(ctx, "DELETE FROM confirmation_nonces WHERE expires_at < ?", n.now().UTC().Truncate(time.Microsecond))
	return err
}

// maybePurge starts a background purge when the last one is older than
// PurgeEvery. It runs on its own connection, outside any transaction of
// the caller's (on SQLite it simply waits for the write lock).
func (n *Nonces) maybePurge() {
	n.mu.Lock()
	now := n.now()
	if n.purging || now.Sub(n.lastPurge) < n.purgeEvery {
		n.mu.Unlock()
		return
	}
	n.purging, n.lastPurge = true, now
	n.wg.Add(1)
	n.mu.Unlock()
	go func() {
		defer n.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := n.Purge(ctx); err != nil {
			n.log.Warn("confirm: purging expired confirmations", "error", err)
		}
		n.mu.Lock()
		n.purging = false
		n.mu.Unlock()
	}()
}

// Wait blocks until a background purge in progress has finished, for
// tests and shutdown.
func (n *Nonces) Wait() { n.wg.Wait() }
