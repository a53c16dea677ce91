package riverschema_test

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"testing"

	"github.com/kobana/kobana-mcp/platform/jobs/riverschema"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

var quiet = slog.New(slog.DiscardHandler)

// withoutRiver runs fn on each engine over a database with the platform's
// tables and none of River's (storetest.Open's have River's already).
func withoutRiver(t *testing.T, fn func(t *testing.T, db *store.DB)) {
	t.Helper()
	for _, d := range storetest.Engines {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			db := storetest.OpenUnmigrated(t, d)
			if _, err := db.Migrate(context.Background()); err != nil {
				t.Fatal(err)
			}
			fn(t, db)
		})
	}
}

func TestMigrateIsIdempotent(t *testing.T) {
	t.Parallel()
	withoutRiver(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		first, err := riverschema.Migrate(ctx, db, quiet)
		if err != nil {
			t.Fatal(err)
		}
		latest, err := riverschema.Latest(db)
		if err != nil {
			t.Fatal(err)
		}
		if len(first) == 0 || first[len(first)-1] != latest {
			t.Errorf("first Migrate applied %v, want up to %d", first, latest)
		}
		again, err := riverschema.Migrate(ctx, db, quiet)
		if err != nil || len(again) != 0 {
			t.Errorf("second Migrate = %v, %v; want nothing to do", again, err)
		}
	})
}

// Replicas that start together: every migration succeeds, and each River
// version is applied exactly once between them.
func TestConcurrentMigrations(t *testing.T) {
	t.Parallel()
	withoutRiver(t, func(t *testing.T, db *store.DB) {
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
				v, err := riverschema.Migrate(ctx, db, quiet)
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
		latest, err := riverschema.Latest(db)
		if err != nil {
			t.Fatal(err)
		}
		if len(applied) == 0 || applied[len(applied)-1] != latest {
			t.Errorf("applied %v between them, want every version up to %d", applied, latest)
		}
	})
}
