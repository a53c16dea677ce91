package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// lockHeld begins a write transaction on db and returns once it holds
// SQLite's write lock; it commits after hold, and the channel then
// answers how that went.
func lockHeld(t *testing.T, db *sql.DB, hold time.Duration) <-chan error {
	t.Helper()
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		tx, err := db.BeginTx(context.Background(), nil)
		if err == nil {
			if _, err = tx.Exec(`INSERT INTO gate_t (v) VALUES ('holder')`); err != nil {
				_ = tx.Rollback()
			}
		}
		close(started)
		if err != nil {
			done <- err
			return
		}
		time.Sleep(hold)
		done <- tx.Commit()
	}()
	<-started
	return done
}

// gateDB is a SQLite file with one table and the given busy timeout.
func gateDB(t *testing.T, busy time.Duration) (*store.DB, string) {
	t.Helper()
	url := storetest.URL(t, store.SQLite) + fmt.Sprintf("?_busy_timeout=%d", busy.Milliseconds())
	db, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if _, err := db.Exec(context.Background(), `CREATE TABLE gate_t (v TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	return db, url
}

// TestSQLiteGateWaitIsTheBusyTimeout: the queue keeps the busy timeout's
// meaning. A writer behind a transaction held longer than it fails, with
// "database is locked" as SQLITE_BUSY says, after waiting about that long
// and not until the holder lets go.
func TestSQLiteGateWaitIsTheBusyTimeout(t *testing.T) {
	t.Parallel()
	db, _ := gateDB(t, 100*time.Millisecond)
	ctx := context.Background()
	holder := lockHeld(t, db.SQL(), 3*time.Second)
	start := time.Now()
	_, err := db.Exec(ctx, `INSERT INTO gate_t (v) VALUES ('late')`)
	waited := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "database is locked") {
		t.Fatalf("want database is locked, got %v", err)
	}
	if waited < 100*time.Millisecond {
		t.Fatalf("failed after %s, before the busy timeout", waited)
	}
	if err := <-holder; err != nil {
		t.Fatal(err)
	}
	if waited > 3*time.Second {
		t.Fatalf("waited %s, as long as the holder", waited)
	}
}

// TestSQLiteGateWaitEndsWithTheContext: a writer whose context ends while
// it waits gets the context's error and leaves the queue, and the gate is
// not lost: the next writer gets in once the holder commits.
func TestSQLiteGateWaitEndsWithTheContext(t *testing.T) {
	t.Parallel()
	db, _ := gateDB(t, 10*time.Second)
	ctx := context.Background()
	holder := lockHeld(t, db.SQL(), 300*time.Millisecond)
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_, err := db.Exec(short, `INSERT INTO gate_t (v) VALUES ('late')`)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want the context's deadline, got %v", err)
	}
	if err := <-holder; err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, `INSERT INTO gate_t (v) VALUES ('next')`); err != nil {
		t.Fatalf("the gate was lost: %v", err)
	}
	// Reads never queue: one runs while a writer holds the gate.
	tx, err := db.SQL().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var n int
	readCtx, cancelRead := context.WithTimeout(ctx, 2*time.Second)
	defer cancelRead()
	if err := db.Get(readCtx, &n, `SELECT COUNT(*) FROM gate_t`); err != nil || n != 2 {
		t.Fatalf("a read waited or failed: %d, %v", n, err)
	}
}
