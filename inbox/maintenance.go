package inbox

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
)

// The Inbox's periodic jobs (docs/decisions.md "The Autonomous Inbox"): the monthly usage reset and
// the purge of soft-deleted data after the retention period. The queue's
// leader runs them; they are idempotent, so a run repeated after a crash
// changes nothing more.

// usageResetArgs starts every workspace's month at zero.
type usageResetArgs struct{}

// Kind names the job.
func (usageResetArgs) Kind() string { return "inbox.usage_reset" }

// purgeArgs removes what was deleted before the retention period.
type purgeArgs struct{}

// Kind names the job.
func (purgeArgs) Kind() string { return "inbox.purge" }

type usageResetWorker struct {
	river.WorkerDefaults[usageResetArgs]
	s *service
}

// Timeout bounds the reset: one UPDATE over the workspaces' settings.
func (*usageResetWorker) Timeout(*river.Job[usageResetArgs]) time.Duration { return time.Minute }

// Work resets the counters of every workspace whose month is over. The
// counters also roll over lazily on the first write of a month
// (settings_store.go); this job makes the numbers the API shows right on
// the first of the month even for a workspace that receives nothing.
func (w *usageResetWorker) Work(ctx context.Context, _ *river.Job[usageResetArgs]) error {
	return resetMonthlyUsage(ctx, w.s.db, time.Now().UTC().Format("2006-01"))
}

type purgeWorker struct {
	river.WorkerDefaults[purgeArgs]
	s *service
}

// Timeout bounds the purge: a day's worth of deletions in one
// transaction, plus the webhooks' and idempotency keys'. It stays below
// the job queue's rescue time (five minutes by default; at least the
// default job timeout of a minute), so a purge still working is never
// taken for one whose process died.
func (*purgeWorker) Timeout(*river.Job[purgeArgs]) time.Duration { return time.Minute }

// Work deletes, for good, the inboxes (with their e-mails, raw messages and
// agent runs), agents and webhooks deleted more than the retention period
// ago, and the expired idempotency keys.
func (w *purgeWorker) Work(ctx context.Context, _ *river.Job[purgeArgs]) error {
	return w.s.purge(ctx, time.Now().Add(-w.s.cfg.Retention))
}

// purge removes what was deleted before cutoff.
func (s *service) purge(ctx context.Context, cutoff time.Time) error {
	cutoff = cutoff.UTC()
	err := s.db.WithTx(ctx, func(tx *store.Tx) error { return purgeDeleted(ctx, tx, cutoff) })
	if err != nil {
		return err
	}
	if s.hooks != nil {
		if _, err := s.hooks.Purge(ctx, cutoff); err != nil {
			return err
		}
	}
	if s.idempotency != nil {
		// Expired idempotency keys (24 h), whatever the retention.
		if _, err := s.idempotency.Purge(ctx); err != nil {
			return err
		}
	}
	return nil
}

// registerMaintenance registers the periodic jobs' workers and schedules.
func registerMaintenance(s *service, q *jobs.Queue) {
	jobs.AddWorker(q, &usageResetWorker{s: s})
	jobs.AddWorker(q, &purgeWorker{s: s})
	q.AddPeriodic(jobs.MonthlyUTC(), func() (river.JobArgs, *river.InsertOpts) { return usageResetArgs{}, nil }, false)
	q.AddPeriodic(jobs.DailyUTC(3, 17), func() (river.JobArgs, *river.InsertOpts) { return purgeArgs{}, nil }, false)
}
