package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"reflect"
	"sync"
	"time"
)

// sqliteDriverName is the driver the store opens SQLite with: modernc's
// "sqlite" driver, whose connections keep their statements prepared.
const sqliteDriverName = "kobana-sqlite"

// connPrepared bounds the statements one connection keeps prepared; a
// text beyond it runs as it is.
const connPrepared = 512

// The store's own queries go through database/sql prepared statements
// (stmts.go), but every query the job queue's SQLite driver runs (insert,
// fetch, complete: River gives it as text) was parsed and planned again on
// each call, a fifth of the Inbox's processing CPU (docs/decisions.md,
// "Performance of the signed-in path"). Each connection of this driver
// keeps the statement of each text it runs and reuses it while no earlier result of it is still being read.
var registerSQLiteOnce sync.Once

func registerSQLite() {
	registerSQLiteOnce.Do(func() {
		// sql.Open connects to nothing: it only finds modernc's registered
		// driver, whose functions (fold.go) every connection gets.
		db, err := sql.Open("sqlite", "")
		if err != nil {
			panic(err)
		}
		sql.Register(sqliteDriverName, cachingDriver{base: db.Driver()})
		_ = db.Close()
	})
}

type cachingDriver struct{ base driver.Driver }

func (d cachingDriver) Open(name string) (driver.Conn, error) {
	c, err := d.base.Open(name)
	if err != nil {
		return nil, err
	}
	return newCachingConn(c, gateOf(name), busyTimeout(name))
}

// baseConn is what modernc's connection implements and the wrapper uses.
type baseConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

func newCachingConn(c driver.Conn, gate writeGate, gateWait time.Duration) (driver.Conn, error) {
	b, ok := c.(baseConn)
	if !ok {
		_ = c.Close()
		return nil, errors.New("store: the sqlite driver's connection lacks a context method")
	}
	return &cachingConn{baseConn: b, stmts: map[string]*cachedStmt{}, gate: gate, gateWait: gateWait}, nil
}

// cachingConn is one SQLite connection with its prepared statements.
// database/sql uses a connection from one goroutine at a time, so it needs
// no lock.
type cachingConn struct {
	baseConn
	stmts map[string]*cachedStmt
	// gate is the file's write gate (sqlitegate.go), waited for at most
	// gateWait (the DSN's busy timeout); inTx is set while this
	// connection's write transaction holds it.
	gate     writeGate
	gateWait time.Duration
	inTx     bool
}

// contextStmt is what modernc's statements implement and the wrappers use.
type contextStmt interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
}

type cachedStmt struct {
	s    contextStmt
	busy bool // a result of it is still open
}

// cached is the statement of query, prepared on first use; nil when the
// cache is full or the statement is in use (a caller reading its rows runs it again).
func (c *cachingConn) cached(ctx context.Context, query string) (*cachedStmt, error) {
	if cs, ok := c.stmts[query]; ok {
		if cs == nil || cs.busy {
			return nil, nil
		}
		return cs, nil
	}
	// A script of several statements is kept too: modernc's statement
	// then parses it on each run, as an unprepared text does.
	if len(c.stmts) >= connPrepared {
		return nil, nil
	}
	ds, err := c.baseConn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	s, ok := ds.(contextStmt)
	if !ok {
		_ = ds.Close()
		c.stmts[query] = nil
		return nil, nil
	}
	cs := &cachedStmt{s: s}
	c.stmts[query] = cs
	return cs, nil
}

func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	pass, err := c.passFor(ctx, true)
	if err != nil {
		return nil, err
	}
	defer pass.release()
	cs, err := c.cached(ctx, query)
	if err != nil || cs == nil {
		return c.baseConn.ExecContext(ctx, query, args)
	}
	cs.busy = true
	defer func() { cs.busy = false }()
	return cs.s.ExecContext(ctx, args)
}

func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	pass, err := c.passFor(ctx, c.gate != nil && !c.inTx && writesRows(query))
	if err != nil {
		return nil, err
	}
	rows, err := c.query(ctx, query, args)
	if err != nil || pass == nil {
		pass.release()
		return rows, err
	}
	// A statement that writes holds SQLite's lock until it is reset, so
	// the gate is let go when its rows are closed.
	return &gatedRows{Rows: rows, pass: pass}, nil
}

func (c *cachingConn) query(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	cs, err := c.cached(ctx, query)
	if err != nil || cs == nil {
		return c.baseConn.QueryContext(ctx, query, args)
	}
	r, err := cs.s.QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	cs.busy = true
	return &cachedRows{Rows: r, cs: cs}, nil
}

// Close finalizes the connection's statements, then closes it.
func (c *cachingConn) Close() error {
	for _, cs := range c.stmts {
		if cs != nil {
			_ = cs.s.Close()
		}
	}
	c.stmts = nil
	return c.baseConn.Close()
}

// cachedRows frees its statement for the next run when closed.
type cachedRows struct {
	driver.Rows
	cs *cachedStmt
}

func (r *cachedRows) Close() error {
	err := r.Rows.Close()
	r.cs.busy = false
	return err
}

func (r *cachedRows) ColumnTypeDatabaseTypeName(i int) string {
	if t, ok := r.Rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return t.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

func (r *cachedRows) ColumnTypeLength(i int) (int64, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeLength); ok {
		return t.ColumnTypeLength(i)
	}
	return 0, false
}

func (r *cachedRows) ColumnTypeNullable(i int) (bool, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeNullable); ok {
		return t.ColumnTypeNullable(i)
	}
	return false, false
}

func (r *cachedRows) ColumnTypePrecisionScale(i int) (int64, int64, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypePrecisionScale); ok {
		return t.ColumnTypePrecisionScale(i)
	}
	return 0, 0, false
}

func (r *cachedRows) ColumnTypeScanType(i int) reflect.Type {
	if t, ok := r.Rows.(driver.RowsColumnTypeScanType); ok {
		return t.ColumnTypeScanType(i)
	}
	return reflect.TypeFor[any]()
}
