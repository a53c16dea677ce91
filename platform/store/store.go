// Package store is the project's one way to reach its relational database:
// it opens SQLite (embedded, the default) or PostgreSQL from a URL, runs the
// versioned migrations, and gives every package the same small set of query
// helpers, transactions and errors, so identity and, later, each product's
// data (Inbox e-mails, webhooks, the job queue) are written once and run on
// both engines.
//
// Queries are written once, with `?` placeholders, and rebound for the
// engine by github.com/jmoiron/sqlx. Rows map to structs by `db` tags.
// Errors that callers must tell apart come back as ErrNotFound and
// ErrConflict on both engines.
//
// Portable SQL, in short: ids are UUID text (NewID), instants are written
// from Go (Now) and never by a SQL default, booleans and JSON are avoided
// until a migration token gives them one spelling, upserts use
// `INSERT … ON CONFLICT (…) DO UPDATE`, which both engines speak, and no
// query may hold a literal `?` of its own (PostgreSQL's jsonb `?`
// operator: write jsonb_exists instead), since every `?` is a parameter.
package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jmoiron/sqlx"
	"go.opentelemetry.io/otel/trace"
	_ "modernc.org/sqlite" // registers the pure-Go "sqlite" driver: no cgo in the build
)

// Dialect names the engine behind a DB. Code should rarely look at it: the
// point of this package is that queries do not depend on it.
type Dialect string

// The engines the project runs on.
const (
	// SQLite is the embedded default: one file in the data directory.
	SQLite Dialect = "sqlite"
	// Postgres is PostgreSQL, for replicas that share one database.
	Postgres Dialect = "postgres"
)

func init() {
	// modernc.org/sqlite registers itself as "sqlite", a name sqlx does not
	// know; tell it that driver takes `?` so Rebind leaves queries as they are.
	sqlx.BindDriver("sqlite", sqlx.QUESTION)
}

// Querier runs queries: a *DB runs each in its own implicit transaction, a
// *Tx runs them inside its transaction. Functions that read or write take a
// Querier so the caller decides whether they are part of a larger unit.
//
// Queries use `?` placeholders on every engine; results of Get and Select
// map columns to struct fields by `db` tags (sqlx). Errors are mapped:
// no row → ErrNotFound, a unique or foreign-key violation → ErrConflict.
type Querier interface {
	// Get scans the single row the query returns into dest (a struct
	// pointer or a scalar pointer); no row is ErrNotFound.
	Get(ctx context.Context, dest any, query string, args ...any) error
	// Select scans every row into dest, a pointer to a slice.
	Select(ctx context.Context, dest any, query string, args ...any) error
	// Exec runs a statement that returns no rows.
	Exec(ctx context.Context, query string, args ...any) (sql.Result, error)
	// WithTx runs fn in a transaction (see DB.WithTx and Tx.WithTx).
	WithTx(ctx context.Context, fn func(tx *Tx) error) error
	// Dialect is the engine, for the rare query that must differ.
	Dialect() Dialect
}

// DB is an open database: a connection pool that knows its engine. It is
// safe for concurrent use; open one per process and share it.
type DB struct {
	x       *sqlx.DB
	dialect Dialect
	target  string // the URL with any password removed, for messages
	// prepared are the pool's reads kept prepared (stmts.go).
	prepared stmtCache
	// scans are the field paths of each query's columns (scan.go).
	scans scanPlans
	// pg is the PostgreSQL connection configuration (nil on SQLite).
	pg *pgx.ConnConfig
}

var (
	_ Querier = (*DB)(nil)
	_ Querier = (*Tx)(nil)
)

// Open connects to the database a URL names (see ParseURL for the forms)
// and checks that it answers. It does not migrate: call Migrate.
//
// SQLite opens in WAL mode with foreign keys enforced, a 5 s busy timeout
// and transactions that take the write lock when they begin (BEGIN
// IMMEDIATE), so concurrent writers wait instead of failing; the file and
// its directory are created, readable by the user only, when missing. PostgreSQL goes through pgx's database/sql
// driver; a `search_path` query parameter selects the schema. Instants
// scan as UTC on both.
func Open(ctx context.Context, databaseURL string) (*DB, error) {
	return OpenWith(ctx, databaseURL, Options{})
}

// Options adjust how Open connects.
type Options struct {
	// Tracer, when set, traces the queries made inside a recorded trace
	// (otelsql, trace.go); nil (tracing off) leaves the driver unwrapped.
	Tracer trace.TracerProvider
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, databaseURL string, o Options) (*DB, error) {
	t, err := ParseURL(databaseURL)
	if err != nil {
		return nil, err
	}
	var sdb *sql.DB
	switch t.Dialect {
	case SQLite:
		if err := prepareFile(t.Path); err != nil {
			return nil, err
		}
		registerSQLite()
		if sdb, err = openSQLite(t.DSN, o.Tracer); err != nil {
			return nil, fmt.Errorf("store: open %s: %w", t.Redacted, err)
		}
		// Readers run in parallel under WAL; writers queue on the lock. A
		// small pool keeps file handles and lock contention bounded.
		sdb.SetMaxOpenConns(8)
		sdb.SetMaxIdleConns(8)
		sdb.SetConnMaxIdleTime(5 * time.Minute)
	case Postgres:
		cfg, err := pgx.ParseConfig(t.DSN)
		if err != nil {
			return nil, fmt.Errorf("store: %s: %w", t.Redacted, err)
		}
		sdb = openPostgres(*cfg, o.Tracer)
		maxConns := t.MaxConns
		if maxConns == 0 {
			maxConns = DefaultMaxConns
		}
		// Half stay open between bursts: a reconnect costs a round trip
		// and a backend's start, an idle connection one of the server's
		// max_connections.
		sdb.SetMaxOpenConns(maxConns)
		sdb.SetMaxIdleConns(max(1, maxConns/2))
		sdb.SetConnMaxIdleTime(5 * time.Minute)
	}
	db := &DB{x: sqlx.NewDb(sdb, driverName(t.Dialect)), dialect: t.Dialect, target: t.Redacted}
	if t.Dialect == Postgres {
		db.pg, _ = pgx.ParseConfig(t.DSN)
	}
	pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := sdb.PingContext(pctx); err != nil {
		_ = sdb.Close()
		return nil, fmt.Errorf("store: connect to %s: %w", t.Redacted, err)
	}
	return db, nil
}

func driverName(d Dialect) string {
	if d == Postgres {
		return "pgx"
	}
	return "sqlite"
}

// scanTimesAsUTC makes timestamptz values scan in UTC, as SQLite's do, so
// the same row reads the same on both engines (pgx's default is Local).
func scanTimesAsUTC(_ context.Context, c *pgx.Conn) error {
	c.TypeMap().RegisterType(&pgtype.Type{
		Name:  "timestamptz",
		OID:   pgtype.TimestamptzOID,
		Codec: &pgtype.TimestamptzCodec{ScanLocation: time.UTC},
	})
	return nil
}

// Dialect is the engine behind db.
func (db *DB) Dialect() Dialect { return db.dialect }

// String names the database for logs and messages, without its password.
func (db *DB) String() string { return db.target }

// SQL is the underlying pool, for what needs database/sql itself (the
// migration tool, health checks, stats).
func (db *DB) SQL() *sql.DB { return db.x.DB }

// Ping checks that the database answers, for readiness probes.
func (db *DB) Ping(ctx context.Context) error { return db.x.PingContext(ctx) }

// PostgresConfig is a copy of the PostgreSQL connection configuration,
// search_path included, for a library that needs a connection of its own
// outside the pool (the job queue's LISTEN connection, platform/jobs); nil
// on SQLite.
func (db *DB) PostgresConfig() *pgx.ConnConfig {
	if db.pg == nil {
		return nil
	}
	return db.pg.Copy()
}

// Close closes the pool; the DB is unusable afterwards.
func (db *DB) Close() error {
	db.closeStmts()
	return db.x.Close()
}

// Get implements Querier; inside an ambient transaction (ambient.go) it
// reads through it.
func (db *DB) Get(ctx context.Context, dest any, query string, args ...any) error {
	if a := db.ambientOf(ctx); a != nil {
		return a.get(ctx, dest, query, args...)
	}
	return db.getPool(ctx, dest, query, args...)
}

// Select implements Querier; inside an ambient transaction it reads
// through it.
func (db *DB) Select(ctx context.Context, dest any, query string, args ...any) error {
	if a := db.ambientOf(ctx); a != nil {
		return a.selectRows(ctx, dest, query, args...)
	}
	return db.selectPool(ctx, dest, query, args...)
}

// Exec implements Querier; inside an ambient transaction it writes
// through it.
func (db *DB) Exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if a := db.ambientOf(ctx); a != nil {
		return a.exec(ctx, query, args...)
	}
	return db.execPool(ctx, query, args...)
}

func (db *DB) getPool(ctx context.Context, dest any, query string, args ...any) error {
	query = db.x.Rebind(query)
	s := db.stmt(ctx, query)
	if base, ok := structDest(db.x.Mapper, dest); ok {
		if s != nil {
			rows, err := s.QueryxContext(ctx, args...)
			return mapError(db.scans.getRow(rows, err, dest, base, query))
		}
		rows, err := db.x.QueryxContext(ctx, query, args...)
		return mapError(db.scans.getRow(rows, err, dest, base, query))
	}
	if s != nil {
		return mapError(s.GetContext(ctx, dest, args...))
	}
	return mapError(db.x.GetContext(ctx, dest, query, args...))
}

func (db *DB) selectPool(ctx context.Context, dest any, query string, args ...any) error {
	query = db.x.Rebind(query)
	s := db.stmt(ctx, query)
	if base, ok := sliceBase(db.x.Mapper, dest); ok {
		if s != nil {
			rows, err := s.QueryxContext(ctx, args...)
			return mapError(db.scans.selectRows(rows, err, dest, base, query))
		}
		rows, err := db.x.QueryxContext(ctx, query, args...)
		return mapError(db.scans.selectRows(rows, err, dest, base, query))
	}
	if s != nil {
		return mapError(s.SelectContext(ctx, dest, args...))
	}
	return mapError(db.x.SelectContext(ctx, dest, query, args...))
}

func (db *DB) execPool(ctx context.Context, query string, args ...any) (sql.Result, error) {
	query = db.x.Rebind(query)
	if s := db.stmt(ctx, query); s != nil {
		res, err := s.ExecContext(ctx, args...)
		return res, mapError(err)
	}
	res, err := db.x.ExecContext(ctx, query, args...)
	return res, mapError(err)
}

// WithTx runs fn in a new transaction and commits it when fn returns nil;
// it rolls back when fn returns an error or panics (the panic goes on), so
// a unit of work is all or nothing. Use tx, never db, inside fn: on SQLite
// a query on db would wait for the lock the transaction holds.
//
// PostgreSQL runs it at READ COMMITTED; SQLite's transactions are
// serialized. Code that reads, decides, then writes must let a unique
// index, not the read, have the last word, and expect ErrConflict.
//
// Inside an ambient transaction (ambient.go) fn runs in a savepoint of it
// and commits with it.
func (db *DB) WithTx(ctx context.Context, fn func(tx *Tx) error) error {
	if a := db.ambientOf(ctx); a != nil {
		return a.withTx(ctx, fn)
	}
	return db.withNewTx(ctx, fn)
}

func (db *DB) withNewTx(ctx context.Context, fn func(tx *Tx) error) (err error) {
	x, err := db.x.BeginTxx(ctx, nil)
	if err != nil {
		return mapError(err)
	}
	tx := &Tx{x: x, dialect: db.dialect, db: db}
	committed := false
	defer func() {
		if !committed {
			_ = x.Rollback()
		}
	}()
	if err := fn(tx); err != nil {
		return err
	}
	if err := x.Commit(); err != nil {
		return mapError(err)
	}
	committed = true
	return nil
}

// Tx is a transaction in progress. It is not safe for concurrent use, and
// it is valid only inside the WithTx call that made it.
type Tx struct {
	x       *sqlx.Tx
	dialect Dialect
	// db keeps the statements prepared (stmts.go); nil for a Tx made
	// elsewhere, which then runs every query as it is.
	db *DB
}

// Dialect is the engine behind the transaction.
func (tx *Tx) Dialect() Dialect { return tx.dialect }

// Get implements Querier.
func (tx *Tx) Get(ctx context.Context, dest any, query string, args ...any) error {
	query = tx.x.Rebind(query)
	s := tx.stmt(ctx, query)
	if base, ok := structDest(tx.x.Mapper, dest); ok && tx.db != nil {
		if s != nil {
			rows, err := s.QueryxContext(ctx, args...)
			return mapError(tx.db.scans.getRow(rows, err, dest, base, query))
		}
		rows, err := tx.x.QueryxContext(ctx, query, args...)
		return mapError(tx.db.scans.getRow(rows, err, dest, base, query))
	}
	if s != nil {
		return mapError(s.GetContext(ctx, dest, args...))
	}
	return mapError(tx.x.GetContext(ctx, dest, query, args...))
}

// Select implements Querier.
func (tx *Tx) Select(ctx context.Context, dest any, query string, args ...any) error {
	query = tx.x.Rebind(query)
	s := tx.stmt(ctx, query)
	if base, ok := sliceBase(tx.x.Mapper, dest); ok && tx.db != nil {
		if s != nil {
			rows, err := s.QueryxContext(ctx, args...)
			return mapError(tx.db.scans.selectRows(rows, err, dest, base, query))
		}
		rows, err := tx.x.QueryxContext(ctx, query, args...)
		return mapError(tx.db.scans.selectRows(rows, err, dest, base, query))
	}
	if s != nil {
		return mapError(s.SelectContext(ctx, dest, args...))
	}
	return mapError(tx.x.SelectContext(ctx, dest, query, args...))
}

// Exec implements Querier.
func (tx *Tx) Exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	query = tx.x.Rebind(query)
	if s := tx.stmt(ctx, query); s != nil {
		res, err := s.ExecContext(ctx, args...)
		return res, mapError(err)
	}
	res, err := tx.x.ExecContext(ctx, query, args...)
	return res, mapError(err)
}

// WithTx runs fn in this same transaction: a function that needs a
// transaction can be called alone (it gets its own) or inside a larger one
// (it joins it), and the whole commits or rolls back as one. There are no
// savepoints: an error fn returns fails the outer unit too.
func (tx *Tx) WithTx(_ context.Context, fn func(tx *Tx) error) error { return fn(tx) }

// ExpectOne turns an Exec result that changed no row into ErrNotFound: an
// UPDATE or DELETE scoped by id and organization that matched nothing means
// the row is not there for this caller.
func ExpectOne(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// SQL is the transaction's database/sql handle, for libraries that insert
// in the caller's transaction (the job queue enqueues a job in the same
// transaction as the row it is about).
func (tx *Tx) SQL() *sql.Tx { return tx.x.Tx }
