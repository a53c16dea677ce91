package collection

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/dunning/schedule"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/webhooks"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// Enrollments: a charge running through a collection plan
// (docs/decisions.md "Dunning: collection plans and enrollments").
// Enrolling computes the run instant of every step of the plan for the
// charge (dunning/schedule, with the organization's zone, quiet hours and
// closed days), skips the steps already past — no message is ever sent
// late to make up for them — and keeps the next step and its instant on
// the enrollment, where the step runner finds it. A charge that leaves
// collection stops its enrollments in the same transaction
// (stopChargeEnrollments).

// The enrollment events (webhookEventSlugs in spec.go lists every event).
const (
	EventEnrollmentStarted   = "dunning.enrollment.started"
	EventEnrollmentCompleted = "dunning.enrollment.completed"
	EventEnrollmentStopped   = "dunning.enrollment.stopped"
)

// EnrollmentAnswerJSON is what enrolling answers: the enrollment, the
// plan, the steps skipped because they were already past when the charge
// was enrolled (never sent), the next step and every step still to come.
type EnrollmentAnswerJSON struct {
	EnrollmentJSON
	Plan             PlanJSON      `json:"plan"`
	SkippedPastSteps []stepRunJSON `json:"skipped_past_steps"`
	NextStep         *stepRunJSON  `json:"next_step"`
	UpcomingSteps    []stepRunJSON `json:"upcoming_steps"`
}

type enrollmentRefIn struct {
	ID   string `json:"id" in:"path" maxLength:"255" jsonschema:"The charge's id or external_id."`
	CPID string `json:"cp_id" in:"path" maxLength:"255" jsonschema:"The collection plan's id or external_id."`
}

// PlanScheduleOptions are the organization's settings as dunning/schedule
// reads them: its zone, its sending window (the complement of its quiet
// hours) and its calendar (national bank holidays plus its closed days).
func PlanScheduleOptions(st ledger.Settings) (schedule.Options, error) {
	open, err := schedule.ParseClock(st.QuietEnd)
	if err != nil {
		return schedule.Options{}, fmt.Errorf("dunning: settings quiet_end: %w", err)
	}
	closeAt, err := schedule.ParseClock(st.QuietStart)
	if err != nil {
		return schedule.Options{}, fmt.Errorf("dunning: settings quiet_start: %w", err)
	}
	zone := st.Location
	if zone == nil {
		if zone, err = schedule.LoadZone(st.Timezone); err != nil {
			return schedule.Options{}, err
		}
	}
	return schedule.Options{Zone: zone, Window: schedule.Window{Open: open, Close: closeAt}, Calendar: st.Calendar()}, nil
}

// ChargePlanCalendar is the plan's calendar for the charge under the
// organization's settings.
func ChargePlanCalendar(ctx context.Context, q store.Querier, c ledger.Charge, p PlanRecord, st ledger.Settings) ([]CalendarEntry, error) {
	opt, err := PlanScheduleOptions(st)
	if err != nil {
		return nil, err
	}
	steps, err := listSteps(ctx, q, c.OrganizationID, p.ID)
	if err != nil {
		return nil, err
	}
	return planCalendar(c.DueDate, steps, opt)
}

// PickNextStep is the first step of cal still to run: after from (or at it,
// with inclusive), and not done.
func PickNextStep(cal []CalendarEntry, done map[string]bool, from time.Time, inclusive bool) *CalendarEntry {
	for i := range cal {
		e := &cal[i]
		if done[e.Step.ID] {
			continue
		}
		if e.Run.At.After(from) || (inclusive && e.Run.At.Equal(from)) {
			return e
		}
	}
	return nil
}

// collectible says why a charge cannot run through a plan, or nil: only
// a pending or overdue charge that is not archived is collected.
func ChargeCollectible(c ledger.Charge) error {
	if c.ArchivedAt != nil {
		return rest.Unprocessable("an archived charge cannot be enrolled in a collection plan: only pending and overdue charges are collected")
	}
	if !c.Status.Collectible() {
		return rest.Unprocessable(fmt.Sprintf("%s %s charge cannot be enrolled in a collection plan: only pending and overdue charges are collected",
			enrollArticle(string(c.Status)), c.Status))
	}
	return nil
}

func enrollArticle(w string) string {
	if w != "" && (w[0] == 'a' || w[0] == 'e' || w[0] == 'i' || w[0] == 'o' || w[0] == 'u') {
		return "An"
	}
	return "A"
}

// enrollable loads the charge and the plan of an enrollment request and
// says whether the charge may run through the plan: both visible to the
// caller (404 otherwise), the plan active, the charge collectible
// (UNPROCESSABLE otherwise).
func (s *Service) enrollable(ctx context.Context, q store.Querier, orgID string, in *enrollmentRefIn, lock bool) (ledger.Charge, PlanRecord, error) {
	c, err := chargeToEnroll(ctx, q, orgID, in.ID, lock)
	if errors.Is(err, store.ErrNotFound) {
		return ledger.Charge{}, PlanRecord{}, rest.NotFound("charge")
	}
	if err != nil {
		return ledger.Charge{}, PlanRecord{}, err
	}
	p, err := GetPlan(ctx, q, orgID, in.CPID)
	if err != nil {
		return ledger.Charge{}, PlanRecord{}, planErr(err)
	}
	return c, p, nil
}

// enrollChecks are the business rules of enrolling: an active plan, a
// collectible charge.
func enrollChecks(c ledger.Charge, p PlanRecord) error {
	if p.Status != string(lifecycle.PlanActive) {
		return rest.Unprocessable(fmt.Sprintf("only an active collection plan takes charges: '%s' is %s", p.Name, p.Status))
	}
	return ChargeCollectible(c)
}

// enroll is the enrollment of a charge in a plan inside tx: a new
// enrollment (created), the existing one unchanged when it is active, or
// the existing one started again from now when it had stopped or
// completed. Steps whose instant is not after now are past: counted in
// skipped_past, listed in the answer, never sent. With no step left the
// enrollment completes at once.
func (s *Service) enroll(ctx context.Context, tx *store.Tx, orgID string, in *enrollmentRefIn) (EnrollmentAnswerJSON, bool, error) {
	c, p, err := s.enrollable(ctx, tx, orgID, in, true)
	if err != nil {
		return EnrollmentAnswerJSON{}, false, err
	}
	// The plan row is locked too, so an archive cannot pass an
	// enrollment it does not see.
	if p, err = lockPlan(ctx, tx, orgID, p.ID); err != nil {
		return EnrollmentAnswerJSON{}, false, planErr(err)
	}
	st, err := ledger.LoadSettings(ctx, tx, orgID)
	if err != nil {
		return EnrollmentAnswerJSON{}, false, err
	}
	cal, err := ChargePlanCalendar(ctx, tx, c, p, st)
	if err != nil {
		return EnrollmentAnswerJSON{}, false, err
	}
	e, err := GetEnrollment(ctx, tx, orgID, c.ID, p.ID, ledger.ForUpdate(tx))
	exists := err == nil
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return EnrollmentAnswerJSON{}, false, err
	}
	if exists && e.Status == string(lifecycle.EnrollmentActive) {
		// Already running: nothing changes, whatever the plan or charge
		// became meanwhile (their own changes reschedule it).
		past, _ := splitPast(cal, e.StartedAt)
		ans := s.enrollmentAnswer(e, p, past, cal)
		return ans, false, nil
	}
	if err := enrollChecks(c, p); err != nil {
		return EnrollmentAnswerJSON{}, false, err
	}
	now := s.Clock()
	done := map[string]bool{}
	if exists {
		if done, err = DoneSteps(ctx, tx, e.ID); err != nil {
			return EnrollmentAnswerJSON{}, false, err
		}
	} else {
		e = EnrollmentRecord{ID: store.NewID(), OrganizationID: orgID, ChargeID: c.ID, PlanID: p.ID, CreatedAt: now}
	}
	past, _ := splitPast(cal, now)
	e.Status, e.StartedAt, e.UpdatedAt = string(lifecycle.EnrollmentActive), now, now
	e.StoppedAt, e.StoppedReason, e.SkippedPast = nil, nil, len(past)
	SetNextStep(&e, PickNextStep(cal, done, now, false))
	if exists {
		err = UpdateEnrollment(ctx, tx, &e)
	} else {
		err = insertEnrollment(ctx, tx, &e)
	}
	if err != nil {
		return EnrollmentAnswerJSON{}, false, err
	}
	if err := s.emitEnrollmentEvent(ctx, tx, EventEnrollmentStarted, e, &c, &p, nil); err != nil {
		return EnrollmentAnswerJSON{}, false, err
	}
	if e.NextStepID == nil {
		if err := s.CompleteEnrollment(ctx, tx, &e, &c, &p, nil); err != nil {
			return EnrollmentAnswerJSON{}, false, err
		}
	}
	return s.enrollmentAnswer(e, p, past, cal), !exists, nil
}

// enrollmentAnswer is the answer about e: the steps past when it started
// and, of cal, the next and those after it.
func (s *Service) enrollmentAnswer(e EnrollmentRecord, p PlanRecord, past, cal []CalendarEntry) EnrollmentAnswerJSON {
	ans := EnrollmentAnswerJSON{EnrollmentJSON: showEnrollment(e), Plan: showPlan(p), SkippedPastSteps: []stepRunJSON{}, UpcomingSteps: []stepRunJSON{}}
	for _, x := range past {
		ans.SkippedPastSteps = append(ans.SkippedPastSteps, showStepRun(x))
	}
	if e.NextStepID == nil {
		return ans
	}
	from := -1
	for i, x := range cal {
		if x.Step.ID == *e.NextStepID {
			from = i
			break
		}
	}
	if from >= 0 {
		next := showStepRun(cal[from])
		ans.NextStep = &next
		for _, x := range cal[from:] {
			ans.UpcomingSteps = append(ans.UpcomingSteps, showStepRun(x))
		}
	}
	return ans
}

// setNext points e at the step next (none: nothing left to run).
func SetNextStep(e *EnrollmentRecord, next *CalendarEntry) {
	if next == nil {
		e.NextStepID, e.NextRunAt = nil, nil
		return
	}
	id, at := next.Step.ID, next.Run.At
	e.NextStepID, e.NextRunAt = &id, &at
}

// CompleteEnrollment ends e because no step is left, and emits
// dunning.enrollment.completed. c, p and st may be nil (they are loaded):
// the step runner passes the settings its step read in tx, one read fewer
// a message.
func (s *Service) CompleteEnrollment(ctx context.Context, tx *store.Tx, e *EnrollmentRecord, c *ledger.Charge, p *PlanRecord, st *ledger.Settings) error {
	if err := lifecycle.EnrollmentStatus(e.Status).CanBecome(lifecycle.EnrollmentCompleted); err != nil {
		return err
	}
	e.Status, e.NextStepID, e.NextRunAt, e.UpdatedAt = string(lifecycle.EnrollmentCompleted), nil, nil, s.Clock()
	if err := UpdateEnrollment(ctx, tx, e); err != nil {
		return err
	}
	return s.emitEnrollmentEvent(ctx, tx, EventEnrollmentCompleted, *e, c, p, st)
}

// StopEnrollment ends an active enrollment early with reason, and emits
// dunning.enrollment.stopped: none of its remaining steps is sent. c and
// p may be nil (they are loaded).
func (s *Service) StopEnrollment(ctx context.Context, tx *store.Tx, e *EnrollmentRecord, reason lifecycle.StopReason, c *ledger.Charge, p *PlanRecord) error {
	if err := lifecycle.EnrollmentStatus(e.Status).CanBecome(lifecycle.EnrollmentStopped); err != nil {
		return err
	}
	now := s.Clock()
	r := string(reason)
	e.Status, e.NextStepID, e.NextRunAt, e.StoppedAt, e.StoppedReason, e.UpdatedAt = string(lifecycle.EnrollmentStopped), nil, nil, &now, &r, now
	if err := UpdateEnrollment(ctx, tx, e); err != nil {
		return err
	}
	return s.emitEnrollmentEvent(ctx, tx, EventEnrollmentStopped, *e, c, p, nil)
}

// stopChargeEnrollments is the charge-closed hook (service.whenChargeClosed):
// every active enrollment of a charge that was paid, canceled, written
// off, archived or renegotiated stops, with that reason, in the caller's
// transaction — so once the change commits no step of the charge can
// run, and if it rolls back nothing stopped.
func (s *Service) stopChargeEnrollments(ctx context.Context, tx *store.Tx, c ledger.Charge, reason lifecycle.StopReason) error {
	list, err := activeChargeEnrollments(ctx, tx, c.OrganizationID, c.ID)
	if err != nil {
		return err
	}
	for i := range list {
		if err := s.StopEnrollment(ctx, tx, &list[i], reason, &c, nil); err != nil {
			return err
		}
	}
	return nil
}

// stopPlanEnrollments stops every active enrollment of a plan (it was
// archived).
func (s *Service) stopPlanEnrollments(ctx context.Context, tx *store.Tx, p PlanRecord, reason lifecycle.StopReason) error {
	list, err := activePlanEnrollments(ctx, tx, p.OrganizationID, p.ID)
	if err != nil {
		return err
	}
	for i := range list {
		if err := s.StopEnrollment(ctx, tx, &list[i], reason, nil, &p); err != nil {
			return err
		}
	}
	return nil
}

// reschedulePlan recomputes the next step of every active enrollment of
// a plan whose steps changed or which was resumed.
func (s *Service) reschedulePlan(ctx context.Context, tx *store.Tx, p PlanRecord) error {
	list, err := activePlanEnrollments(ctx, tx, p.OrganizationID, p.ID)
	if err != nil {
		return err
	}
	for i := range list {
		if err := s.RescheduleEnrollment(ctx, tx, &list[i], &p); err != nil {
			return err
		}
	}
	return nil
}

// rescheduleChargeEnrollments recomputes the next step of every active
// enrollment of a charge, for a change of what its calendar depends on
// (its due date).
func (s *Service) rescheduleChargeEnrollments(ctx context.Context, tx *store.Tx, orgID, chargeID string) error {
	list, err := activeChargeEnrollments(ctx, tx, orgID, chargeID)
	if err != nil {
		return err
	}
	for i := range list {
		if err := s.RescheduleEnrollment(ctx, tx, &list[i], nil); err != nil {
			return err
		}
	}
	return nil
}

// RescheduleEnrollment points an active enrollment at the first step of
// its plan's current calendar that has not run and is still to come —
// or, when its next step was due and the step runner has not run it yet,
// at the first from that instant on, so a change never makes a due step
// disappear. With none left it completes. p may be nil (it is loaded).
func (s *Service) RescheduleEnrollment(ctx context.Context, tx *store.Tx, e *EnrollmentRecord, p *PlanRecord) error {
	c, err := ledger.GetCharge(ctx, tx, e.OrganizationID, e.ChargeID)
	if err != nil {
		return err
	}
	if p == nil {
		pl, err := GetPlan(ctx, tx, e.OrganizationID, e.PlanID)
		if err != nil {
			return err
		}
		p = &pl
	}
	st, err := ledger.LoadSettings(ctx, tx, e.OrganizationID)
	if err != nil {
		return err
	}
	cal, err := ChargePlanCalendar(ctx, tx, c, *p, st)
	if err != nil {
		return err
	}
	done, err := DoneSteps(ctx, tx, e.ID)
	if err != nil {
		return err
	}
	now := s.Clock()
	var next *CalendarEntry
	if e.NextRunAt != nil && !e.NextRunAt.After(now) {
		next = PickNextStep(cal, done, *e.NextRunAt, true)
	} else {
		next = PickNextStep(cal, done, now, false)
	}
	SetNextStep(e, next)
	e.UpdatedAt = now
	if next == nil {
		return s.CompleteEnrollment(ctx, tx, e, &c, p, nil)
	}
	return UpdateEnrollment(ctx, tx, e)
}

// AdvanceEnrollment is what the step runner calls, in its transaction,
// once the enrollment's next step was handled (sent, parked for approval
// or skipped): the enrollment moves to the first step still to come after
// now that has not run — steps whose instant passed meanwhile (the
// process was down) are not sent in a burst — or completes when none is
// left (dunning.enrollment.completed).
func (s *Service) AdvanceEnrollment(ctx context.Context, tx *store.Tx, e *EnrollmentRecord) error {
	c, err := ledger.GetCharge(ctx, tx, e.OrganizationID, e.ChargeID)
	if err != nil {
		return err
	}
	p, err := GetPlan(ctx, tx, e.OrganizationID, e.PlanID)
	if err != nil {
		return err
	}
	st, err := ledger.LoadSettings(ctx, tx, e.OrganizationID)
	if err != nil {
		return err
	}
	cal, err := ChargePlanCalendar(ctx, tx, c, p, st)
	if err != nil {
		return err
	}
	done, err := DoneSteps(ctx, tx, e.ID)
	if err != nil {
		return err
	}
	if e.NextStepID != nil {
		done[*e.NextStepID] = true
	}
	now := s.Clock()
	next := PickNextStep(cal, done, now, false)
	SetNextStep(e, next)
	e.UpdatedAt = now
	if next == nil {
		return s.CompleteEnrollment(ctx, tx, e, &c, &p, &st)
	}
	return UpdateEnrollment(ctx, tx, e)
}

// emitEnrollmentEvent stores an enrollment event (slug, one of the
// EventEnrollment constants) and its deliveries in tx, so the event exists
// exactly when the change it reports commits. Its data is the enrollment,
// the charge (with its amounts for the organization's today), the plan and
// the organization ({id, name}), under the organization's home workspace
// where its webhooks are. c, p and st (the organization's settings) may be
// nil (they are loaded); a caller that read them in tx passes them.
func (s *Service) emitEnrollmentEvent(ctx context.Context, tx *store.Tx, slug string, e EnrollmentRecord, c *ledger.Charge, p *PlanRecord, st *ledger.Settings) error {
	if c == nil {
		ch, err := ledger.GetCharge(ctx, tx, e.OrganizationID, e.ChargeID)
		if err != nil {
			return err
		}
		c = &ch
	}
	if p == nil {
		pl, err := planByID(ctx, tx, e.OrganizationID, e.PlanID)
		if err != nil {
			return err
		}
		p = &pl
	}
	acc := s.Accounts.InTx(tx)
	ws, org, err := restkit.EventHome(ctx, acc, e.OrganizationID)
	if err != nil {
		return fmt.Errorf("dunning: emit %s: %w", slug, err)
	}
	if st == nil {
		loaded, err := ledger.LoadSettings(ctx, tx, e.OrganizationID)
		if err != nil {
			return err
		}
		st = &loaded
	}
	on := st.Today(s.Clock())
	b, err := ledger.ChargeBreakdown(*c, *st, on)
	if err != nil {
		return err
	}
	data := map[string]any{"enrollment": showEnrollment(e), "charge": ledger.ShowCharge(*c, b, on), "plan": showPlan(*p)}
	data["organization"] = org
	_, err = s.Hooks.Emit(ctx, tx, webhooks.Event{OrganizationID: e.OrganizationID, WorkspaceID: ws.ID, Slug: slug,
		SubjectID: c.ID, Data: data})
	return err
}
