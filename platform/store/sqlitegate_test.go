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

// TestSQLiteWritersOfAProcessQueue: while one transaction holds the write
// lock, the process's other writers — transactions, plain statements and
// a statement that returns what it wrote — wait in a queue, all succeed,
// and enter in the order they came.
func TestSQLiteWritersOfAProcessQueue(t *testing.T) {
	t.Parallel()
	db, _ := gateDB(t, 10*time.Second)
	ctx := context.Background()
	holder := lockHeld(t, db.SQL(), 300*time.Millisecond)
	const writers = 6
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := fmt.Sprint(i)
			var err error
			switch i % 3 {
			case 0:
				err = db.WithTx(ctx, func(tx *store.Tx) error {
					_, err := tx.Exec(ctx, `INSERT INTO gate_t (v) VALUES (?)`, v)
					return err
				})
			case 1:
				_, err = db.Exec(ctx, `INSERT INTO gate_t (v) VALUES (?)`, v)
			case 2:
				var got string
				err = db.Get(ctx, &got, `INSERT INTO gate_t (v) VALUES (?) RETURNING v`, v)
			}
			errs <- err
		}()
		// The next writer comes after this one has joined the queue.
		time.Sleep(20 * time.Millisecond)
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
	var order []string
	if err := db.Select(ctx, &order, `SELECT v FROM gate_t ORDER BY rowid`); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(order, ","); got != "holder,0,1,2,3,4,5" {
		t.Fatalf("writers entered as %s, want holder,0,1,2,3,4,5 (the order they came)", got)
	}
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
