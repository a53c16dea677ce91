package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"

	"go.opentelemetry.io/otel/trace"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit"
)

// The database settings every command that touches the database shares,
// serve included, so one environment configures them all.
const (
	dataDirHelp     = "where product data and generated secrets live"
	databaseURLHelp = "database: postgres://… (or postgresql://…; ?pool_max_conns=N: this process opens at most N connections, default 20) or sqlite:PATH; empty: the SQLite file " + store.DefaultFile + " in the data dir"
)

// dbFlags are the --data-dir and --database-url settings of a command.
type dbFlags struct{ dataDir, url *string }

func addDBFlags(s *settings) dbFlags {
	return dbFlags{
		dataDir: s.Add("data-dir", "KOBANA_DATA_DIR", "./data", dataDirHelp),
		url:     s.Add("database-url", "KOBANA_DATABASE_URL", "", databaseURLHelp),
	}
}

// databaseURL is the configured URL, or the SQLite file in the data dir.
func databaseURL(dataDir, configured string) string {
	if configured != "" {
		return configured
	}
	return store.DefaultURL(dataDir)
}

// openMigrated opens the database and brings its schema up to date, as
// every command does before using it: a binary never runs against a schema
// older than its code.
func openMigrated(ctx context.Context, dataDir, configured string) (*store.DB, []store.Migration, error) {
	return openMigratedWith(ctx, dataDir, configured, store.Options{})
}

// openMigratedWith is openMigrated with the store's options (the tracer of
// serve and worker).
func openMigratedWith(ctx context.Context, dataDir, configured string, o store.Options) (*store.DB, []store.Migration, error) {
	db, err := store.OpenWith(ctx, databaseURL(dataDir, configured), o)
	if err != nil {
		return nil, nil, err
	}
	applied, err := db.Migrate(ctx, productMigrations()...)
	if err != nil {
		_ = db.Close()
		return nil, nil, err
	}
	return db, applied, nil
}

// demoBanner starts the message serve prints when it created the demo
// account; tests look for it.
const demoBanner = "Demo organization"

// startDatabase is the storage step of serve and worker: open and
// migrate. The demo account is not created here but by ensureDemo, once
// serve has bound every listener: a first start that fails (a port taken)
// must not spend the one showing of the demo password.
func startDatabase(ctx context.Context, dataDir, configured string, tp trace.TracerProvider) (*store.DB, error) {
	db, _, err := openMigratedWith(ctx, dataDir, configured, store.Options{Tracer: tp})
	return db, err
}

// ensureDemo creates, on the first start (no organization yet), the demo
// organization and its owner, and prints, once, how to sign in.
func ensureDemo(ctx context.Context, db *store.DB, stdout io.Writer) error {
	demo, err := accounts.New(db, accounts.Options{}).EnsureDemo(ctx)
	if err != nil || demo == nil {
		return err
	}
	fmt.Fprintf(stdout, "%s %q created (first start). Sign in with\n  email:    %s\n  password: %s\n"+
		"The password is shown only now; change it with: kobana-mcp users set-password --email %s\n",
		demoBanner, demo.Organization.Name, demo.Email, demo.Password, demo.Email)
	return nil
}

// openDataDir is how serve and worker start: the data directory made, the
// deployment secrets loaded (or generated there once), the database opened
// and migrated. A non-zero code is the exit status, its reason already
// written to stderr; otherwise the caller closes the database.
func openDataDir(ctx context.Context, dataDir, secrets, dbURL string, tp trace.TracerProvider, stderr io.Writer) (*mcp.StateSealer, []byte, *store.DB, int) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		fmt.Fprintln(stderr, "kobana-mcp:", err)
		return nil, nil, nil, 1
	}
	sealer, secret, err := loadSealer(secrets, dataDir)
	if err != nil {
		fmt.Fprintln(stderr, "kobana-mcp:", err)
		return nil, nil, nil, 2
	}
	db, err := startDatabase(ctx, dataDir, dbURL, tp)
	if err != nil {
		fmt.Fprintln(stderr, "kobana-mcp:", err)
		return nil, nil, nil, 1
	}
	return sealer, secret, db, 0
}

// productMigrations are the framework's migrations kept beside their
// owners (productkit.FrameworkMigrations) and every product's own: the
// binary always migrates all of them, whichever products it serves, so one
// database has one schema whatever --products says.
func productMigrations() []fs.FS {
	out := productkit.FrameworkMigrations()
	for _, p := range products() {
		if p.Migrations != nil {
			out = append(out, p.Migrations)
		}
	}
	return out
}
