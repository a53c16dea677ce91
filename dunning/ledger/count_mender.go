package ledger

import (
	"context"
	"fmt"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
)

// The count mender is an alarm: hourly (and when a process becomes the
// leader) it finds the charges and debtors whose status or archiving is
// not what they are counted as. Every write of a charge goes through the
// ledger (applyCharge, ledger.go), which syncs the counters in its own
// transaction, so in the package's own traffic it finds nothing
// (TestListingCountsMatch); a mismatch means SQL run by hand, rows loaded
// in bulk, or a bug. Each run reports what it found as the gauge
// kobana_dunning_count_mismatches (by table) and, when it found any, an
// ERROR log line; and it still mends them — counts them as they are,
// each in the transaction of its own sync — because a miscount is safe to
// correct and costs the listings' totals until it is (docs/decisions.md,
// "Listings at scale" and "One write path per aggregate").
// 00275_dunning_count_mender.sql indexes exactly those rows, so a run with
// nothing to mend reads two empty indexes.

// menderBatch is how many rows one read of the mender takes.
const menderBatch = 500

type countMenderArgs struct{}

// Kind names the job in the queue.
func (countMenderArgs) Kind() string { return "dunning.count_mender" }

type countMenderWorker struct {
	river.WorkerDefaults[countMenderArgs]
	s *Service
}

// Work runs the mender once.
func (w *countMenderWorker) Work(ctx context.Context, _ *river.Job[countMenderArgs]) error {
	_, err := w.s.MendCounts(ctx)
	return err
}

// RegisterCountMender registers the mender, hourly at minute 29 when
// periodic.
func (s *Service) RegisterCountMender(q *jobs.Queue, periodic bool) {
	jobs.AddWorker(q, &countMenderWorker{s: s})
	if periodic {
		q.AddPeriodic(Hourly{Min: 29}, func() (river.JobArgs, *river.InsertOpts) { return countMenderArgs{}, nil }, true)
	}
}

// MendCounts counts every miscounted charge and debtor as it is and
// answers how many it mended.
func (s *Service) MendCounts(ctx context.Context) (int, error) {
	mended := 0
	found := map[string]int{}
	defer func() {
		if s.CountMismatches == nil {
			return // a service not built by newService exports nothing
		}
		for table, n := range found {
			s.CountMismatches.WithLabelValues(table).Set(float64(n))
		}
	}()
	for _, t := range []struct {
		table, where string
		sync         func(context.Context, store.Querier, string) error
	}{
		{"dunning_charges", MiscountedCharges, SyncChargeCount},
		{"dunning_debtors", MiscountedDebtors, SyncDebtorCount},
	} {
		for {
			ids, err := miscountedIDs(ctx, s.DB, t.table, t.where, menderBatch)
			if err != nil {
				return mended, fmt.Errorf("dunning: count mender: %w", err)
			}
			for _, id := range ids {
				// The sync locks and reads the row itself, so a write racing
				// the mender is counted once whichever commits first.
				if err := s.DB.WithTx(ctx, func(tx *store.Tx) error {
					if err := lockCountedRow(ctx, tx, t.table, id); err != nil {
						return err
					}
					return t.sync(ctx, tx, id)
				}); err != nil {
					return mended, fmt.Errorf("dunning: count mender, %s: %w", id, err)
				}
			}
			mended += len(ids)
			found[t.table] += len(ids)
			if len(ids) < menderBatch {
				break
			}
		}
	}
	if mended > 0 && s.Log != nil {
		s.Log.Error("dunning: listing counters did not match their rows (a write outside the ledger?): mended",
			"charges", found["dunning_charges"], "debtors", found["dunning_debtors"])
	}
	return mended, nil
}
