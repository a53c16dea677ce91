package regua

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kobana/kobana-mcp/dunning/collection"
	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/dunning/notify"
	"github.com/kobana/kobana-mcp/dunning/schedule"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/rest"
)

// The step runner: every minute it takes the active enrollments whose
// next step is due (the index dunning_enrollments_due: status,
// next_run_at and id, read after a cursor) — all in one job, or split
// into slice jobs when more than a batch is due (runner_jobs.go,
// runner_slices.go) — and runs each step in one transaction of its own:
//
//  1. lock the charge, then the enrollment — the order a payment takes
//     them — with SKIP LOCKED on PostgreSQL, so two workers or replicas
//     split the work instead of queueing on it (SQLite runs one writer at
//     a time), and check the enrollment is still due. A payment
//     committing meanwhile is seen here, or sees this step's message
//     queued and skips it (chargeClosed); a charge out of collection
//     stops the enrollment and sends nothing;
//  2. never inside the quiet hours: a step found due there (the process
//     was down at its instant) waits for the window to open;
//  3. a missed step is sent once when the process comes back if it is
//     still relevant: not when a later step of the plan is due as well
//     (the later one supersedes it), nor a reminder before the due date
//     once the due date has passed;
//  4. write the step's notification — the unique (enrollment, step) row,
//     so a second worker's insert is a no-op and a step is sent at most
//     once — and enqueue its send in the same transaction; a step the
//     debtor cannot receive (opted out, no address, channel off, a value
//     missing) is written as skipped instead, and a step that requires
//     approval parks in dunning_step_approvals;
//  5. point the enrollment at its next step, or complete it.
//
// Time is the service's clock, so a test drives a two-month régua in
// milliseconds.

// maxRunnerRounds bounds one run: a round takes a batch of due
// enrollments, the next round the batch after it (a dueCursor), and an
// enrollment whose passed-over step left it at another due step is run
// again at once (runEnrollmentDue), at most this many times.
const maxRunnerRounds = 50

// RunDue runs every due step and reports how many steps it decided
// (sent, skipped, parked, deferred or passed over).
func (n *Notifier) RunDue(ctx context.Context) (int, error) {
	total := 0
	var after dueCursor
	for round := 0; round < maxRunnerRounds; round++ {
		did, read, err := n.runDueBatch(ctx, nil, &after)
		total += did
		if err != nil || read == 0 {
			return total, err
		}
	}
	return total, nil
}

// runDueBatch reads the next batch of due enrollments after *after (of
// the slice digits; nil: every id), moves the cursor past all of them
// and runs the steps of those whose plan is active. It reports the steps
// decided and the rows read: none read means nothing is left. A row
// passed over — of a paused plan, or held by another transaction — is
// taken by a later minute's run.
func (n *Notifier) runDueBatch(ctx context.Context, digits []string, after *dueCursor) (did, read int, err error) {
	now := n.Clock()
	batch, err := dueSliceEnrollments(ctx, n.DB, now, digits, *after, n.RunnerBatch)
	if err != nil || len(batch) == 0 {
		return 0, 0, err
	}
	*after = after.next(batch)
	for _, e := range batch {
		if !e.Live {
			continue
		}
		if err := ctx.Err(); err != nil {
			return did, len(batch), err
		}
		k, err := n.runEnrollmentDue(ctx, e.ID, now)
		did += k
		if err != nil {
			return did, len(batch), fmt.Errorf("dunning: step runner, enrollment %s: %w", e.ID, err)
		}
	}
	return did, len(batch), nil
}

// runEnrollment runs the due step of one enrollment at now, in one
// transaction: did is false when there was nothing to do (another worker
// took it, it is no longer due), again true when the step left the
// enrollment at another step due at now (a passed-over step), which the
// caller runs in a transaction of its own. Asking the enrollment as the
// step left it, instead of reading it again in a transaction that finds
// nothing to do, spares each message three reads and a transaction
// (docs/performance.md "The step runner's statements").
func (n *Notifier) runEnrollment(ctx context.Context, id string, now time.Time) (did, again bool, err error) {
	err = n.DB.WithTx(ctx, func(tx *store.Tx) error {
		// Locks in the order every writer of a charge takes them — the
		// charge, then its enrollments (a payment, enrolling) — so the
		// runner and a payment never wait for each other in a circle. On
		// PostgreSQL SKIP LOCKED passes over a charge or an enrollment
		// another transaction holds (a payment, another worker): the next
		// round or the next minute takes it.
		skip := skipLocked(tx)
		ref, err := getEnrollmentRef(ctx, tx, id)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		c, err := chargeLocked(ctx, tx, ref.OrgID, ref.ChargeID, skip)
		if errors.Is(err, store.ErrNotFound) {
			return nil // gone, or held by another transaction
		}
		if err != nil {
			return err
		}
		e, err := enrollmentLocked(ctx, tx, id, skip)
		if errors.Is(err, store.ErrNotFound) {
			return nil // gone, or another worker holds it
		}
		if err != nil {
			return err
		}
		if e.Status != string(lifecycle.EnrollmentActive) || e.NextStepID == nil || e.NextRunAt == nil || e.NextRunAt.After(now) {
			return nil
		}
		did = true
		step, at := *e.NextStepID, *e.NextRunAt
		if err := n.runStep(ctx, tx, &e, &c, now); err != nil {
			return err
		}
		// Due again only if the step moved it (a plan paused meanwhile
		// leaves it as it was: nothing more to do now).
		again = e.Status == string(lifecycle.EnrollmentActive) && e.NextStepID != nil && e.NextRunAt != nil && !e.NextRunAt.After(now) &&
			(*e.NextStepID != step || !e.NextRunAt.Equal(at))
		return nil
	})
	return did && err == nil, again && err == nil, err
}

// runEnrollmentDue runs enrollment id's due steps at now, one
// transaction each, while the last one left it at another due step (a
// passed-over step leaves it at a later one that may be due too), and
// counts them.
func (n *Notifier) runEnrollmentDue(ctx context.Context, id string, now time.Time) (int, error) {
	k := 0
	for k < maxRunnerRounds {
		if err := ctx.Err(); err != nil {
			return k, err
		}
		did, again, err := n.runEnrollment(ctx, id, now)
		if did {
			k++
		}
		if err != nil || !again {
			return k, err
		}
	}
	return k, nil
}

// runStep decides the due step of e at now, e and its charge c locked;
// see the steps above.
func (n *Notifier) runStep(ctx context.Context, tx *store.Tx, e *collection.EnrollmentRecord, c *ledger.Charge, now time.Time) error {
	p, err := collection.GetPlan(ctx, tx, e.OrganizationID, e.PlanID)
	if err != nil {
		return err
	}
	if p.Status != string(lifecycle.PlanActive) {
		return nil // paused meanwhile: resuming reschedules it
	}
	if collection.ChargeCollectible(*c) != nil {
		// Its closing should have stopped the enrollment already
		// (chargeClosed hooks); stop it now if it did not.
		reason := ledger.StopArchived
		if r, ok := lifecycle.StopReasonFor(c.Status); ok {
			reason = r
		}
		return n.StopEnrollment(ctx, tx, e, reason, c, &p)
	}
	st, err := ledger.LoadSettings(ctx, tx, e.OrganizationID)
	if err != nil {
		return err
	}
	opt, err := collection.PlanScheduleOptions(st)
	if err != nil {
		return err
	}
	cal, err := collection.ChargePlanCalendar(ctx, tx, *c, p, st)
	if err != nil {
		return err
	}
	done, err := collection.DoneSteps(ctx, tx, e.ID)
	if err != nil {
		return err
	}
	var entry *collection.CalendarEntry
	for i := range cal {
		if cal[i].Step.ID == *e.NextStepID {
			entry = &cal[i]
		}
	}
	if entry == nil || done[entry.Step.ID] {
		// The step was deleted, disabled or already run since the
		// enrollment pointed at it: point it at what the calendar says now.
		return n.RescheduleEnrollment(ctx, tx, e, &p)
	}
	// Never inside the quiet hours.
	if open, ok := windowOpen(now, opt, entry.Step.BusinessDays != 0); !ok {
		e.NextRunAt, e.UpdatedAt = &open, now
		return collection.UpdateEnrollment(ctx, tx, e)
	}
	done[entry.Step.ID] = true
	if why := stale(cal, entry, done, now, opt); why != "" {
		// A missed step no longer worth sending: recorded, passed over.
		d, err := ledger.GetDebtor(ctx, tx, e.OrganizationID, c.DebtorID)
		if err != nil {
			return err
		}
		row := n.Skipped(n.stepDraft(e, entry.Step, d, c), &notify.Refusal{Code: collection.SkipPast, Msg: why}, "")
		if _, err := n.Queue(ctx, tx, row); err != nil {
			return err
		}
		return n.advance(ctx, tx, e, cal, done, entry, c, &p, &st, now)
	}
	if entry.Step.Action == collection.ActionNotify {
		if err := n.notifyStep(ctx, tx, e, entry.Step, st, c); err != nil {
			return err
		}
	} else if err := n.park(ctx, tx, e, entry.Step, c); err != nil {
		// A step that escalates (report, protest, agreement offer) always
		// waits for a person, whatever its requires_approval; approving
		// runs it through its route's rules (approvals.go).
		return err
	}
	return n.advance(ctx, tx, e, cal, done, entry, c, &p, &st, now)
}

// notifyStep writes the step's notification (queued with its send job,
// or skipped with its reason) or, for a step that requires approval, its
// pending approval.
func (n *Notifier) notifyStep(ctx context.Context, tx *store.Tx, e *collection.EnrollmentRecord, step collection.StepRecord, st ledger.Settings, c *ledger.Charge) error {
	d, err := ledger.GetDebtor(ctx, tx, e.OrganizationID, c.DebtorID)
	if err != nil {
		return err
	}
	dr := n.stepDraft(e, step, d, c)
	row, err := n.Compose(ctx, tx, st, dr)
	var r *notify.Refusal
	var re *rest.Error
	switch {
	case errors.As(err, &r):
		_, err = n.Queue(ctx, tx, n.Skipped(dr, r, ""))
		return err
	case errors.As(err, &re):
		// A value the template needs and the charge lacks, a message too
		// long: what the preview calls missing_values.
		_, err = n.Queue(ctx, tx, n.Skipped(dr, &notify.Refusal{Code: collection.SkipMissingValues, Msg: fieldMessage(re)}, ""))
		return err
	case err != nil:
		return err
	}
	if step.RequiresApproval != 0 {
		return n.park(ctx, tx, e, step, c)
	}
	_, err = n.Queue(ctx, tx, row)
	return err
}

// stepDraft is what a plan step sends: its templates, to the debtor's
// default address on its channel, marked as the enrollment's step.
func (n *Notifier) stepDraft(e *collection.EnrollmentRecord, step collection.StepRecord, d ledger.Debtor, c *ledger.Charge) notify.Draft {
	subject := ""
	if step.Subject != nil {
		subject = *step.Subject
	}
	eid, sid := e.ID, step.ID
	return notify.Draft{Debtor: d, Charge: c, Channel: step.Channel, Subject: subject, Body: step.Template, Kind: notify.KindReminder,
		CreatedBy: notify.CreatedByScheduler, EnrollmentID: &eid, StepID: &sid}
}

// advance points e at the first step after entry not done yet (steps at
// the same instant included), or completes it.
func (n *Notifier) advance(ctx context.Context, tx *store.Tx, e *collection.EnrollmentRecord, cal []collection.CalendarEntry, done map[string]bool,
	entry *collection.CalendarEntry, c *ledger.Charge, p *collection.PlanRecord, st *ledger.Settings, now time.Time) error {
	next := collection.PickNextStep(cal, done, entry.Run.At, true)
	collection.SetNextStep(e, next)
	e.UpdatedAt = now
	if next == nil {
		return n.CompleteEnrollment(ctx, tx, e, c, p, st)
	}
	return collection.UpdateEnrollment(ctx, tx, e)
}

// stale says why a due step is no longer worth sending ("" when it is):
// a later step of the plan is due too (the process was down across both,
// and the later message supersedes this one), or the step is a reminder
// before the due date and the due date has passed.
func stale(cal []collection.CalendarEntry, entry *collection.CalendarEntry, done map[string]bool, now time.Time, opt schedule.Options) string {
	for i := range cal {
		later := &cal[i]
		if done[later.Step.ID] || !later.Run.At.After(entry.Run.At) {
			continue
		}
		if !later.Run.At.After(now) {
			return fmt.Sprintf("missed at %s, and the later step %s (%s) is due too: only the later one is sent",
				entry.Run.At.Format(time.RFC3339), later.Step.ID, collection.StepDay(later.Step.OffsetDays))
		}
		break
	}
	zone := opt.Zone
	if zone == nil {
		zone = time.UTC
	}
	if entry.Step.OffsetDays < 0 && bankcalendar.DateOf(now.In(zone)).After(entry.Nominal.AddDays(-entry.Step.OffsetDays)) {
		return fmt.Sprintf("a reminder %d days before the due date, missed until after the due date", -entry.Step.OffsetDays)
	}
	return ""
}

// windowOpen reports whether now is inside the organization's sending
// window and, when it is not, the next instant it opens (the next
// business day's opening for a step that keeps to business days).
func windowOpen(now time.Time, opt schedule.Options, businessDays bool) (time.Time, bool) {
	zone := opt.Zone
	if zone == nil {
		zone = time.UTC
	}
	w := opt.Window
	if w.IsZero() {
		w = schedule.DefaultWindow
	}
	local := now.In(zone)
	if w.Contains(schedule.At(local.Hour(), local.Minute())) {
		return now, true
	}
	day := bankcalendar.DateOf(local)
	if schedule.At(local.Hour(), local.Minute()) >= w.Close {
		day = day.AddDays(1)
	}
	if businessDays {
		day = opt.Calendar.NextBusinessDay(day)
	}
	return day.At(w.Open.Hour(), w.Open.Minute(), zone).UTC(), false
}

// fieldMessage is an API validation error in one line: its field
// messages, or its message.
func fieldMessage(e *rest.Error) string {
	if len(e.Details) == 0 {
		return e.Message
	}
	out := ""
	for i, d := range e.Details {
		if i > 0 {
			out += "; "
		}
		out += d.Field + " " + d.Message
	}
	return out
}

// park writes the pending approval of a step; a second worker's is a
// no-op.
func (n *Notifier) park(ctx context.Context, tx *store.Tx, e *collection.EnrollmentRecord, step collection.StepRecord, c *ledger.Charge) error {
	return insertApproval(ctx, tx, e, step.ID, c.ID, n.Clock())
}
