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
// intake (docs/decisions.md, "Performance of the signed-in path"). database/sql
// prepares a cached statement once on each connection that runs it and
// keeps it there. PostgreSQL needs none: pgx caches the prepared
// statements of each connection itself.
type stmtCache struct {
	mu    sync.RWMutex
	stmts map[string]*sqlx.Stmt
}

// stmt returns the prepared statement of query (already rebound), or nil
// when it cannot or should not be prepared; the caller then runs the query
// as it is. It is for the pool, whose caller holds no connection: it may
// wait for one to prepare on (never while holding the cache's lock).
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
		return s // nil while another caller prepares it
	}
	c.mu.Lock()
	if _, ok := c.stmts[query]; ok || len(c.stmts) >= maxPrepared {
		c.mu.Unlock()
		return nil
	}
	if c.stmts == nil {
		c.stmts = map[string]*sqlx.Stmt{}
	}
	c.stmts[query] = nil // being prepared
	c.mu.Unlock()
	return db.prepareLater(context.WithoutCancel(ctx), query)
}

// stmt is the transaction's use of the DB's prepared statement of query
// (database/sql reuses it when it is already prepared on the
// transaction's connection, and prepares it there once otherwise); nil to
// run the query as it is. A statement not yet prepared is prepared in the
// background and this run goes unprepared: preparing on the DB takes a
// connection of the pool, which a transaction must never wait for (the
// pool may be full of transactions waiting for this one's lock).
func (tx *Tx) stmt(ctx context.Context, query string) *sqlx.Stmt {
	if tx.db == nil || tx.db.dialect != SQLite {
		return nil
	}
	c := &tx.db.prepared
	c.mu.RLock()
	s, ok := c.stmts[query]
	c.mu.RUnlock()
	if s != nil {
		return tx.x.StmtxContext(ctx, s)
	}
	if !ok {
		c.mu.Lock()
		if _, ok := c.stmts[query]; !ok && len(c.stmts) < maxPrepared {
			if c.stmts == nil {
				c.stmts = map[string]*sqlx.Stmt{}
			}
			c.stmts[query] = nil // being prepared
			go tx.db.prepareLater(context.Background(), query)
		}
		c.mu.Unlock()
	}
	return nil
}

// prepareLater prepares query, marked as being prepared, on the pool and
// keeps it in the cache; on failure the mark goes and the query runs
// unprepared. It returns the statement, or nil.
func (db *DB) prepareLater(ctx context.Context, query string) *sqlx.Stmt {
	c := &db.prepared
	if strings.Contains(strings.TrimRight(query, "; \t\n"), ";") {
		return nil // stays marked: always unprepared
	}
	s, err := db.x.PreparexContext(ctx, query)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stmts == nil { // closed meanwhile
		if err == nil {
			_ = s.Close()
		}
		return nil
	}
	if err != nil {
		delete(c.stmts, query)
		return nil
	}
	c.stmts[query] = s
	return s
}

// closeStmts closes every prepared statement (on Close).
func (db *DB) closeStmts() {
	c := &db.prepared
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.stmts {
		if s != nil {
			_ = s.Close()
		}
	}
	c.stmts = nil
}
