package store

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestWritesRows pins which statements outside a transaction take the
// write gate: a wrong "no" lets a writer race the others for SQLite's lock
// again, a wrong "yes" makes a read queue behind writers.
func TestWritesRows(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]bool{
		"INSERT INTO t VALUES (1)":                                 true,
		"  insert into t values (1)":                               true,
		"UPDATE t SET v = 1":                                       true,
		"delete from t":                                            true,
		"REPLACE INTO t VALUES (1)":                                true,
		"UPDATE river_job SET state = 'running' RETURNING *":       true,
		"WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x":       true,
		"SELECT * FROM t":                                          false,
		"select updated_at, inserted from t":                       false,
		"WITH x AS (SELECT 1) SELECT * FROM x":                     false,
		"PRAGMA busy_timeout":                                      false,
		"(SELECT 1) UNION (SELECT 2)":                              false,
		"SELECT id FROM t WHERE v = 'returning' /* not a write */": true, // a false yes: it only queues
	} {
		if got := writesRows(q); got != want {
			t.Errorf("writesRows(%q) = %v, want %v", q, got, want)
		}
	}
	if gateOf(":memory:") != nil || gateOf("file::memory:?cache=shared&mode=memory") != nil {
		t.Error("an in-memory database has a gate")
	}
	if gateOf("/tmp/a.db?_busy_timeout=1") != gateOf("/tmp/a.db?_txlock=immediate") {
		t.Error("two connections to one file have two gates")
	}
}

// TestSQLiteWritersOfAProcessQueue: while one transaction holds the write
// lock, the process's other writers — transactions, plain statements and
// a statement that returns what it wrote — wait in the file's queue, all
// succeed, and enter in the order they joined it. Each writer is started
// once the one before is seen waiting, so the order is the test's own.
func TestSQLiteWritersOfAProcessQueue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gate.db")
	db, err := Open(ctx, "sqlite:"+path+"?_busy_timeout=30000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, `CREATE TABLE gate_t (v TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	g := gateOf(path)
	if g == nil {
		t.Fatalf("no gate for %s", path)
	}
	release := make(chan struct{})
	holder := make(chan error, 1)
	held := make(chan struct{})
	go func() {
		holder <- db.WithTx(ctx, func(tx *Tx) error {
			if _, err := tx.Exec(ctx, `INSERT INTO gate_t (v) VALUES ('holder')`); err != nil {
				return err
			}
			close(held)
			<-release
			return nil
		})
	}()
	<-held
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
				err = db.WithTx(ctx, func(tx *Tx) error {
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
		// Joined means parked on the gate's channel: the waiting count
		// rises just before the send that queues the writer, and under
		// load the next writer could send first in between.
		for deadline := time.Now().Add(20 * time.Second); g.waiting.Load() != int64(i+1) || parkedAt(g) != i+1; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("writer %d never joined the queue (%d waiting, %d parked)", i, g.waiting.Load(), parkedAt(g))
			}
		}
	}
	close(release)
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
		t.Fatalf("writers entered as %s, want holder,0,1,2,3,4,5 (the order they joined)", got)
	}
}

// parkedAt counts the goroutines blocked in g's enter, on its channel:
// the queue Go keeps in the order the sends blocked. A goroutine's trace
// names enter with g's address as its first argument.
func parkedAt(g *gate) int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	frame := fmt.Sprintf("store.(*gate).enter(%p", g)
	parked := 0
	for _, stack := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(stack, "[select") && strings.Contains(stack, frame) {
			parked++
		}
	}
	return parked
}
