package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
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

// gateDB is a SQLite file with one table and a busy timeout of 50 ms, so
// that a writer that is not queued fails at once when another holds the lock.
func gateDB(t *testing.T) (*store.DB, string) {
	t.Helper()
	url := storetest.URL(t, store.SQLite) + "?_busy_timeout=50"
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

// TestSQLiteWritersOfAProcessQueue: while one transaction holds the write
// lock far longer than the busy timeout, the process's other writers —
// transactions, plain statements and a statement that returns what it
// wrote — wait their turn and all succeed, in the order they came.
func TestSQLiteWritersOfAProcessQueue(t *testing.T) {
	t.Parallel()
	db, _ := gateDB(t)
	ctx := context.Background()
	holder := lockHeld(t, db.SQL(), 400*time.Millisecond)
	const writers = 6
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			switch i % 3 {
			case 0:
				err = db.WithTx(ctx, func(tx *store.Tx) error {
					_, err := tx.Exec(ctx, `INSERT INTO gate_t (v) VALUES (?)`, fmt.Sprint("tx", i))
					return err
				})
			case 1:
				_, err = db.Exec(ctx, `INSERT INTO gate_t (v) VALUES (?)`, fmt.Sprint("exec", i))
			case 2:
				var v string
				err = db.Get(ctx, &v, `INSERT INTO gate_t (v) VALUES (?) RETURNING v`, fmt.Sprint("returning", i))
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("a queued writer failed: %v", err)
		}
	}
	if err := <-holder; err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.Get(ctx, &n, `SELECT COUNT(*) FROM gate_t`); err != nil || n != writers+1 {
		t.Fatalf("rows %d, %v; want %d", n, err, writers+1)
	}
}

// TestSQLiteWritersWithoutTheGateFail is the control of the test above:
// the same file through modernc's own driver, which has no gate, fails the
// second writer with SQLITE_BUSY once the busy timeout passes. If it ever
// stops failing, the test above no longer proves anything.
func TestSQLiteWritersWithoutTheGateFail(t *testing.T) {
	t.Parallel()
	_, url := gateDB(t)
	u, err := store.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", u.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	ctx := context.Background()
	holder := lockHeld(t, raw, 400*time.Millisecond)
	tx, err := raw.BeginTx(ctx, nil)
	if err == nil {
		_ = tx.Rollback()
		t.Fatal("an ungated writer began while another held the lock past the busy timeout")
	}
	if !strings.Contains(err.Error(), "SQLITE_BUSY") && !strings.Contains(err.Error(), "locked") {
		t.Fatalf("want SQLITE_BUSY, got %v", err)
	}
	if err := <-holder; err != nil {
		t.Fatal(err)
	}
}

// TestSQLiteGateWaitEndsWithTheContext: a writer whose context ends while
// it waits gets the context's error and leaves the queue, and the gate is
// not lost: the next writer gets in once the holder commits.
func TestSQLiteGateWaitEndsWithTheContext(t *testing.T) {
	t.Parallel()
	db, _ := gateDB(t)
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
