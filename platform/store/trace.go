package store

import (
	"context"
	"database/sql"
	"database/sql/driver"

	"github.com/XSAM/otelsql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// The database's spans (docs/operating.md "Traces") come from otelsql, a
// database/sql driver wrapper, around both engines' drivers. Only a query
// made inside a recorded trace gets a span (inTrace): the job queue's
// polling and the maintenance loops run outside any trace and would
// otherwise each start one of their own, every second. Prepares, rows and
// session resets are left out (a span per statement is enough), and the
// query text is recorded with its `?` placeholders — arguments never.

// openSQLite opens the SQLite pool, through otelsql when tp is set.
func openSQLite(dsn string, tp trace.TracerProvider) (*sql.DB, error) {
	if tp == nil {
		return sql.Open(sqliteDriverName, dsn)
	}
	// sql.Open connects to nothing: it finds the registered driver.
	db, err := sql.Open(sqliteDriverName, "")
	if err != nil {
		return nil, err
	}
	d := db.Driver()
	_ = db.Close()
	return otelsql.OpenDB(dsnConnector{dsn: dsn, d: d}, traceOptions(tp, "sqlite")...), nil
}

// openPostgres opens the PostgreSQL pool (pgx's database/sql driver),
// through otelsql when tp is set.
func openPostgres(cfg pgx.ConnConfig, tp trace.TracerProvider) *sql.DB {
	c := waitingConnector{Connector: stdlib.GetConnector(cfg, stdlib.OptionAfterConnect(scanTimesAsUTC)), wait: connectWait}
	if tp == nil {
		return sql.OpenDB(c)
	}
	return otelsql.OpenDB(c, traceOptions(tp, "postgresql")...)
}

func traceOptions(tp trace.TracerProvider, system string) []otelsql.Option {
	return []otelsql.Option{
		otelsql.WithTracerProvider(tp),
		otelsql.WithAttributes(attribute.String("db.system.name", system)),
		otelsql.WithSpanOptions(otelsql.SpanOptions{
			OmitConnResetSession: true,
			OmitConnPrepare:      true,
			OmitRows:             true,
			OmitConnectorConnect: true,
			SpanFilter:           inTrace,
		}),
	}
}

// inTrace lets otelsql make a span only under a recorded one.
func inTrace(ctx context.Context, _ otelsql.Method, _ string, _ []driver.NamedValue) bool {
	return trace.SpanFromContext(ctx).IsRecording()
}

// dsnConnector is the SQLite driver as a driver.Connector, which otelsql
// wraps (the caching driver has no OpenConnector of its own).
type dsnConnector struct {
	dsn string
	d   driver.Driver
}

func (c dsnConnector) Connect(context.Context) (driver.Conn, error) { return c.d.Open(c.dsn) }
func (c dsnConnector) Driver() driver.Driver                        { return c.d }
