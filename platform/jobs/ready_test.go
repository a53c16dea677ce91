package jobs

import (
	"context"
	"strings"
	"testing"

	"github.com/riverqueue/river/rivermigrate"

	"github.com/kobana/kobana-mcp/platform/jobs/riverschema"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

func TestReadyFollowsTheLifecycle(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		q := newQueue(t, db, true)
		AddWorker(q, newRecordWorker())
		if err := q.Ready(ctx); err == nil || !strings.Contains(err.Error(), "not started") {
			t.Errorf("Ready before Start = %v, want not started", err)
		}
		start(t, q)
		if err := q.Ready(ctx); err != nil {
			t.Errorf("Ready after Start: %v", err)
		}
		if err := q.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		if err := q.Ready(ctx); err == nil || !strings.Contains(err.Error(), "stopped") {
			t.Errorf("Ready after Stop = %v, want stopped", err)
		}
	})
}

func TestReadyChecksRiversSchema(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		q := newQueue(t, db, false) // insert-only: ready without Start
		if err := q.Ready(ctx); err != nil {
			t.Fatalf("Ready on a migrated database: %v", err)
		}
		m, err := rivermigrate.New(driverFor(db, nil), &rivermigrate.Config{Schema: q.schema, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		// An older schema (an older binary migrated it, say).
		if _, err := m.Migrate(ctx, rivermigrate.DirectionDown, &rivermigrate.MigrateOpts{MaxSteps: 1}); err != nil {
			t.Fatal(err)
		}
		if err := q.Ready(ctx); err == nil || !strings.Contains(err.Error(), "run the migrations") {
			t.Errorf("Ready one version behind = %v, want the versions named", err)
		}
		// No River tables at all.
		if _, err := m.Migrate(ctx, rivermigrate.DirectionDown, &rivermigrate.MigrateOpts{TargetVersion: -1}); err != nil {
			t.Fatal(err)
		}
		if err := q.Ready(ctx); err == nil || !strings.Contains(err.Error(), "not migrated") {
			t.Errorf("Ready without River's tables = %v, want not migrated", err)
		}
		applied, err := riverschema.Migrate(ctx, db, quiet)
		if err != nil {
			t.Fatal(err)
		}
		if len(applied) == 0 {
			t.Error("Migrate applied nothing to an empty schema")
		}
		if err := q.Ready(ctx); err != nil {
			t.Errorf("Ready after Migrate: %v", err)
		}
	})
}
