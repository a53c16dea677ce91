package collection

import (
	"context"
	"errors"
	"fmt"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// The enrollment operations: enrolling a charge in a plan and stopping it,
// each confirmed (they start or stop contact with a debtor). What they do
// is enrollments.go's; the SQL is enrollments_store.go's.

// registerEnrollments declares dunning_charges_enroll and
// dunning_charges_unenroll.
func registerEnrollments(api *rest.API, s *Service) {
	rest.HandleConfirmed(api, rest.Operation{
		ID: "dunning_charges_enroll", Method: "PUT", Path: "/charges/{id}/collection-plans/{cp_id}", Tags: []string{"enrollments"},
		Title: "Enroll a charge in a collection plan",
		Summary: "Enrolls a pending or overdue charge in an active collection plan: from now on its debtor is contacted automatically at each step's " +
			"instant. Steps already past are skipped, never sent late (skipped_past, skipped_past_steps); the answer names the next step and next_run_at. " +
			"Enrolling a charge already running through the plan changes nothing; one that stopped or completed starts again from now.",
		Description: "Destructive: it starts automatic contact with the debtor. Check the calendar first with dunning_charges_preview.",
		Requires:    plansManage, Annotations: restkit.Destructive(true), ConsumesConfirmation: true,
	}, s.describeChargesEnroll, s.chargesEnroll)
	rest.HandleConfirmed(api, rest.Operation{
		ID: "dunning_charges_unenroll", Method: "DELETE", Path: "/charges/{id}/collection-plans/{cp_id}", Tags: []string{"enrollments"},
		Title: "Stop a collection plan for a charge",
		Summary: "Stops a charge's run through a collection plan: none of its remaining steps is sent (the enrollment ends with stopped_reason unenrolled). " +
			"Stopping an enrollment that already ended changes nothing.",
		Description: "Destructive: the remaining steps are not sent; enrolling again starts over from that moment.",
		Requires:    plansManage, Annotations: restkit.Destructive(true), ConsumesConfirmation: true,
	}, s.describeChargesUnenroll, s.chargesUnenroll)
}

// describeChargesEnroll is the confirmation dunning_charges_enroll asks for.
func (s *Service) describeChargesEnroll(ctx context.Context, in *enrollmentRefIn) (string, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return "", err
	}
	c, p, err := s.enrollable(ctx, s.DB, t.OrgID, in, false)
	if err != nil {
		return "", err
	}
	if e, err := GetEnrollment(ctx, s.DB, t.OrgID, c.ID, p.ID, ""); err == nil && e.Status == string(lifecycle.EnrollmentActive) {
		return fmt.Sprintf("Charge %s already runs through collection plan '%s': nothing will change.", enrollChargeName(c), p.Name), nil
	}
	if err := enrollChecks(c, p); err != nil {
		return "", err
	}
	st, err := s.Settings(ctx, t.OrgID)
	if err != nil {
		return "", err
	}
	cal, err := ChargePlanCalendar(ctx, s.DB, c, p, st)
	if err != nil {
		return "", err
	}
	past, upcoming := splitPast(cal, s.Clock())
	msg := fmt.Sprintf("Enroll charge %s (%s, due %s) in collection plan '%s'? Its debtor will be contacted automatically", enrollChargeName(c),
		c.OpenAmount, c.DueDate.BR(), p.Name)
	if len(upcoming) > 0 {
		first := upcoming[0]
		msg += fmt.Sprintf(": %s to come, the first by %s on %s %s (%s)", planPlural(len(upcoming), "step", "steps"), first.Step.Channel,
			first.Run.Date.BR(), first.Run.Time, st.Timezone)
	} else {
		msg += " — but every step is already past, so nothing will be sent"
	}
	if len(past) > 0 {
		msg += fmt.Sprintf("; %s already past will not be sent", planPlural(len(past), "step", "steps"))
	}
	return msg + ".", nil
}

// chargesEnroll answers dunning_charges_enroll.
func (s *Service) chargesEnroll(ctx context.Context, in *enrollmentRefIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	var ans EnrollmentAnswerJSON
	created := false
	// Two concurrent first enrollments of one charge in one plan: the
	// loser's insert conflicts on the unique index, and its second
	// attempt finds the winner's enrollment.
	for attempt := 0; ; attempt++ {
		err = s.Nonces.WithTx(ctx, func(tx *store.Tx) error {
			var err error
			ans, created, err = s.enroll(ctx, tx, t.OrgID, in)
			return err
		})
		if !(errors.Is(err, store.ErrConflict) && attempt == 0) {
			break
		}
	}
	if errors.Is(err, store.ErrConflict) {
		return nil, rest.Conflict("the charge was being enrolled in this collection plan by another request: try again")
	}
	if err != nil {
		return nil, planErr(err)
	}
	if created {
		return rest.Created(map[string]any{"data": ans}), nil
	}
	return rest.OK(map[string]any{"data": ans}), nil
}

// describeChargesUnenroll is the confirmation dunning_charges_unenroll asks for.
func (s *Service) describeChargesUnenroll(ctx context.Context, in *enrollmentRefIn) (string, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return "", err
	}
	c, p, err := s.enrollable(ctx, s.DB, t.OrgID, in, false)
	if err != nil {
		return "", err
	}
	e, err := GetEnrollment(ctx, s.DB, t.OrgID, c.ID, p.ID, "")
	if errors.Is(err, store.ErrNotFound) {
		return "", errNotEnrolled()
	}
	if err != nil {
		return "", err
	}
	if e.Status != string(lifecycle.EnrollmentActive) {
		return fmt.Sprintf("Charge %s's run through collection plan '%s' is already %s: nothing will change.", enrollChargeName(c), p.Name, e.Status), nil
	}
	return fmt.Sprintf("Stop collection plan '%s' for charge %s? None of its remaining steps will be sent to the debtor.", p.Name, enrollChargeName(c)), nil
}

// chargesUnenroll answers dunning_charges_unenroll.
func (s *Service) chargesUnenroll(ctx context.Context, in *enrollmentRefIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	var e EnrollmentRecord
	err = s.Nonces.WithTx(ctx, func(tx *store.Tx) error {
		c, p, err := s.enrollable(ctx, tx, t.OrgID, in, true)
		if err != nil {
			return err
		}
		e, err = GetEnrollment(ctx, tx, t.OrgID, c.ID, p.ID, ledger.ForUpdate(tx))
		if errors.Is(err, store.ErrNotFound) {
			return errNotEnrolled()
		}
		if err != nil {
			return err
		}
		if e.Status != string(lifecycle.EnrollmentActive) {
			return nil
		}
		return s.StopEnrollment(ctx, tx, &e, lifecycle.StopUnenrolled, &c, &p)
	})
	if err != nil {
		return nil, planErr(err)
	}
	return rest.OK(map[string]any{"data": showEnrollment(e)}), nil
}

func errNotEnrolled() *rest.Error {
	return rest.NotFound("enrollment (the charge is not enrolled in this collection plan)")
}

// enrollChargeName names a charge in messages: its external id when it has one.
func enrollChargeName(c ledger.Charge) string {
	if c.ExternalID != nil && *c.ExternalID != "" {
		return fmt.Sprintf("'%s'", *c.ExternalID)
	}
	return c.ID
}
