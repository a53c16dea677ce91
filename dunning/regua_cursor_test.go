package dunning

import (
	"context"
	"testing"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/regua"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// The step runner reads past the due enrollments of a paused plan: they
// stay as they are, and the due steps of active plans after them are
// taken in the same run, though every batch before them held only paused
// ones. The runner reads the due enrollments after a cursor
// (dunning/regua's runner_store.go), so a batch it could take nothing
// from must not end the run; in one job (RunDue) and in slice jobs.
func TestRunnerReadsPastPausedPlans(t *testing.T) {
	t.Parallel()
	const n, paused, batch = 20, 12, 5
	for _, sliced := range []bool{false, true} {
		name := map[bool]string{false: "one job", true: "slices"}[sliced]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
				ctx := context.Background()
				sink, cfg := startScaleSink(t)
				ne := newEnv(t, db, envOptions{channels: ledger.ChannelConfig{SMTP: cfg}, start: sp(2026, 3, 16, 12, 0), runnerBatch: batch})
				org := ne.Mine.ID
				ntSettings(t, db, org, map[string]ledger.ChannelSetting{ledger.ChannelEmail: {Enabled: true, Provider: ledger.ProviderSMTP}}, 0)
				seedReguaScale(t, db, org, n)
				// The first enrollments in the runner's order (all are due at
				// the same instant: by id) move to a paused plan.
				now, planID := store.Now(), store.NewID()
				if _, err := db.Exec(ctx, `INSERT INTO dunning_plans (id, organization_id, external_id, name, description, status, created_at, updated_at)
					VALUES (?, ?, NULL, 'Pausada', '', 'paused', ?, ?)`, planID, org, now, now); err != nil {
					t.Fatal(err)
				}
				if _, err := db.Exec(ctx, `UPDATE dunning_enrollments SET plan_id = ? WHERE id IN (SELECT id FROM dunning_enrollments ORDER BY id LIMIT ?)`, planID, paused); err != nil {
					t.Fatal(err)
				}
				if sliced {
					if _, err := ne.Jobs.Enqueue(ctx, regua.RunnerArgs{}, nil); err != nil {
						t.Fatal(err)
					}
					waitLong(t, "the step runner and its slices", func() bool {
						return scaleRows(t, db, `SELECT COUNT(*) FROM river_job WHERE kind IN ('dunning.step_runner', 'dunning.step_runner_slice')
							AND state NOT IN ('completed', 'discarded', 'cancelled')`) == 0
					})
					if k := scaleRows(t, db, `SELECT COUNT(*) FROM river_job WHERE kind = 'dunning.step_runner_slice'`); k == 0 {
						t.Fatal("the run was not handed to the slice jobs")
					}
				} else if k, err := ne.n.RunDue(ctx); err != nil || k != n-paused {
					t.Fatalf("RunDue decided %d steps (%v), want %d", k, err, n-paused)
				}
				waitLong(t, "every message at the relay", func() bool { total, _, _ := sink.counts(); return total >= n-paused })
				ne.settle(t)
				if k := scaleRows(t, db, `SELECT COUNT(*) FROM dunning_notifications`); k != n-paused {
					t.Errorf("%d notifications written, want %d", k, n-paused)
				}
				if k := scaleRows(t, db, `SELECT COUNT(*) FROM dunning_notifications WHERE enrollment_id IN (SELECT id FROM dunning_enrollments WHERE plan_id = '`+planID+`')`); k != 0 {
					t.Errorf("%d notifications of the paused plan", k)
				}
				if k := scaleRows(t, db, `SELECT COUNT(*) FROM dunning_enrollments WHERE status = 'active'`); k != paused {
					t.Errorf("%d enrollments still active, want the paused plan's %d", k, paused)
				}
			})
		})
	}
}
