package jobs

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"

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
