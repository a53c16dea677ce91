package collection

import (
	"fmt"
	"time"

	"github.com/kobana/kobana-mcp/dunning/msgtemplate"
)

// How the collection API and its events show plans, enrollments and the
// steps on a charge's calendar, and the words its messages name them
// with (D-3, "2 steps").

// PlanJSON is a plan as listings show it.
type PlanJSON struct {
	ID          string    `json:"id"`
	ExternalID  *string   `json:"external_id"`
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Status      string    `json:"status"`
	StepsCount  int       `json:"steps_count"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

func showPlan(p PlanRecord) PlanJSON {
	return PlanJSON{ID: p.ID, ExternalID: p.ExternalID, Name: p.Name, Description: p.Description, Status: p.Status,
		StepsCount: p.StepsCount, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
}

// EnrollmentJSON is an enrollment as the API and the events show it.
type EnrollmentJSON struct {
	ID            string     `json:"id"`
	ChargeID      string     `json:"charge_id"`
	PlanID        string     `json:"plan_id"`
	Status        string     `json:"status"`
	NextStepID    *string    `json:"next_step_id"`
	NextRunAt     *time.Time `json:"next_run_at"`
	SkippedPast   int        `json:"skipped_past"`
	StartedAt     time.Time  `json:"started_at"`
	StoppedAt     *time.Time `json:"stopped_at"`
	StoppedReason *string    `json:"stopped_reason"`
	CreatedAt     time.Time  `json:"created_at"`
	UpdatedAt     time.Time  `json:"updated_at"`
}

func showEnrollment(e EnrollmentRecord) EnrollmentJSON {
	return EnrollmentJSON{ID: e.ID, ChargeID: e.ChargeID, PlanID: e.PlanID, Status: e.Status, NextStepID: e.NextStepID,
		NextRunAt: e.NextRunAt, SkippedPast: e.SkippedPast, StartedAt: e.StartedAt, StoppedAt: e.StoppedAt,
		StoppedReason: e.StoppedReason, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt}
}

// stepRunJSON is one step of a plan on a charge's calendar, as the
// enrollment's answer lists it.
type stepRunJSON struct {
	StepID     string    `json:"step_id"`
	OffsetDays int       `json:"offset_days"`
	Channel    string    `json:"channel"`
	Action     string    `json:"action"`
	RunAt      time.Time `json:"run_at"`
	Moves      []string  `json:"moves"`
}

func showStepRun(e CalendarEntry) stepRunJSON {
	moves := e.Run.Moves
	if moves == nil {
		moves = []string{}
	}
	return stepRunJSON{StepID: e.Step.ID, OffsetDays: e.Step.OffsetDays, Channel: e.Step.Channel, Action: e.Step.Action,
		RunAt: e.Run.At, Moves: moves}
}

// plural is "1 step" or "3 steps".
func planPlural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// StepDay names a step's day as people write it in a régua: D-3, D0,
// D+5.
func StepDay(offset int) string {
	switch {
	case offset > 0:
		return fmt.Sprintf("D+%d", offset)
	case offset < 0:
		return fmt.Sprintf("D%d", offset)
	}
	return "D0"
}

func stepDescribeLength(l msgtemplate.Length) string {
	if l.Channel == msgtemplate.SMS {
		return fmt.Sprintf("%d SMS segments (%d %s units)", l.Segments, l.Units, l.Encoding)
	}
	return fmt.Sprintf("%d characters", l.Characters)
}
