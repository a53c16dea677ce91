package store_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

func TestParseURL(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in      string
		dialect store.Dialect
		path    string
		dsnHas  []string
		redact  string
		maxConn int
		dsnNot  string
		wantErr bool
	}{
		{in: "sqlite:/var/lib/k/kobana.db", dialect: store.SQLite, path: "/var/lib/k/kobana.db",
			dsnHas: []string{"_foreign_keys=1", "_journal_mode=WAL", "_busy_timeout=5000", "_txlock=immediate"}},
		{in: "sqlite:///abs/x.db", dialect: store.SQLite, path: "/abs/x.db"},
		{in: "sqlite://rel/x.db", dialect: store.SQLite, path: "rel/x.db"},
		{in: "data/kobana.db", dialect: store.SQLite, path: "data/kobana.db", redact: "sqlite:data/kobana.db"},
		{in: "sqlite:x.db?_busy_timeout=100", dialect: store.SQLite, path: "x.db", dsnHas: []string{"_busy_timeout=100&"}},
		{in: "postgres://u:secret@h:5432/db?sslmode=disable", dialect: store.Postgres, redact: "postgres://u:xxxxx@h:5432/db?sslmode=disable"},
		{in: "postgresql://h/db", dialect: store.Postgres},
		{in: "postgres://u:p@h/db?sslmode=disable&pool_max_conns=7", dialect: store.Postgres, maxConn: 7,
			dsnHas: []string{"sslmode=disable", "u:p@h/db"}, dsnNot: "pool_max_conns"},
		{in: "postgres://u:p@h/db?pool_max_conns=0", wantErr: true},
		{in: "postgres://u:p@h/db?pool_max_conns=1001", wantErr: true},
		{in: "postgres://u:p@h/db?pool_max_conns=ten", wantErr: true},
		{in: "postgres://u:p@h/db?pool_max_conns=", wantErr: true},
		{in: "", wantErr: true},
		{in: "sqlite::memory:", wantErr: true},
		{in: "sqlite:", wantErr: true},
		{in: "mysql://u:p@h/db", wantErr: true},
	}
	for _, c := range cases {
		got, err := store.ParseURL(c.in)
		if c.wantErr {
			if err == nil {
				t.Errorf("ParseURL(%q): want an error, got %+v", c.in, got)
			} else if strings.Contains(err.Error(), ":p@") {
				t.Errorf("ParseURL(%q): error leaks the password: %v", c.in, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseURL(%q): %v", c.in, err)
			continue
		}
		if got.Dialect != c.dialect || got.Path != c.path {
			t.Errorf("ParseURL(%q) = %+v", c.in, got)
		}
		for _, s := range c.dsnHas {
			if !strings.Contains(got.DSN, s) {
				t.Errorf("ParseURL(%q).DSN = %q, want it to contain %q", c.in, got.DSN, s)
			}
		}
		if got.MaxConns != c.maxConn {
			t.Errorf("ParseURL(%q).MaxConns = %d, want %d", c.in, got.MaxConns, c.maxConn)
		}
		if c.dsnNot != "" && strings.Contains(got.DSN, c.dsnNot) {
			t.Errorf("ParseURL(%q).DSN = %q, want no %q", c.in, got.DSN, c.dsnNot)
		}
		if c.redact != "" && got.Redacted != c.redact {
			t.Errorf("ParseURL(%q).Redacted = %q, want %q", c.in, got.Redacted, c.redact)
		}
	}
	if got, _ := store.ParseURL("sqlite:x.db?_busy_timeout=100"); strings.Count(got.DSN, "_busy_timeout") != 1 {
		t.Errorf("a URL parameter must replace the default: %q", got.DSN)
	}
}

func migrationCount(t *testing.T) int64 {
	t.Helper()
	fsys, err := store.MigrationFiles()
	if err != nil {
		t.Fatal(err)
	}
	files, err := fs.Glob(fsys, "*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("migration files: %v %v", files, err)
	}
	return int64(len(files))
}

func TestMigrateFromEmptyIsIdempotent(t *testing.T) {
	t.Parallel()
	n := migrationCount(t)
	for _, d := range storetest.Engines {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := storetest.OpenUnmigrated(t, d)
			cur, latest, err := db.SchemaVersion(ctx)
			if err != nil || cur != 0 || latest < n {
				t.Fatalf("fresh database: version %d of %d, %v", cur, latest, err)
			}
			applied, err := db.Migrate(ctx)
			if err != nil || int64(len(applied)) != n {
				t.Fatalf("first migrate: %v (applied %v)", err, applied)
			}
			if applied[0].Version != 1 || !strings.HasSuffix(applied[0].Name, ".sql") {
				t.Fatalf("first migration: %+v", applied[0])
			}
			again, err := db.Migrate(ctx)
			if err != nil || len(again) != 0 {
				t.Fatalf("second migrate: %v (applied %v)", err, again)
			}
			if cur, latest, err = db.SchemaVersion(ctx); err != nil || cur != latest {
				t.Fatalf("after migrate: version %d of %d, %v", cur, latest, err)
			}
			var count int
			if err := db.Get(ctx, &count, "SELECT COUNT(*) FROM organizations"); err != nil || count != 0 {
				t.Fatalf("organizations after migrate: %d, %v", count, err)
			}
		})
	}
}

// TestConcurrentMigrations starts several replicas on one fresh PostgreSQL
// schema at once: the advisory lock lets one migrate and the rest find the
// schema current, and none fails.
func TestConcurrentMigrations(t *testing.T) {
	t.Parallel()
	if !slices.Contains(storetest.Engines, store.Postgres) {
		t.Skip("KOBANA_TEST_ENGINES leaves PostgreSQL out")
	}
	n := migrationCount(t)
	url := storetest.URL(t, store.Postgres)
	ctx := context.Background()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		total int64
	)
	for range 3 {
		wg.Go(func() {
			db, err := store.Open(ctx, url)
			if err != nil {
				t.Error(err)
				return
			}
			defer db.Close()
			applied, err := db.Migrate(ctx)
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			total += int64(len(applied))
			mu.Unlock()
		})
	}
	wg.Wait()
	if total != n {
		t.Fatalf("replicas applied %d migrations in all, want %d", total, n)
	}
}

type org struct {
	ID        string    `db:"id"`
	Name      string    `db:"name"`
	CreatedAt time.Time `db:"created_at"`
}

func insertOrg(ctx context.Context, q store.Querier, id, name string) error {
	_, err := q.Exec(ctx, "INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)", id, name, store.Now())
	return err
}

func TestTransactions(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		count := func() int {
			var n int
			if err := db.Get(ctx, &n, "SELECT COUNT(*) FROM organizations"); err != nil {
				t.Fatal(err)
			}
			return n
		}
		// Commit.
		if err := db.WithTx(ctx, func(tx *store.Tx) error { return insertOrg(ctx, tx, store.NewID(), "a") }); err != nil {
			t.Fatal(err)
		}
		if count() != 1 {
			t.Fatal("committed row missing")
		}
		// An error rolls back, and is returned as is.
		boom := errors.New("boom")
		err := db.WithTx(ctx, func(tx *store.Tx) error {
			if err := insertOrg(ctx, tx, store.NewID(), "b"); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) || count() != 1 {
			t.Fatalf("rollback on error: %v, %d rows", err, count())
		}
		// A panic rolls back and goes on.
		func() {
			defer func() {
				if recover() == nil {
					t.Fatal("panic swallowed")
				}
			}()
			_ = db.WithTx(ctx, func(tx *store.Tx) error {
				_ = insertOrg(ctx, tx, store.NewID(), "c")
				panic("boom")
			})
		}()
		if count() != 1 {
			t.Fatal("a panic left its row")
		}
		// A nested WithTx joins the outer transaction: the outer error
		// undoes the inner work too.
		err = db.WithTx(ctx, func(tx *store.Tx) error {
			if err := tx.WithTx(ctx, func(inner *store.Tx) error { return insertOrg(ctx, inner, store.NewID(), "d") }); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) || count() != 1 {
			t.Fatalf("nested: %v, %d rows", err, count())
		}
	})
}

func TestErrorsAreTheSameOnBothEngines(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		var o org
		if err := db.Get(ctx, &o, "SELECT id, name, created_at FROM organizations WHERE id = ?", store.NewID()); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("missing row: %v", err)
		}
		id := store.NewID()
		if err := insertOrg(ctx, db, id, "a"); err != nil {
			t.Fatal(err)
		}
		if err := insertOrg(ctx, db, id, "again"); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("duplicate primary key: %v", err)
		}
		_, err := db.Exec(ctx, `INSERT INTO workspaces (id, organization_id, external_id, label, email_prefix, created_at)
			VALUES (?, ?, ?, ?, ?, ?)`, store.NewID(), store.NewID(), "x", "x", "x", store.Now())
		if !errors.Is(err, store.ErrConflict) {
			t.Fatalf("foreign key to no row: %v", err)
		}
		err = store.ExpectOne(db.Exec(ctx, "UPDATE organizations SET name = ? WHERE id = ?", "b", store.NewID()))
		if !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("update of nothing: %v", err)
		}
		if err := store.ExpectOne(db.Exec(ctx, "UPDATE organizations SET name = ? WHERE id = ?", "b", id)); err != nil {
			t.Fatal(err)
		}
		// A statement error that is neither stays itself.
		if _, err := db.Exec(ctx, "INSERT INTO no_such_table VALUES (1)"); err == nil || errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrNotFound) {
			t.Fatalf("syntax error mapped to a sentinel: %v", err)
		}
	})
}

func TestTimesRoundTripInUTC(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		id := store.NewID()
		now := store.Now()
		if _, err := db.Exec(ctx, "INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)", id, "t", now); err != nil {
			t.Fatal(err)
		}
		var o org
		if err := db.Get(ctx, &o, "SELECT id, name, created_at FROM organizations WHERE id = ?", id); err != nil {
			t.Fatal(err)
		}
		if !o.CreatedAt.Equal(now) || o.CreatedAt.Location() != time.UTC {
			t.Fatalf("wrote %v, read %v (%v)", now, o.CreatedAt, o.CreatedAt.Location())
		}
		// NULL and non-NULL instants into a pointer; ordering by instant.
		later := now.Add(1500 * time.Millisecond)
		for i, ts := range []*time.Time{nil, &later} {
			_, err := db.Exec(ctx, `INSERT INTO workspaces (id, organization_id, external_id, label, email_prefix, created_at, deleted_at)
				VALUES (?, ?, ?, ?, ?, ?, ?)`, store.NewID(), id, string(rune('a'+i)), "l", "p", now.Add(time.Duration(i)*time.Microsecond), ts)
			if err != nil {
				t.Fatal(err)
			}
		}
		var rows []struct {
			DeletedAt *time.Time `db:"deleted_at"`
		}
		if err := db.Select(ctx, &rows, "SELECT deleted_at FROM workspaces WHERE organization_id = ? ORDER BY created_at", id); err != nil {
			t.Fatal(err)
		}
		if len(rows) != 2 || rows[0].DeletedAt != nil || rows[1].DeletedAt == nil || !rows[1].DeletedAt.Equal(later) {
			t.Fatalf("deleted_at: %+v", rows)
		}
		var n int
		if err := db.Get(ctx, &n, "SELECT COUNT(*) FROM workspaces WHERE deleted_at > ?", now); err != nil || n != 1 {
			t.Fatalf("comparing instants: %d, %v", n, err)
		}
	})
}

func TestSQLiteConnectionSettings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "new", "dir", store.DefaultFile)
	db, err := store.Open(ctx, "sqlite:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("database file: %v %v; want mode 0600", fi.Mode(), err)
	}
	var mode string
	var fk, busy int
	if err := db.Get(ctx, &mode, "PRAGMA journal_mode"); err != nil || mode != "wal" {
		t.Fatalf("journal_mode %q, %v", mode, err)
	}
	if err := db.Get(ctx, &fk, "PRAGMA foreign_keys"); err != nil || fk != 1 {
		t.Fatalf("foreign_keys %d, %v", fk, err)
	}
	if err := db.Get(ctx, &busy, "PRAGMA busy_timeout"); err != nil || busy != 5000 {
		t.Fatalf("busy_timeout %d, %v", busy, err)
	}
}

func TestIDsAreTimeOrderedUUIDs(t *testing.T) {
	t.Parallel()
	a, b := store.NewID(), store.NewID()
	if len(a) != 36 || a[14] != '7' || a >= b {
		t.Fatalf("ids %s, %s", a, b)
	}
}
