package jobs

import (
	"context"
	"slices"
	"testing"

	"github.com/kobana/kobana-mcp/platform/jobs/riverschema"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// A queue made over a test database finds River's tables current: the
// database's template holds them (storetest), as a migrated deployment's
// does.
func TestNewFindsRiverCurrent(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		applied, err := riverschema.Migrate(context.Background(), db, quiet)
		if err != nil || len(applied) != 0 {
			t.Fatalf("Migrate on a test database = %v, %v; want nothing to do", applied, err)
		}
		newQueue(t, db, false)
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
