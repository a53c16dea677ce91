package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
)

// TestRunParallelRunsEnginesTogether: RunParallel's engine subtests are
// running at the same moment (each waits for every other to start, which
// a serial run never reaches), and each has a database of its own.
func TestRunParallelRunsEnginesTogether(t *testing.T) {
	t.Parallel()
	for _, d := range Engines {
		if d == store.Postgres && reachable(PostgresURL()) != nil {
			t.Skip("PostgreSQL is not reachable: the engines cannot all run")
		}
	}
	var started sync.WaitGroup
	started.Add(len(Engines))
	all := make(chan struct{})
	go func() { started.Wait(); close(all) }()
	var mu sync.Mutex
	seen := map[*store.DB]bool{}
	t.Cleanup(func() { // after every subtest
		if len(seen) != len(Engines) {
			t.Errorf("%d distinct databases for %d engines", len(seen), len(Engines))
		}
	})
	RunParallel(t, nil, func(t *testing.T, db *store.DB) {
		mu.Lock()
		seen[db] = true
		mu.Unlock()
		started.Done()
		select {
		case <-all:
		case <-time.After(30 * time.Second):
			t.Fatal("the engines' subtests did not run at the same time")
		}
		// The database is migrated and the test's alone.
		if _, err := db.Exec(context.Background(), `CREATE TABLE only_mine (id INTEGER)`); err != nil {
			t.Fatal(err)
		}
	})
}
