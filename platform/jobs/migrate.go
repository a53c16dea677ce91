package jobs

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"regexp"
	"sync"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/kobana/kobana-mcp/platform/store"
)

// driverFor is River's driver over the project's own pool, so jobs and
// the rows they are about share one database, one pool and one
// transaction type (*sql.Tx) on both engines.
//
// On PostgreSQL a working queue also gets listen, a small pgx pool holding
// River's LISTEN connection: a job enqueued in a committed transaction, by
// this process or another, wakes a worker at once through NOTIFY instead
// of waiting for the next poll (docs/decisions.md, "Performance of the
// signed-in path"). Without it (an insert-only queue) River polls. SQLite
// has no LISTEN/NOTIFY; riversqlite imitates it with an outbox table
// (river_notification) that each working client polls every 50 ms.
func driverFor(db *store.DB, listen *pgxpool.Pool) riverdriver.Driver[*sql.Tx] {
	if db.Dialect() == store.Postgres {
		if listen != nil {
			return riverdatabasesql.NewWithPgxListener(db.SQL(), listen)
		}
		return riverdatabasesql.New(db.SQL())
	}
	return riversqlite.New(db.SQL())
}

// listenPool opens the pool of River's LISTEN connection for a working
// queue on PostgreSQL (nil otherwise).
func listenPool(ctx context.Context, db *store.DB, work bool) (*pgxpool.Pool, error) {
	cc := db.PostgresConfig()
	if !work || cc == nil {
		return nil, nil
	}
	pc, err := pgxpool.ParseConfig("")
	if err != nil {
		return nil, err
	}
	pc.ConnConfig = cc
	pc.MaxConns = 2
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("jobs: the LISTEN connection: %w", err)
	}
	return pool, nil
}

// River's rule for a Schema: an unquoted identifier short enough that
// "<schema>.<notification topic>" fits PostgreSQL's 63-byte names.
var (
	riverSchemaRE     = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
	riverSchemaMaxLen = 63 - 1 - len("river_leadership")
)

// riverSchema is the schema River's tables live in: on PostgreSQL the
// connection's current schema (the first of its search_path that exists),
// where the project's own migrations put their tables, named explicitly
// so River never finds another schema's river_* tables further down the
// search_path; "" on SQLite (its main database). A schema name River
// would refuse falls back to "" (unqualified names, resolved through
// search_path like the project's own queries).
func riverSchema(ctx context.Context, db *store.DB) (string, error) {
	if db.Dialect() != store.Postgres {
		return "", nil
	}
	var schema sql.NullString
	if err := db.Get(ctx, &schema, "SELECT current_schema()"); err != nil {
		return "", fmt.Errorf("jobs: current schema of %s: %w", db, err)
	}
	if !schema.Valid {
		return "", fmt.Errorf("jobs: %s: no schema of the search_path exists", db)
	}
	if !riverSchemaRE.MatchString(schema.String) || len(schema.String) > riverSchemaMaxLen {
		return "", nil
	}
	return schema.String, nil
}

// Migrate brings River's own tables (river_job, river_leader, …) up to
// the version this binary's River needs, and returns the versions it
// applied (none when current, so running it at every start is cheap).
// New calls it; `kobana-mcp migrate` may call it to migrate ahead of a
// deploy.
//
// River's migrations are separate from the project's (platform/store):
// River ships and versions them, and keeps their history in its own
// river_migration table. River takes no lock while migrating, so on
// PostgreSQL a session advisory lock, one per schema, makes replicas that
// start together migrate one after another: the first applies the
// versions, the others find nothing to do. On SQLite, migrations in one
// process are serialised by a mutex.
func Migrate(ctx context.Context, db *store.DB, logger *slog.Logger) ([]int, error) {
	if logger == nil {
		logger = slog.Default()
	}
	schema, err := riverSchema(ctx, db)
	if err != nil {
		return nil, err
	}
	return migrate(ctx, db, schema, logger)
}

// sqliteMigrations serialises River's migrations of SQLite databases in
// this process. River reads the applied versions before it takes the write
// lock, so two migrations at once would both apply the first missing
// version and one would fail. A SQLite file has one serving process, so a
// lock in the process is enough (several Queues in one process — tests,
// a worker beside the server — are the case it covers).
var sqliteMigrations sync.Mutex

func migrate(ctx context.Context, db *store.DB, schema string, logger *slog.Logger) (applied []int, err error) {
	m, err := migrator(db, schema, logger)
	if err != nil {
		return nil, err
	}
	if db.Dialect() == store.Postgres {
		unlock, err := lockMigrations(ctx, db, schema)
		if err != nil {
			return nil, err
		}
		defer unlock()
	} else {
		sqliteMigrations.Lock()
		defer sqliteMigrations.Unlock()
	}
	res, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return nil, fmt.Errorf("jobs: migrate River's schema on %s: %w", db, err)
	}
	for _, v := range res.Versions {
		applied = append(applied, v.Version)
	}
	if len(applied) > 0 {
		logger.Info("jobs: migrated River's schema", "versions", applied, "database", db.String())
	}
	return applied, nil
}

func migrator(db *store.DB, schema string, logger *slog.Logger) (*rivermigrate.Migrator[*sql.Tx], error) {
	m, err := rivermigrate.New(driverFor(db, nil), &rivermigrate.Config{Schema: schema, Logger: logger.With("component", "jobs")})
	if err != nil {
		return nil, fmt.Errorf("jobs: River migrations: %w", err)
	}
	return m, nil
}

// latestVersion is the newest River schema version this binary knows.
func latestVersion(db *store.DB) (int, error) {
	m, err := migrator(db, "", slog.New(slog.DiscardHandler))
	if err != nil {
		return 0, err
	}
	all := m.AllVersions()
	if len(all) == 0 {
		return 0, errors.New("jobs: River ships no migrations")
	}
	return all[len(all)-1].Version, nil
}

// lockMigrations takes a session advisory lock on a connection of its own
// and returns its release. The lock id is derived from the schema (and
// differs from platform/store's), so separate schemas — test runs,
// side-by-side deployments — do not wait on each other. It waits as long
// as ctx allows.
func lockMigrations(ctx context.Context, db *store.DB, schema string) (func(), error) {
	h := fnv.New64a()
	h.Write([]byte("kobana-mcp river migrations\x00" + schema))
	id := int64(h.Sum64() >> 1)
	conn, err := db.SQL().Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("jobs: connect to %s: %w", db, err)
	}
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", id); err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("jobs: lock River's migrations on %s: %w", db, err)
	}
	return func() {
		ctx := context.WithoutCancel(ctx)
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_unlock($1)", id); err != nil {
			// A session lock lives as long as the connection: one that
			// could not be unlocked must not go back to the pool holding it.
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		}
		_ = conn.Close()
	}, nil
}
