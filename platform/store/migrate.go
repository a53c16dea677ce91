package store

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"hash/fnv"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

// migrationFiles is the platform's schema history, one numbered goose SQL
// file per step. Products keep theirs in their own folder and pass them to
// Migrate; all share one sequence of version numbers for the whole
// database, which keeps foreign keys between packages' tables simple (a
// product's table may reference organizations). The platform numbers its
// files below 100; each product takes a range of its own (docs/decisions.md
// "Migrations"). Add a file with the next number of your range; never edit
// one that has been released.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// Dialect tokens. The migrations are one set of files for both engines;
// where the engines cannot share a spelling, a file writes a token and it
// is replaced before goose reads the file. Keep this list tiny:
//
//	{{timestamp}}  an instant: TIMESTAMPTZ on PostgreSQL; TIMESTAMP on
//	               SQLite, the declared type for which modernc.org/sqlite
//	               reads the stored UTC text back as time.Time.
//	{{bytes}}      raw bytes kept exactly ([]byte): BYTEA on PostgreSQL,
//	               BLOB on SQLite (a received e-mail as it arrived).
var dialectTokens = map[Dialect]*strings.Replacer{
	SQLite:   strings.NewReplacer("{{timestamp}}", "TIMESTAMP", "{{bytes}}", "BLOB"),
	Postgres: strings.NewReplacer("{{timestamp}}", "TIMESTAMPTZ", "{{bytes}}", "BYTEA"),
}

// Migration is one schema step that Migrate applied.
type Migration struct {
	// Version is the number the file name starts with.
	Version int64
	// Name is the file name.
	Name string
	// Duration is how long it took.
	Duration time.Duration
}

// Migrate applies every migration the database has not seen yet, each in
// its own transaction, and returns those it applied (none when the schema
// is current, so running it at every start is cheap and safe). On
// PostgreSQL a session advisory lock, one per schema, lets replicas start
// together: one migrates, the others wait and then find nothing to do.
//
// sources are the products' own migration directories (each an fs.FS whose
// root holds NNNNN_name.sql files), applied in one ordered run with the
// platform's: one goose history, versions unique across all sources. A
// step numbered below one already applied (a product's file added after a
// later platform one) is applied too rather than refused, since ranges
// interleave.
func (db *DB) Migrate(ctx context.Context, sources ...fs.FS) ([]Migration, error) {
	p, err := db.migrator(ctx, sources)
	if err != nil {
		return nil, err
	}
	results, err := p.Up(ctx)
	var out []Migration
	for _, r := range results {
		if r.Error == nil {
			out = append(out, Migration{Version: r.Source.Version, Name: path.Base(r.Source.Path), Duration: r.Duration})
		}
	}
	if err != nil {
		return out, fmt.Errorf("store: migrate %s: %w", db.target, err)
	}
	return out, nil
}

// MigrateTo applies the migrations up to and including version, for tests
// of a migration over data an older schema held.
func (db *DB) MigrateTo(ctx context.Context, version int64, sources ...fs.FS) ([]Migration, error) {
	p, err := db.migrator(ctx, sources)
	if err != nil {
		return nil, err
	}
	results, err := p.UpTo(ctx, version)
	var out []Migration
	for _, r := range results {
		if r.Error == nil {
			out = append(out, Migration{Version: r.Source.Version, Name: path.Base(r.Source.Path), Duration: r.Duration})
		}
	}
	if err != nil {
		return out, fmt.Errorf("store: migrate %s to %d: %w", db.target, version, err)
	}
	return out, nil
}

// MigrateDown rolls the newest applied migration back, for tests that a
// step's Down works.
func (db *DB) MigrateDown(ctx context.Context, sources ...fs.FS) error {
	p, err := db.migrator(ctx, sources)
	if err != nil {
		return err
	}
	if _, err := p.Down(ctx); err != nil {
		return fmt.Errorf("store: migrate %s down: %w", db.target, err)
	}
	return nil
}

// SchemaVersion reports the version the database is at and the newest one
// this binary knows, for `kobana-mcp migrate` and health checks: a database
// ahead of the binary means an older binary is running against a newer
// schema.
func (db *DB) SchemaVersion(ctx context.Context, sources ...fs.FS) (current, latest int64, err error) {
	p, err := db.migrator(ctx, sources)
	if err != nil {
		return 0, 0, err
	}
	current, latest, err = p.GetVersions(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("store: schema version of %s: %w", db.target, err)
	}
	return current, latest, nil
}

// migrator is a goose provider over the embedded files as this engine
// spells them. It must not be closed: that would close db.
func (db *DB) migrator(ctx context.Context, sources []fs.FS) (*goose.Provider, error) {
	opts := []goose.ProviderOption{
		goose.WithDisableGlobalRegistry(true),
		// Platform steps are numbered below 00100 and each product's in a
		// range of its own, so a step added later (00070) sorts below
		// steps a database already has; without this, goose refuses to
		// migrate such a database ("missing migration"). Each step creates
		// its own tables, so applying one late is safe.
		goose.WithAllowOutofOrder(true),
	}
	gooseDialect := goose.DialectSQLite3
	if db.dialect == Postgres {
		gooseDialect = goose.DialectPostgres
		var schema string
		if err := db.Get(ctx, &schema, "SELECT current_schema()"); err != nil {
			return nil, fmt.Errorf("store: current schema: %w", err)
		}
		// Advisory locks are per database, not per schema: a lock id of
		// the schema's own lets migrations of separate schemas (test runs,
		// side-by-side deployments) proceed without waiting on each other.
		h := fnv.New64a()
		h.Write([]byte("kobana-mcp migrations\x00" + schema))
		locker, err := lock.NewPostgresSessionLocker(
			lock.WithLockID(int64(h.Sum64()>>1)),
			lock.WithLockTimeout(1, 300),
		)
		if err != nil {
			return nil, err
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	fsys, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	union, err := newUnionFS(append([]fs.FS{fsys}, sources...))
	if err != nil {
		return nil, err
	}
	p, err := goose.NewProvider(gooseDialect, db.SQL(), dialectFS{union, dialectTokens[db.dialect]}, opts...)
	if err != nil {
		return nil, fmt.Errorf("store: migrations: %w", err)
	}
	return p, nil
}

// dialectFS serves the migration files with the dialect tokens replaced.
// It exposes only Open, so fs.Glob and fs.ReadDir go through the embedded
// directory and every read of a .sql file through the replacement.
type dialectFS struct {
	base   fs.FS
	tokens *strings.Replacer
}

// Open implements fs.FS: directories as embedded, .sql files rewritten.
func (d dialectFS) Open(name string) (fs.File, error) {
	if !strings.HasSuffix(name, ".sql") {
		return d.base.Open(name)
	}
	b, err := fs.ReadFile(d.base, name)
	if err != nil {
		return nil, err
	}
	info, err := fs.Stat(d.base, name)
	if err != nil {
		return nil, err
	}
	text := d.tokens.Replace(string(b))
	if i := strings.Index(text, "{{"); i >= 0 {
		end := min(len(text), i+40)
		return nil, fmt.Errorf("store: migration %s: unknown dialect token at %q", name, text[i:end])
	}
	return &memFile{Reader: bytes.NewReader([]byte(text)), info: sizedInfo{info, int64(len(text))}}, nil
}

type memFile struct {
	*bytes.Reader
	info fs.FileInfo
}

// Stat implements fs.File, with the size of the rewritten text.
func (f *memFile) Stat() (fs.FileInfo, error) { return f.info, nil }

// Close implements fs.File; there is nothing to release.
func (f *memFile) Close() error { return nil }

type sizedInfo struct {
	fs.FileInfo
	size int64
}

// Size is the length of the rewritten text, not of the embedded file.
func (i sizedInfo) Size() int64 { return i.size }

// MigrationFiles is the migration directory (the platform's and those of
// sources) as PostgreSQL spells it, for tools and tests that list or read
// the steps.
func MigrationFiles(sources ...fs.FS) (fs.FS, error) {
	fsys, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	union, err := newUnionFS(append([]fs.FS{fsys}, sources...))
	if err != nil {
		return nil, err
	}
	return dialectFS{union, dialectTokens[Postgres]}, nil
}

// Dir is the migration directory dir inside an embedded file system, for a
// product's Migrations:
//
//	//go:embed migrations/*.sql
//	var migrationFiles embed.FS
//	var Migrations = store.Dir(migrationFiles, "migrations")
//
// It panics when dir is not there: the files are embedded, so that is a
// mistake of the program.
func Dir(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(fmt.Sprintf("store: migrations %s: %v", dir, err))
	}
	if _, err := fs.ReadDir(sub, "."); err != nil {
		panic(fmt.Sprintf("store: migrations %s: %v", dir, err))
	}
	return sub
}
