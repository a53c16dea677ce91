package jobs

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

func TestMigrateIsIdempotent(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		first, err := Migrate(ctx, db, quiet)
		if err != nil {
			t.Fatal(err)
		}
		latest, err := latestVersion(db)
		if err != nil {
			t.Fatal(err)
		}
		if len(first) == 0 || first[len(first)-1] != latest {
			t.Errorf("first Migrate applied %v, want up to %d", first, latest)
		}
		again, err := Migrate(ctx, db, quiet)
		if err != nil || len(again) != 0 {
			t.Errorf("second Migrate = %v, %v; want nothing to do", again, err)
		}
		// New migrates too, and finds nothing to do.
		newQueue(t, db, false)
	})
}

// Replicas that start together: every migration succeeds, and each River
// version is applied exactly once between them.
func TestConcurrentMigrations(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		const n = 4
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			applied []int
			errs    []error
		)
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				v, err := Migrate(ctx, db, quiet)
				mu.Lock()
				defer mu.Unlock()
				applied = append(applied, v...)
				if err != nil {
					errs = append(errs, err)
				}
			}()
		}
		wg.Wait()
		if len(errs) > 0 {
			t.Fatalf("concurrent migrations failed: %v", errs)
		}
		slices.Sort(applied)
		if len(slices.Compact(slices.Clone(applied))) != len(applied) {
			t.Errorf("versions applied more than once: %v", applied)
		}
	})
}

// On PostgreSQL, River's tables go to the schema the URL's search_path
// selects, as the project's own do, so parallel test schemas (and
// side-by-side deployments) never share a job table.
func TestRiverTablesLandInTheSearchPathSchema(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.Postgres)
	ctx := context.Background()
	q := newQueue(t, db, false)
	var current string
	if err := db.Get(ctx, &current, "SELECT current_schema()"); err != nil {
		t.Fatal(err)
	}
	if q.schema != current {
		t.Errorf("River's schema %q, want the current schema %q", q.schema, current)
	}
	var where []string
	if err := db.Select(ctx, &where, "SELECT table_schema FROM information_schema.tables WHERE table_name = 'river_job'"); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(where, current) {
		t.Errorf("river_job is in %v, not in %q", where, current)
	}
	// A second database in another schema has its own, empty queue.
	other := storetest.Open(t, store.Postgres)
	q2 := newQueue(t, other, false)
	AddWorker(q, newRecordWorker())
	if _, err := q.Enqueue(ctx, recordArgs{}, nil); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := other.Get(ctx, &n, "SELECT COUNT(*) FROM "+q2.table("river_job")); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("the other schema sees %d jobs", n)
	}
}
