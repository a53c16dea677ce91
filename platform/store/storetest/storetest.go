// Package storetest opens real databases for tests, on both engines the
// project supports, so every query is tested the way it runs in
// production: SQLite in a temporary directory, and PostgreSQL in a schema
// of its own that is created for the test and dropped after it, so
// parallel packages, parallel runs and CI reruns never see each other's
// rows.
//
// PostgreSQL is reached at KOBANA_TEST_POSTGRES_URL, by default
// postgres://postgres@127.0.0.1:5432/test?sslmode=disable. When it does not
// answer, the PostgreSQL variant fails under CI=true (a CI machine is
// expected to have it) and is skipped with a message elsewhere.
// KOBANA_TEST_ENGINES=sqlite (a comma-separated list) narrows the engines
// for a quick local loop.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver, for schema set-up

	"github.com/kobana/kobana-mcp/platform/store"
)

// DefaultPostgresURL is the server tests use when KOBANA_TEST_POSTGRES_URL
// is unset: the machine's own PostgreSQL with trust authentication.
const DefaultPostgresURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// Engines lists the engines every storage test runs against: both, or
// those KOBANA_TEST_ENGINES names (comma-separated, e.g. "sqlite") for a
// quick local loop.
var Engines = engines(os.Getenv("KOBANA_TEST_ENGINES"))

func engines(list string) []store.Dialect {
	if strings.TrimSpace(list) == "" {
		return []store.Dialect{store.SQLite, store.Postgres}
	}
	var out []store.Dialect
	for _, e := range strings.Split(list, ",") {
		out = append(out, store.Dialect(strings.TrimSpace(e)))
	}
	return out
}

// PostgresURL is the server tests use: KOBANA_TEST_POSTGRES_URL or
// DefaultPostgresURL.
func PostgresURL() string {
	if u := os.Getenv("KOBANA_TEST_POSTGRES_URL"); u != "" {
		return u
	}
	return DefaultPostgresURL
}

// Run runs fn once per engine, each as a subtest named after it, with a
// freshly migrated, empty database (the platform's tables).
func Run(t *testing.T, fn func(t *testing.T, db *store.DB)) {
	t.Helper()
	RunWith(t, nil, fn)
}

// RunWith is Run with a product's own migrations applied too (its
// Migrations), for the product's storage tests.
func RunWith(t *testing.T, migrations fs.FS, fn func(t *testing.T, db *store.DB)) {
	t.Helper()
	for _, d := range Engines {
		t.Run(string(d), func(t *testing.T) { fn(t, Open(t, d, migrations)) })
	}
}

// RunParallel is RunWith whose engine subtests run in parallel, with each
// other and with the package's other parallel tests: each subtest has a
// database of its own (a SQLite file in its own directory, a PostgreSQL
// schema of its own), so nothing is shared but the server. The subtests
// call t.Parallel before their database is opened, so opening and
// migrating it is parallel too. Call it from a test that is parallel
// itself (t.Parallel first); the parent returns before fn runs, so it must
// not defer anything fn needs.
func RunParallel(t *testing.T, migrations fs.FS, fn func(t *testing.T, db *store.DB)) {
	t.Helper()
	for _, d := range Engines {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			fn(t, Open(t, d, migrations))
		})
	}
}

// Open returns a migrated, empty database of the given engine — the
// platform's tables, the sources' (products' own migrations) and the job
// queue's (River's), as serve migrates it — closed (and for PostgreSQL its
// schema dropped) when the test ends. On SQLite it is a copy of a
// template migrated once per test binary (template.go).
func Open(t testing.TB, d store.Dialect, sources ...fs.FS) *store.DB {
	t.Helper()
	db, _ := openMigrated(t, d, store.Options{}, sources)
	return db
}

// OpenWith is Open with the store's options (a traced database:
// store.Options.Tracer).
func OpenWith(t testing.TB, d store.Dialect, o store.Options, sources ...fs.FS) *store.DB {
	t.Helper()
	db, _ := openMigrated(t, d, o, sources)
	return db
}

// OpenShared is Open that also answers the database's URL, for tests that
// hand the same database to another process (the kill tests' children).
func OpenShared(t testing.TB, d store.Dialect, sources ...fs.FS) (*store.DB, string) {
	t.Helper()
	return openMigrated(t, d, store.Options{}, sources)
}

// OpenUnmigrated is Open without the migrations, for tests of migrating.
func OpenUnmigrated(t testing.TB, d store.Dialect) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), URL(t, d))
	if err != nil {
		t.Fatalf("open %s: %v", d, err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// URL is the URL of a new, empty database of the given engine that lives as
// long as the test: a SQLite file in t.TempDir(), or a new PostgreSQL
// schema selected by the URL's search_path. For tests that open the
// database themselves, such as the command's.
func URL(t testing.TB, d store.Dialect) string {
	t.Helper()
	switch d {
	case store.SQLite:
		return "sqlite:" + filepath.Join(sqliteDir(t), store.DefaultFile)
	case store.Postgres:
		return postgresSchema(t)
	}
	t.Fatalf("storetest: unknown engine %q", d)
	return ""
}

// sqliteDir is a directory that lives as long as the test, for one SQLite
// database. Unlike t.TempDir its removal tries again for a while when the
// directory is not empty yet: database/sql opens connections in a goroutine
// of its own that DB.Close does not wait for, so a connection asked for
// just before the close can still open the file — and create its -wal and
// -shm files — after the test has closed the database (seen on a loaded
// host as "TempDir RemoveAll cleanup: … directory not empty").
func sqliteDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "kobana-sqlite-")
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	t.Cleanup(func() {
		var err error
		for wait := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if err = os.RemoveAll(dir); err == nil || time.Now().After(wait) {
				break
			}
		}
		if err != nil {
			t.Errorf("storetest: removing the SQLite directory: %v", err)
		}
	})
	return dir
}

var (
	reachOnce sync.Once
	reachErr  error
)

// reachable pings the server once per test binary, so an absent server
// costs one connect timeout, not one per test.
func reachable(base string) error {
	reachOnce.Do(func() {
		admin, err := sql.Open("pgx", WithParam(base, "connect_timeout", "5"))
		if err != nil {
			reachErr = err
			return
		}
		defer admin.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		reachErr = admin.PingContext(ctx)
	})
	return reachErr
}

// postgresSchema creates a schema with a random name, registers its drop,
// and returns the base URL with search_path set to it.
func postgresSchema(t testing.TB) string {
	t.Helper()
	base := PostgresURL()
	if err := reachable(base); err != nil {
		msg := fmt.Sprintf("PostgreSQL at %s is not reachable: %v (set KOBANA_TEST_POSTGRES_URL, or start the server)", redact(base), err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + "; CI=true requires it")
		}
		t.Skip(msg + "; skipping the PostgreSQL variant outside CI")
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	schema := "kobana_test_" + hex.EncodeToString(b)
	admin, err := adminPool(base)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema %s: %v", schema, err)
	}
	t.Cleanup(func() {
		// Registered before the test's own cleanups, so it runs after them:
		// the test's connections are closed by then.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	u := WithParam(base, "search_path", schema)
	if _, bench := t.(*testing.B); !bench {
		u = WithParam(u, "pool_max_conns", strconv.Itoa(TestMaxConns))
	}
	return u
}

// TestMaxConns is the pool_max_conns of a test's PostgreSQL URL (URL), so
// of every pool a test opens on it, the servers and workers a test starts
// from it included. The server allows a hundred connections and go test
// runs two packages of eight tests at once, some tests with several
// processes: at serve's twenty (ten kept idle) a CI run went past the
// hundred more than once ("too many clients", docs/decisions.md "Test
// pools of four connections"). A benchmark runs alone and measures serve's
// pool, so its URL keeps serve's default.
const TestMaxConns = 4

var (
	adminMu    sync.Mutex
	adminPools = map[string]*sql.DB{}
)

// adminPool is the one pool of this test binary that creates and drops
// test schemas on the server at base: a pool per test held a connection
// for the test's whole life, and PostgreSQL allows a hundred — go test
// running three packages at once reached "too many clients"
// (docs/decisions.md "Two packages at once, still"). It lives as long as
// the process.
func adminPool(base string) (*sql.DB, error) {
	adminMu.Lock()
	defer adminMu.Unlock()
	if db := adminPools[base]; db != nil {
		return db, nil
	}
	db, err := sql.Open("pgx", base)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(1)
	adminPools[base] = db
	return db, nil
}

// WithParam is the URL raw with its query parameter key set to value
// (removed when value is empty); raw itself when it does not parse.
func WithParam(raw, key, value string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	q := u.Query()
	if value == "" {
		q.Del(key)
	} else {
		q.Set(key, value)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

func redact(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	return "(unparsable URL)"
}
