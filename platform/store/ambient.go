package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"
)

// An ambient transaction is a transaction a request runs in without
// passing it around: every Get, Select, Exec and WithTx on the DB whose
// context carries it goes through it. The idempotency of API writes is
// built on it (platform/idempotency): the claim on a key, the write the
// request makes and the answer kept for retries commit together or not at
// all, so a process that dies mid-request leaves no key that says "in
// flight" and no write without its key (docs/decisions.md "Crash safety").
//
// Inside it, WithTx opens a savepoint, so a unit of work that fails rolls
// back alone and the request may still answer (a 409, say). On PostgreSQL
// each Exec runs under a savepoint too: a failed statement would
// otherwise abort the whole transaction, and code that expects a unique
// violation (ErrConflict) and answers it must still be able to commit.
type ambient struct {
	db *DB
	tx *Tx
	// done is set once finish ran; uses after it go to the pool. Like a
	// Tx, the ambient transaction is for one goroutine: the request's.
	done atomic.Bool
	n    int // savepoints made
}

type ambientKey struct{}

// BeginAmbient starts a transaction that every use of db with the returned
// context joins, until finish ends it (commit true: commit; false: roll
// back). Work that outlives the request and kept its context (a detached
// context.WithoutCancel) goes back to the pool once finish has run.
func (db *DB) BeginAmbient(ctx context.Context) (context.Context, func(commit bool) error, error) {
	if a := db.ambientOf(ctx); a != nil {
		return nil, nil, errors.New("store: an ambient transaction is already open")
	}
	x, err := db.x.BeginTxx(ctx, nil)
	if err != nil {
		return nil, nil, mapError(err)
	}
	a := &ambient{db: db, tx: &Tx{x: x, dialect: db.dialect, db: db}}
	finish := func(commit bool) error {
		if a.done.Swap(true) {
			return errors.New("store: the ambient transaction was already finished")
		}
		if commit {
			return mapError(x.Commit())
		}
		return mapError(x.Rollback())
	}
	return context.WithValue(ctx, ambientKey{}, a), finish, nil
}

// InAmbient reports whether ctx carries an open ambient transaction of db.
func (db *DB) InAmbient(ctx context.Context) bool { return db.ambientOf(ctx) != nil }

func (db *DB) ambientOf(ctx context.Context) *ambient {
	a, _ := ctx.Value(ambientKey{}).(*ambient)
	if a == nil || a.db != db || a.done.Load() {
		return nil
	}
	return a
}

func (a *ambient) get(ctx context.Context, dest any, query string, args ...any) error {
	if a.done.Load() {
		return a.db.getPool(ctx, dest, query, args...)
	}
	return a.tx.Get(ctx, dest, query, args...)
}

func (a *ambient) selectRows(ctx context.Context, dest any, query string, args ...any) error {
	if a.done.Load() {
		return a.db.selectPool(ctx, dest, query, args...)
	}
	return a.tx.Select(ctx, dest, query, args...)
}

func (a *ambient) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if a.done.Load() {
		return a.db.execPool(ctx, query, args...)
	}
	if a.db.dialect != Postgres {
		return a.tx.Exec(ctx, query, args...)
	}
	var res sql.Result
	err := a.savepoint(ctx, func() error {
		var err error
		res, err = a.tx.Exec(ctx, query, args...)
		return err
	})
	return res, err
}

// withTx runs fn as a unit inside the ambient transaction: a savepoint
// released when fn returns nil, rolled back to when it fails or panics.
func (a *ambient) withTx(ctx context.Context, fn func(tx *Tx) error) error {
	if a.done.Load() {
		return a.db.withNewTx(ctx, fn)
	}
	return a.savepoint(ctx, func() error { return fn(a.tx) })
}

// savepoint runs fn between SAVEPOINT and RELEASE, rolling back to the
// savepoint when fn fails or panics.
func (a *ambient) savepoint(ctx context.Context, fn func() error) (err error) {
	a.n++
	name := fmt.Sprintf("kobana_sp_%d", a.n)
	if _, err := a.tx.x.ExecContext(ctx, "SAVEPOINT "+name); err != nil {
		return mapError(err)
	}
	ok := false
	defer func() {
		if !ok {
			_, _ = a.tx.x.ExecContext(context.WithoutCancel(ctx), "ROLLBACK TO SAVEPOINT "+name)
		}
	}()
	if err := fn(); err != nil {
		return err
	}
	if _, err := a.tx.x.ExecContext(ctx, "RELEASE SAVEPOINT "+name); err != nil {
		return mapError(err)
	}
	ok = true
	return nil
}
