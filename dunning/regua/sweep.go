package regua

import (
	"context"
	"errors"
	"time"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/store"
)

// The daily sweep: a pending charge turns overdue the day after its grace
// ends (Settings.lateOn: the due date moved to the next business day, or
// the grace days, whichever is later), in its organization's time zone,
// and dunning.charge.overdue goes to the organization's webhooks. The job
// runs every hour (and when a process becomes the queue's leader), so an
// organization's charges turn overdue within the first hour of its day
// wherever it is, and a sweep missed while the service was down runs as
// soon as it is back. It is idempotent — only pending charges change — so a
// tick enqueued twice by a change of leader does no harm.

// sweepArgs is one run of the sweep.
type sweepArgs struct{}

// Kind names the job in the queue.
func (sweepArgs) Kind() string { return "dunning.daily_sweep" }

type sweepWorker struct {
	river.WorkerDefaults[sweepArgs]
	n *Notifier
}

// Timeout bounds one run below the queue's rescue time; a sweep that
// runs out of time stops between batches and the next hour's run
// continues where it left off (what is done is done).
func (w *sweepWorker) Timeout(*river.Job[sweepArgs]) time.Duration { return 4 * time.Minute }

// Work sweeps.
func (w *sweepWorker) Work(ctx context.Context, _ *river.Job[sweepArgs]) error {
	_, err := w.n.Sweep(ctx)
	return err
}

// Sweep turns overdue every pending charge whose organization's day is
// past its grace end, in batches of sweepBatch, and reports how many.
//
// Two indexes, each read in order once:
//
//   - dunning_charges_sweep (status, due_date) finds the organizations
//     with pending charges due before the latest date that is today
//     anywhere (UTC+14): a charge is late only after its due date;
//   - dunning_charges_list (organization_id, status, due_date, id) then
//     gives each organization's pending charges up to its cutoff — the
//     last due date already past its grace in its zone today (grace ends
//     later for a later due date, so every charge due by the cutoff is
//     late and none after it is) — in keyset order (due_date, id), a
//     batch at a time.
//
// So the run is linear in the pending charges past due, and a charge
// still in its grace is never read by the second walk.
func (n *Notifier) Sweep(ctx context.Context) (int, error) {
	now := n.Clock()
	// The latest calendar date anywhere on Earth right now.
	horizon := bankcalendar.DateOf(now.In(time.FixedZone("UTC+14", 14*3600))).String()
	orgs, err := sweepOrganizations(ctx, n.DB, horizon)
	if err != nil {
		return 0, err
	}
	turned := 0
	for _, org := range orgs {
		k, err := n.sweepOrganization(ctx, org, now)
		turned += k
		if err != nil {
			return turned, err
		}
	}
	return turned, nil
}

// sweepOrganization turns overdue the organization's pending charges due
// by its cutoff.
func (n *Notifier) sweepOrganization(ctx context.Context, orgID string, now time.Time) (int, error) {
	st, err := ledger.LoadSettings(ctx, n.DB, orgID)
	if err != nil {
		return 0, err
	}
	cutoff, ok := lateCutoff(st, st.Today(now))
	if !ok {
		return 0, nil
	}
	turned := 0
	afterDue, afterID := "", ""
	for {
		if err := ctx.Err(); err != nil {
			return turned, err
		}
		batch, err := sweepCandidates(ctx, n.DB, orgID, cutoff.String(), afterDue, afterID)
		if err != nil {
			return turned, err
		}
		if len(batch) == 0 {
			return turned, nil
		}
		last := batch[len(batch)-1]
		afterDue, afterID = last.DueDate, last.ID
		k, err := n.turnOverdue(ctx, batch, now)
		turned += k
		if err != nil || len(batch) < sweepBatch {
			return turned, err
		}
	}
}

// lateCutoff is the last due date that is late on today under st: every
// charge due on it or before is past its grace, none due after it. Grace
// ends at most grace days plus a run of closed days after the due date,
// so the search back from yesterday is short; false when it finds none
// within a year.
func lateCutoff(st ledger.Settings, today bankcalendar.Date) (bankcalendar.Date, bool) {
	for d, i := today.AddDays(-1), 0; i < 400; d, i = d.AddDays(-1), i+1 {
		if st.LateOn(d, today) {
			return d, true
		}
	}
	return bankcalendar.Date{}, false
}

// turnOverdue moves the charges to overdue in one transaction, each with
// its dunning.charge.overdue event, skipping any that a write changed
// since they were read.
func (n *Notifier) turnOverdue(ctx context.Context, late []sweepCandidate, now time.Time) (int, error) {
	turned := 0
	err := n.DB.WithTx(ctx, func(tx *store.Tx) error {
		turned = 0
		for _, c := range late {
			old, err := lockPendingCharge(ctx, tx, c.OrganizationID, c.ID)
			if errors.Is(err, store.ErrNotFound) {
				continue // a write changed it since it was read
			}
			if err != nil {
				return err
			}
			next := old
			next.Status = lifecycle.ChargeOverdue
			if _, err := n.ApplyCharge(ctx, tx, old, ledger.ChargeChange{Next: next}); err != nil {
				return err
			}
			turned++
		}
		return nil
	})
	return turned, err
}
