// Package riverschema keeps River's own tables (river_job, river_leader,
// river_migration, …): the schema they live in and their migrations.
//
// It sits below the job queue (platform/jobs), which migrates them when a
// queue is made, so that what opens a database without a queue — the
// operator's `kobana-mcp migrate`, and the test databases of
// platform/store/storetest, which are made from a migrated template
// holding River's tables too — migrates them the same way without
// importing the queue.
package riverschema

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"regexp"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/kobana/kobana-mcp/platform/store"
)

// River's rule for a Schema: an unquoted identifier short enough that
// "<schema>.<notification topic>" fits PostgreSQL's 63-byte names.
var (
	schemaRE     = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
	schemaMaxLen = 63 - 1 - len("river_leadership")
)

// Schema is the schema River's tables live in: on PostgreSQL the
// connection's current schema (the first of its search_path that exists),
// where the project's own migrations put their tables, named explicitly
// so River never finds another schema's river_* tables further down the
// search_path; "" on SQLite (its main database). A schema name River
// would refuse falls back to "" (unqualified names, resolved through
// search_path like the project's own queries).
func Schema(ctx context.Context, db *store.DB) (string, error) {
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
	if !schemaRE.MatchString(schema.String) || len(schema.String) > schemaMaxLen {
		return "", nil
	}
	return schema.String, nil
}

// Migrate brings River's own tables up to the version this binary's River
// needs, in the schema Schema names, and returns the versions it applied
// (none when current, so running it at every start is cheap).
//
// River's migrations are separate from the project's (platform/store):
// River ships and versions them, and keeps their history in its own
// river_migration table. River takes no lock while migrating, so on
// PostgreSQL a session advisory lock, one per schema, makes replicas that
// start together migrate one after another: the first applies the
// versions, the others find nothing to do. On SQLite, migrations in one
// process are serialised by a mutex. Then the index of ours on river_job
// is made if it is missing (ensureOrgIndex).
func Migrate(ctx context.Context, db *store.DB, logger *slog.Logger) ([]int, error) {
	if logger == nil {
		logger = slog.Default()
	}
	schema, err := Schema(ctx, db)
	if err != nil {
		return nil, err
	}
	m, err := migrator(db, schema, logger)
	if err != nil {
		return nil, err
	}
	if db.Dialect() == store.Postgres {
		unlock, err := lock(ctx, db, schema)
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
	if err := ensureOrgIndex(ctx, db, schema); err != nil {
		return nil, err
	}
	var applied []int
	for _, v := range res.Versions {
		applied = append(applied, v.Version)
	}
	if len(applied) > 0 {
		logger.Info("jobs: migrated River's schema", "versions", applied, "database", db.String())
	}
	return applied, nil
}

// Latest is the newest River schema version this binary knows.
func Latest(db *store.DB) (int, error) {
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

// sqliteMigrations serialises River's migrations of SQLite databases in
// this process. River reads the applied versions before it takes the write
// lock, so two migrations at once would both apply the first missing
// version and one would fail. A SQLite file has one serving process, so a
// lock in the process is enough (several queues in one process — tests,
// a worker beside the server — are the case it covers).
var sqliteMigrations sync.Mutex

func migrator(db *store.DB, schema string, logger *slog.Logger) (*rivermigrate.Migrator[*sql.Tx], error) {
	m, err := rivermigrate.New(riverDriver(db), &rivermigrate.Config{Schema: schema, Logger: logger.With("component", "jobs")})
	if err != nil {
		return nil, fmt.Errorf("jobs: River migrations: %w", err)
	}
	return m, nil
}

// riverDriver is River's driver over the project's own pool, as the queue's
// (platform/jobs) without its LISTEN connection, which migrating does not
// need.
func riverDriver(db *store.DB) riverdriver.Driver[*sql.Tx] {
	if db.Dialect() == store.Postgres {
		return riverdatabasesql.New(db.SQL())
	}
	return riversqlite.New(db.SQL())
}

// lock takes a session advisory lock on a connection of its own and
// returns its release. The lock id is derived from the schema (and
// differs from platform/store's), so separate schemas — test runs,
// side-by-side deployments — do not wait on each other. It waits as long
// as ctx allows.
//
// The connection is opened outside the pool: River migrates through the
// pool, so a process whose migrations wait for the lock on pooled
// connections could leave the lock's holder none to migrate with (seen
// with four connections and four concurrent migrations: every one waited
// for ever). Outside it, a waiter holds one of the server's connections
// and none of the pool's.
func lock(ctx context.Context, db *store.DB, schema string) (func(), error) {
	h := fnv.New64a()
	h.Write([]byte("kobana-mcp river migrations\x00" + schema))
	id := int64(h.Sum64() >> 1)
	conn, err := pgx.ConnectConfig(ctx, db.PostgresConfig())
	if err != nil {
		return nil, fmt.Errorf("jobs: connect to %s: %w", db, err)
	}
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", id); err != nil {
		_ = conn.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("jobs: lock River's migrations on %s: %w", db, err)
	}
	return func() {
		// Closing the session releases its lock; unlock first so that the
		// next waiter need not wait for the server to notice the close.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_, _ = conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", id)
		_ = conn.Close(ctx)
	}, nil
}
