package dunning

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/dunning/calendar"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
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
	n *notifier
}

// Timeout bounds one run below the queue's rescue time; a sweep that
// runs out of time stops between batches and the next hour's run
// continues where it left off (what is done is done).
func (w *sweepWorker) Timeout(*river.Job[sweepArgs]) time.Duration { return 4 * time.Minute }

// Work sweeps.
func (w *sweepWorker) Work(ctx context.Context, _ *river.Job[sweepArgs]) error {
	_, err := w.n.sweep(ctx)
	return err
}

// sweepBatch is how many charges one transaction of the sweep turns
// overdue.
const sweepBatch = 500

// sweepCandidate is a pending charge whose due date is past somewhere.
type sweepCandidate struct {
	ID             string `db:"id"`
	OrganizationID string `db:"organization_id"`
	DueDate        string `db:"due_date"`
}

// sweep turns overdue every pending charge whose organization's day is
// past its grace end, in batches of sweepBatch, and reports how many.
//
// It walks the index dunning_charges_sweep (status, due_date) once, in
// keyset order, from the oldest pending due date up to the latest date
// that is today anywhere (UTC+14): a charge is late only after its due
// date, so nothing later can be. Each organization's settings are read
// once per run.
func (n *notifier) sweep(ctx context.Context) (int, error) {
	now := n.clock()
	// The latest calendar date anywhere on Earth right now.
	horizon := calendar.DateOf(now.In(time.FixedZone("UTC+14", 14*3600))).String()
	settings := map[string]Settings{}
	turned := 0
	afterDue, afterID := "", ""
	for {
		if err := ctx.Err(); err != nil {
			return turned, err
		}
		var batch []sweepCandidate
		if err := n.db.Select(ctx, &batch, `SELECT id, organization_id, due_date FROM dunning_charges
			WHERE status = ? AND due_date < ? AND (due_date > ? OR (due_date = ? AND id > ?)) AND archived_at IS NULL
			ORDER BY due_date, id LIMIT ?`, lifecycle.ChargePending, horizon, afterDue, afterDue, afterID, sweepBatch); err != nil {
			return turned, err
		}
		if len(batch) == 0 {
			return turned, nil
		}
		last := batch[len(batch)-1]
		afterDue, afterID = last.DueDate, last.ID
		var late []sweepCandidate
		for _, c := range batch {
			st, ok := settings[c.OrganizationID]
			if !ok {
				var err error
				if st, err = loadSettings(ctx, n.db, c.OrganizationID); err != nil {
					return turned, err
				}
				settings[c.OrganizationID] = st
			}
			due, err := calendar.ParseDate(c.DueDate)
			if err != nil {
				continue // not a date: nothing to decide
			}
			if st.lateOn(due, st.Today(now)) {
				late = append(late, c)
			}
		}
		if len(late) > 0 {
			k, err := n.turnOverdue(ctx, late, now)
			turned += k
			if err != nil {
				return turned, err
			}
		}
		if len(batch) < sweepBatch {
			return turned, nil
		}
	}
}

// turnOverdue moves the charges to overdue in one transaction, each with
// its dunning.charge.overdue event, skipping any that a write changed
// since they were read.
func (n *notifier) turnOverdue(ctx context.Context, late []sweepCandidate, now time.Time) (int, error) {
	turned := 0
	err := n.db.WithTx(ctx, func(tx *store.Tx) error {
		turned = 0
		for _, c := range late {
			res, err := tx.Exec(ctx, `UPDATE dunning_charges SET status = ?, overdue_at = ?, updated_at = ?
				WHERE id = ? AND organization_id = ? AND status = ?`,
				lifecycle.ChargeOverdue, now, now, c.ID, c.OrganizationID, lifecycle.ChargePending)
			if err != nil {
				return err
			}
			if k, _ := res.RowsAffected(); k == 0 {
				continue
			}
			charge, err := getChargeWhere(ctx, tx, `id = ? AND organization_id = ?`, c.ID, c.OrganizationID)
			if err != nil {
				return err
			}
			if err := n.emitChargeEvent(ctx, tx, EventChargeOverdue, charge); err != nil {
				return err
			}
			turned++
		}
		return nil
	})
	return turned, err
}

// hourly is a periodic schedule: minute min of every hour. Its next run
// depends only on the clock, so restarts and changes of leader do not
// delay it.
type hourly struct{ min int }

// Next is the first hh:min strictly after t.
func (h hourly) Next(t time.Time) time.Time {
	t = t.UTC()
	next := t.Truncate(time.Hour).Add(time.Duration(h.min) * time.Minute)
	if !next.After(t) {
		next = next.Add(time.Hour)
	}
	return next
}
