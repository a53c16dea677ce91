package store

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Target is what a database URL resolves to.
type Target struct {
	// Dialect is the engine.
	Dialect Dialect
	// DSN is what the driver is given: for SQLite the file name followed
	// by the connection parameters this package sets; for PostgreSQL the
	// URL unchanged.
	DSN string
	// Path is the SQLite file (empty for PostgreSQL).
	Path string
	// Redacted is the URL without its password, safe to print.
	Redacted string
	// MaxConns is the PostgreSQL URL's pool_max_conns: how many
	// connections this process's pool may open (0: DefaultMaxConns). It is
	// this package's parameter, not the server's, so it is not in DSN.
	MaxConns int
}

// DefaultMaxConns is how many connections a process's PostgreSQL pool
// opens at most when the URL does not say (pool_max_conns).
const DefaultMaxConns = 20

// maxConnsLimit bounds pool_max_conns: past it a value is a typo, not a
// plan (PostgreSQL's own default max_connections is 100).
const maxConnsLimit = 1000

// DefaultFile is the SQLite file name inside the data directory.
const DefaultFile = "kobana.db"

// DefaultURL is the database used when none is configured: the SQLite
// file DefaultFile in the data directory, so `serve` needs nothing
// installed.
func DefaultURL(dataDir string) string {
	return "sqlite:" + filepath.Join(dataDir, DefaultFile)
}

// sqliteDefaults are the connection parameters every SQLite connection gets
// unless the URL sets the same key (modernc.org/sqlite reads them on each
// new connection, so every pooled connection behaves alike):
//
//   - _busy_timeout: wait up to 5 s for a lock instead of failing at once;
//   - _foreign_keys: SQLite enforces REFERENCES only when asked to;
//   - _journal_mode=WAL: readers do not block the writer, nor it them;
//   - _synchronous=NORMAL: durable at each checkpoint, safe under WAL;
//   - _txlock=immediate: a transaction takes the write lock when it
//     begins, so two that read then write queue instead of deadlocking;
//   - _time_format/_timezone: instants are written as UTC text that sorts
//     in time order, and read back as UTC time.Time.
var sqliteDefaults = [][2]string{
	{"_busy_timeout", "5000"},
	{"_foreign_keys", "1"},
	{"_journal_mode", "WAL"},
	{"_synchronous", "NORMAL"},
	{"_txlock", "immediate"},
	{"_time_format", "sqlite"},
	{"_timezone", "UTC"},
}

// poolMaxConns is the URL parameter of Target.MaxConns.
const poolMaxConns = "pool_max_conns"

// ParseURL tells which engine a database URL names and how to reach it:
//
//	postgres://user:pass@host:5432/db?sslmode=disable&search_path=app
//	postgresql://…                       the same
//	sqlite:/var/lib/kobana/kobana.db     a SQLite file (sqlite:///abs and
//	sqlite:data/kobana.db                sqlite://rel work too)
//	/var/lib/kobana/kobana.db            a bare path is a SQLite file
//
// A PostgreSQL URL may carry pool_max_conns=N, the most connections this
// process opens (DefaultMaxConns when absent; pgxpool's name for the same
// setting): with several replicas on one server, their pools together must
// stay under its max_connections (docs/operating.md "PostgreSQL
// connections").
//
// A SQLite URL may carry modernc.org/sqlite parameters after `?`; one that
// names a key of the defaults replaces that default.
func ParseURL(raw string) (Target, error) {
	raw = strings.TrimSpace(raw)
	switch {
	case raw == "":
		return Target{}, errors.New("store: empty database URL")
	case strings.HasPrefix(raw, "postgres://"), strings.HasPrefix(raw, "postgresql://"):
		u, err := url.Parse(raw)
		if err != nil {
			return Target{}, fmt.Errorf("store: database URL: %w", err)
		}
		t := Target{Dialect: Postgres, DSN: raw, Redacted: u.Redacted()}
		q := u.Query()
		if q.Has(poolMaxConns) {
			v := q.Get(poolMaxConns)
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > maxConnsLimit {
				return Target{}, fmt.Errorf("store: database URL %s: %s=%q: want a whole number from 1 to %d", t.Redacted, poolMaxConns, v, maxConnsLimit)
			}
			t.MaxConns = n
			// The server would refuse it as an unknown setting.
			q.Del(poolMaxConns)
			u.RawQuery = q.Encode()
			t.DSN = u.String()
		}
		return t, nil
	}
	rest := raw
	if r, ok := strings.CutPrefix(raw, "sqlite:"); ok {
		rest = strings.TrimPrefix(r, "//")
	} else if i := strings.Index(raw, "://"); i > 0 {
		return Target{}, fmt.Errorf("store: database URL %q: unknown scheme %q (want postgres://, postgresql:// or sqlite:)", redactUnknown(raw), raw[:i])
	}
	path, query, _ := strings.Cut(rest, "?")
	if path == "" || path == ":memory:" || strings.HasPrefix(path, "file:") {
		// An in-memory database would be a different one on every pooled
		// connection; a file: URI would bypass the parameters set here.
		return Target{}, fmt.Errorf("store: database URL %q: want a SQLite file path", raw)
	}
	given, err := url.ParseQuery(query)
	if err != nil {
		return Target{}, fmt.Errorf("store: database URL %q: %w", raw, err)
	}
	params := url.Values{}
	for _, kv := range sqliteDefaults {
		if !given.Has(kv[0]) {
			params.Set(kv[0], kv[1])
		}
	}
	for k, vs := range given {
		params[k] = append(params[k], vs...)
	}
	return Target{
		Dialect:  SQLite,
		DSN:      path + "?" + params.Encode(),
		Path:     path,
		Redacted: "sqlite:" + path,
	}, nil
}

func redactUnknown(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	return "(unparsable URL)"
}

// prepareFile creates a SQLite file's directory and, when the file is
// new, the empty file itself, both private to the user: the database holds
// password hashes, and SQLite gives its -wal and -shm files the main
// file's permissions. A fresh data directory needs no set-up step.
func prepareFile(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return f.Close()
}
