package store

import (
	"context"
	"io/fs"

	"testing/fstest"

	"github.com/pressly/goose/v3"
)

// MigrateFlatForTest migrates db from product files laid in one directory
// with the platform's, with one goose provider and no sources: how the
// binary migrated before each product kept its own files.
func MigrateFlatForTest(ctx context.Context, db *DB, product fs.FS) error {
	flat := map[string][]byte{}
	platform, _ := fs.Sub(migrationFiles, "migrations")
	for _, src := range []fs.FS{platform, product} {
		names, _ := fs.Glob(src, "*.sql")
		for _, n := range names {
			b, err := fs.ReadFile(src, n)
			if err != nil {
				return err
			}
			flat[n] = b
		}
	}
	dialect := goose.DialectSQLite3
	if db.dialect == Postgres {
		dialect = goose.DialectPostgres
	}
	p, err := goose.NewProvider(dialect, db.SQL(), dialectFS{mapFS(flat), dialectTokens[db.dialect]}, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		return err
	}
	_, err = p.Up(ctx)
	return err
}

// mapFS is a flat in-memory directory of files.
type mapFS map[string][]byte

func (m mapFS) Open(name string) (fs.File, error) {
	return fstestMap(m).Open(name)
}

func fstestMap(m mapFS) fstest.MapFS {
	out := fstest.MapFS{}
	for n, b := range m {
		out[n] = &fstest.MapFile{Data: b}
	}
	return out
}
