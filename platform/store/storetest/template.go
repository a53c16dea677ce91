package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kobana/kobana-mcp/platform/jobs/riverschema"
	"github.com/kobana/kobana-mcp/platform/store"
)

// A migrated SQLite database is made once per test binary and set of
// migrations, and every test gets a copy of its file. Migrating one was
// most of what a database-backed test cost on SQLite: the platform's and a
// product's three hundred steps and River's eight, each ALTER TABLE of
// which makes SQLite re-read the whole schema — about 0.7 s of CPU under
// the race detector per database, a fifth of the Dunning package's tests
// (docs/decisions.md "Test databases from a template"). A copy is a file
// write. PostgreSQL keeps a fresh schema migrated per test: a database
// made from a template (CREATE DATABASE … TEMPLATE) cost the server as
// much CPU as migrating a schema, and more waiting, measured.

// sqliteTemplates holds one template per set of migrations, by key.
var sqliteTemplates sync.Map // string → *sqliteTemplate

type sqliteTemplate struct {
	once sync.Once
	file []byte
	err  error
}

// sqliteFromTemplate writes a migrated database, River's tables included,
// at path: a copy of the template for these migration sources, made on
// first use.
func sqliteFromTemplate(path string, sources []fs.FS) error {
	key, err := templateKey(sources)
	if err != nil {
		return err
	}
	v, _ := sqliteTemplates.LoadOrStore(key, &sqliteTemplate{})
	tmpl := v.(*sqliteTemplate)
	tmpl.once.Do(func() { tmpl.file, tmpl.err = makeSQLiteTemplate(sources) })
	if tmpl.err != nil {
		return tmpl.err
	}
	return os.WriteFile(path, tmpl.file, 0o600)
}

// templateKey names a set of migration sources by their files' names and
// contents, so two packages' tests (or one test's sources given in
// another order of calls) never share a template that differs.
func templateKey(sources []fs.FS) (string, error) {
	h := sha256.New()
	for i, src := range sources {
		if src == nil {
			continue
		}
		err := fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := fs.ReadFile(src, p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%d\x00%s\x00%d\x00", i, p, len(b))
			h.Write(b)
			return nil
		})
		if err != nil {
			return "", fmt.Errorf("storetest: reading migrations: %w", err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// makeSQLiteTemplate migrates a new database as serve does (the
// platform's steps, the sources', River's) and answers a compact copy of
// its file (VACUUM INTO: one file, whatever the write-ahead log holds).
func makeSQLiteTemplate(sources []fs.FS) ([]byte, error) {
	dir, err := os.MkdirTemp("", "kobana-sqlite-template-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	db, err := store.Open(ctx, "sqlite:"+filepath.Join(dir, store.DefaultFile))
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if _, err := db.Migrate(ctx, sources...); err != nil {
		return nil, fmt.Errorf("storetest: migrate the SQLite template: %w", err)
	}
	if _, err := riverschema.Migrate(ctx, db, slog.New(slog.DiscardHandler)); err != nil {
		return nil, fmt.Errorf("storetest: migrate the SQLite template: %w", err)
	}
	copyPath := filepath.Join(dir, "template.db")
	if _, err := db.SQL().ExecContext(ctx, "VACUUM INTO '"+strings.ReplaceAll(copyPath, "'", "''")+"'"); err != nil {
		return nil, fmt.Errorf("storetest: copy the SQLite template: %w", err)
	}
	return os.ReadFile(copyPath)
}

// openMigrated is a migrated, empty database of the given engine for the
// test, with River's tables: on SQLite a copy of the template, on
// PostgreSQL a new schema migrated.
func openMigrated(t testing.TB, d store.Dialect, o store.Options, sources []fs.FS) (*store.DB, string) {
	t.Helper()
	ctx := context.Background()
	url := URL(t, d)
	if d == store.SQLite {
		path := strings.TrimPrefix(url, "sqlite:")
		if err := sqliteFromTemplate(path, sources); err != nil {
			t.Fatalf("storetest: %v", err)
		}
	}
	db, err := store.OpenWith(ctx, url, o)
	if err != nil {
		t.Fatalf("open %s: %v", d, err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if d != store.SQLite {
		if _, err := db.Migrate(ctx, sources...); err != nil {
			t.Fatalf("migrate %s: %v", d, err)
		}
		if _, err := riverschema.Migrate(ctx, db, slog.New(slog.DiscardHandler)); err != nil {
			t.Fatalf("migrate %s: %v", d, err)
		}
	}
	return db, url
}
