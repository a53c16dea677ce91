package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// SQLite lets one writer in at a time, and a connection that finds the
// write lock taken sleeps and tries again (the busy handler) until its busy
// timeout. Those retries are not a queue: on a loaded host a writer can lose
// to newer ones again and again and fail with SQLITE_BUSY after 5 s while
// the database is merely busy, every wait of it short (seen in CI with a
// dozen job-queue clients polling their SQLite files under the race
// detector). So within one process every write to a file first takes that
// file's write gate, a FIFO of one: writers of the process queue in arrival
// order and enter SQLite's lock one after another. The busy timeout keeps
// its meaning: it bounds a writer's wait in the queue as it bounded its
// retries, so a write behind a transaction held for long (an API request
// holding its idempotency key, say) still fails after it as before, and it
// still bounds the wait on other processes' writes to the same file
// (docs/decisions.md, "SQLite's write gate").
//
// A write is a transaction that is not read-only (the store opens SQLite
// with _txlock=immediate, so every such transaction takes the write lock
// when it begins), and a statement outside a transaction that can write
// (Exec, or a query whose text inserts, updates, deletes or returns).

// defaultGateWait is the wait of a DSN that sets no _busy_timeout: the
// store's own default (url.go).
const defaultGateWait = 5 * time.Second

// errGateWait is the error of a writer that waited its busy timeout in the
// queue: it says "database is locked" like SQLITE_BUSY, so callers that
// treat a busy database alike (idempotency, the job queue) still do.
var errGateWait = errors.New("database is locked (SQLITE_BUSY): this process's other writers held the database past the busy timeout")

// busyTimeout is the _busy_timeout a DSN sets, in milliseconds.
func busyTimeout(dsn string) time.Duration {
	_, query, _ := strings.Cut(dsn, "?")
	for _, kv := range strings.Split(query, "&") {
		if v, ok := strings.CutPrefix(kv, "_busy_timeout="); ok {
			if ms, err := strconv.Atoi(v); err == nil && ms >= 0 {
				return time.Duration(ms) * time.Millisecond
			}
		}
	}
	return defaultGateWait
}

// writeGate is one file's gate: a channel of one slot, whose blocked
// senders Go queues in arrival order.
type writeGate = *gate

type gate struct {
	slot chan struct{}
	// waiting counts the writers blocked in enter (tests read it to know
	// a writer has joined the queue).
	waiting atomic.Int64
}

var (
	gatesMu sync.Mutex
	gates   = map[string]writeGate{}
)

// gateOf is the gate of the database a DSN names: its file path, so two
// *sql.DB on one file in a process share it. An in-memory or unnamed
// database has no gate (no other connection can write it).
func gateOf(dsn string) writeGate {
	path, _, _ := strings.Cut(dsn, "?")
	path = strings.TrimPrefix(path, "file:")
	if path == "" || path == ":memory:" || strings.Contains(dsn, "mode=memory") {
		return nil
	}
	gatesMu.Lock()
	defer gatesMu.Unlock()
	g, ok := gates[path]
	if !ok {
		g = &gate{slot: make(chan struct{}, 1)}
		gates[path] = g
	}
	return g
}

// enter waits for the gate: until it is free, ctx ends or wait passes.
func (g *gate) enter(ctx context.Context, wait time.Duration) error {
	select {
	case g.slot <- struct{}{}:
		return nil
	default:
	}
	g.waiting.Add(1)
	defer g.waiting.Add(-1)
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case g.slot <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return errGateWait
	}
}

// leave frees the gate for the next writer in line.
func (g *gate) leave() { <-g.slot }

// gatePass is one writer's hold on the gate, let go once whoever ends it
// first (a commit, a rollback database/sql runs from another goroutine when
// the context ends, the rows' close).
type gatePass struct {
	g    writeGate
	once sync.Once
}

func (p *gatePass) release() {
	if p != nil {
		p.once.Do(p.g.leave)
	}
}

// gatedTx is a write transaction holding its file's gate until it ends.
type gatedTx struct {
	driver.Tx
	pass *gatePass
	conn *cachingConn
}

func (t *gatedTx) Commit() error {
	defer t.end()
	return t.Tx.Commit()
}

func (t *gatedTx) Rollback() error {
	defer t.end()
	return t.Tx.Rollback()
}

func (t *gatedTx) end() {
	t.conn.inTx = false
	t.pass.release()
}

// BeginTx takes the gate for a transaction that may write, then begins it.
func (c *cachingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if c.gate == nil || opts.ReadOnly {
		return c.baseConn.BeginTx(ctx, opts)
	}
	if err := c.gate.enter(ctx, c.gateWait); err != nil {
		return nil, err
	}
	pass := &gatePass{g: c.gate}
	tx, err := c.baseConn.BeginTx(ctx, opts)
	if err != nil {
		pass.release()
		return nil, err
	}
	c.inTx = true
	return &gatedTx{Tx: tx, pass: pass, conn: c}, nil
}

// passFor takes the gate for a statement outside a transaction that may
// write; nil when it needs none.
func (c *cachingConn) passFor(ctx context.Context, writes bool) (*gatePass, error) {
	if c.gate == nil || c.inTx || !writes {
		return nil, nil
	}
	if err := c.gate.enter(ctx, c.gateWait); err != nil {
		return nil, err
	}
	return &gatePass{g: c.gate}, nil
}

// writesRows reports whether a query's text may write: it starts with
// INSERT, UPDATE, DELETE or REPLACE, it returns what it wrote, or it is a
// WITH whose body writes. It allocates nothing: reads run it too.
func writesRows(query string) bool {
	q := strings.TrimLeft(query, " \t\r\n(")
	for _, verb := range []string{"INSERT", "UPDATE", "DELETE", "REPLACE"} {
		if hasPrefixFold(q, verb) {
			return true
		}
	}
	if containsFold(q, "RETURNING") {
		return true
	}
	return hasPrefixFold(q, "WITH") && (containsFold(q, "INSERT ") || containsFold(q, "UPDATE ") || containsFold(q, "DELETE "))
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func containsFold(s, word string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(word)], word) {
			return true
		}
	}
	return false
}

// gatedRows are the rows of a writing statement outside a transaction,
// holding the gate until closed.
type gatedRows struct {
	driver.Rows
	pass *gatePass
}

func (r *gatedRows) Close() error {
	defer r.pass.release()
	return r.Rows.Close()
}

func (r *gatedRows) ColumnTypeDatabaseTypeName(i int) string {
	if t, ok := r.Rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return t.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

func (r *gatedRows) ColumnTypeScanType(i int) reflect.Type {
	if t, ok := r.Rows.(driver.RowsColumnTypeScanType); ok {
		return t.ColumnTypeScanType(i)
	}
	return reflect.TypeFor[any]()
}

// PrepareContext prepares a statement for database/sql, which then runs
// it on this connection without passing through ExecContext or
// QueryContext: so the statement takes the gate itself.
func (c *cachingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	ds, err := c.baseConn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	s, ok := ds.(contextStmt)
	if !ok || c.gate == nil {
		return ds, nil
	}
	return &gatedStmt{s: s, conn: c, writes: writesRows(query)}, nil
}

// gatedStmt is a statement database/sql prepared: outside a transaction, a
// run that may write takes the gate as ExecContext and QueryContext do.
type gatedStmt struct {
	s    contextStmt
	conn *cachingConn
	// writes is writesRows of the statement's text, read once.
	writes bool
}

func (g *gatedStmt) Close() error  { return g.s.Close() }
func (g *gatedStmt) NumInput() int { return g.s.NumInput() }

func (g *gatedStmt) Exec(args []driver.Value) (driver.Result, error) {
	return nil, errors.New("store: Exec without a context")
}

func (g *gatedStmt) Query(args []driver.Value) (driver.Rows, error) {
	return nil, errors.New("store: Query without a context")
}

func (g *gatedStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	pass, err := g.conn.passFor(ctx, true)
	if err != nil {
		return nil, err
	}
	defer pass.release()
	return g.s.ExecContext(ctx, args)
}

func (g *gatedStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	pass, err := g.conn.passFor(ctx, g.writes)
	if err != nil {
		return nil, err
	}
	rows, err := g.s.QueryContext(ctx, args)
	if err != nil || pass == nil {
		pass.release()
		return rows, err
	}
	return &gatedRows{Rows: rows, pass: pass}, nil
}
