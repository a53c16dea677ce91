package dunning

import (
	"context"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/regua"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// The quiet hours hold when a run is handed to the slice jobs
// (dunning/regua's runner_slices.go): 120 steps due at 10:00 found at
// 21:00, inside the default quiet hours (20:00–08:00), send nothing and
// wait for 08:00 the next day; at 08:01 every one leaves, each once.
func TestReguaQuietHoursAtScale(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		const n = 120
		sink, cfg := startScaleSink(t)
		ne := newEnv(t, db, envOptions{channels: ledger.ChannelConfig{SMTP: cfg}, start: sp(2026, 3, 16, 21, 0), runnerBatch: 20})
		ntSettings(t, db, ne.Mine.ID, map[string]ledger.ChannelSetting{ledger.ChannelEmail: {Enabled: true, Provider: ledger.ProviderSMTP}}, 0)
		ne.secondQueue(t)
		seedReguaScale(t, db, ne.Mine.ID, n)
		ne.runSlices(t)
		opens := sp(2026, 3, 17, 8, 0).UTC()
		if k := scaleRows(t, db, `SELECT COUNT(*) FROM dunning_notifications`); k != 0 {
			t.Fatalf("%d notifications written inside the quiet hours", k)
		}
		var waiting int
		if err := db.Get(context.Background(), &waiting, `SELECT COUNT(*) FROM dunning_enrollments WHERE status = 'active' AND next_run_at = ?`, opens); err != nil || waiting != n {
			t.Fatalf("%d of %d enrollments wait for %s: %v", waiting, n, opens, err)
		}
		ne.clock.Set(sp(2026, 3, 17, 8, 1))
		ne.runSlices(t)
		waitLong(t, "every message at the relay", func() bool { total, _, _ := sink.counts(); return total >= n })
		ne.settle(t)
		var res scaleResult
		checkReguaOnce(t, db, sink, n, &res)
	})
}

// runSlices runs the step runner once at the clock's instant and waits
// until every job it started (slices included) has finished and nothing
// is due.
func (ne *dunEnv) runSlices(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	if _, err := ne.Jobs.Enqueue(ctx, regua.RunnerArgs{}, nil); err != nil {
		t.Fatal(err)
	}
	waitLong(t, "the step runner and its slices", func() bool {
		return scaleRows(t, ne.DB, `SELECT COUNT(*) FROM river_job WHERE kind IN ('dunning.step_runner', 'dunning.step_runner_slice')
			AND state NOT IN ('completed', 'discarded', 'cancelled')`) == 0 && ne.dueCount(t, ne.clock.Now()) == 0
	})
	if k := scaleRows(t, ne.DB, `SELECT COUNT(*) FROM river_job WHERE kind = 'dunning.step_runner_slice'`); k == 0 {
		t.Fatal("the run was not handed to the slice jobs")
	}
}

// waitLong is eventually with three minutes: a run handed to the slice
// jobs decides its steps one transaction each, which under -race on a
// loaded two-core host took over a minute for 300 steps on SQLite.
func waitLong(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(testPoll)
	}
}
