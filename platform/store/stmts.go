package store

import (
	"context"
	"strings"
	"sync"

	"github.com/jmoiron/sqlx"
)

// maxPrepared bounds the statements a DB keeps prepared: the queries the
// code writes are a few hundred shapes; a query built with a varying
// number of terms beyond it simply runs unprepared.
const maxPrepared = 1024

// stmtCache keeps the statements prepared on SQLite — reads and writes,
// on the pool and in transactions — where parsing and planning a statement
// was a fifth of a signed-in listing's CPU and a third of the Inbox's
// intake
// (docs/decisions.md, "Performance of the signed-in path"). database/sql
// prepares a cached statement once on each connection that runs it and
// keeps it there. PostgreSQL needs none: pgx caches the prepared
// statements of each connection itself.
type stmtCache struct {
	mu    sync.RWMutex
	stmts map[string]*sqlx.Stmt
}

// stmt returns the prepared statement of query (already rebound), or nil
// when it cannot or should not be prepared; the caller then runs the query
// as it is.
func (db *DB) stmt(ctx context.Context, query string) *sqlx.Stmt {
	// SQLite prepares only the first statement of a text: a text holding
	// several runs as it is.
	if db.dialect != SQLite || strings.Contains(strings.TrimRight(query, "; \t\n"), ";") {
		return nil
	}
	c := &db.prepared
	c.mu.RLock()
	s, ok := c.stmts[query]
	c.mu.RUnlock()
	if ok {
		return s
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.stmts[query]; ok {
		return s
	}
	if len(c.stmts) >= maxPrepared {
		return nil
	}
	s, err := db.x.PreparexContext(context.WithoutCancel(ctx), query)
	if err != nil {
		return nil // the query runs unprepared and reports its own error
	}
	if c.stmts == nil {
		c.stmts = map[string]*sqlx.Stmt{}
	}
	c.stmts[query] = s
	return s
}

// stmt is the transaction's use of the DB's prepared statement of query
// (database/sql reuses it when it is already prepared on the
// transaction's connection, and prepares it there once otherwise); nil to
// run the query as it is.
func (tx *Tx) stmt(ctx context.Context, query string) *sqlx.Stmt {
	if tx.db == nil {
		return nil
	}
	s := tx.db.stmt(ctx, query)
	if s == nil {
		return nil
	}
	return tx.x.StmtxContext(ctx, s)
}

// closeStmts closes every prepared statement (on Close).
func (db *DB) closeStmts() {
	c := &db.prepared
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.stmts {
		_ = s.Close()
	}
	c.stmts = nil
}
