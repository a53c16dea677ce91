package lifecycle

import "fmt"

// PlanStatus is where a collection plan (régua) stands.
type PlanStatus string

// Collection plan statuses.
const (
	// PlanDraft: being written; charges cannot be enrolled yet.
	PlanDraft PlanStatus = "draft"
	// PlanActive: enrolled charges run through its steps.
	PlanActive PlanStatus = "active"
	// PlanPaused: steps wait; enrollments are kept.
	PlanPaused PlanStatus = "paused"
	// PlanArchived: retired for good, kept for history.
	PlanArchived PlanStatus = "archived"
)

// Plans is the collection plan transition table:
//
//	draft  → active
//	active → paused, archived
//	paused → active, archived
//	archived: final
//
// A draft is deleted rather than archived (CheckDelete): it never
// contacted anyone, so there is no history to keep.
var Plans = newMachine("collection plan",
	[]PlanStatus{PlanDraft, PlanActive, PlanPaused, PlanArchived},
	map[PlanStatus][]PlanStatus{
		PlanDraft:  {PlanActive},
		PlanActive: {PlanPaused, PlanArchived},
		PlanPaused: {PlanActive, PlanArchived},
	})

// CanBecome is Plans.Check(s, to).
func (s PlanStatus) CanBecome(to PlanStatus) error { return Plans.Check(s, to) }

// CheckDelete allows deleting a plan only while it is a draft; a plan
// that was ever active has contacted debtors and is archived instead.
// The error matches ErrIllegalTransition.
func (s PlanStatus) CheckDelete() error {
	if !Plans.Valid(s) {
		return fmt.Errorf("unknown collection plan status %.40q", string(s))
	}
	if s == PlanDraft {
		return nil
	}
	return &deleteError{status: s}
}

type deleteError struct{ status PlanStatus }

func (e *deleteError) Error() string {
	msg := fmt.Sprintf("%s %s collection plan cannot be deleted; only a draft can", article(string(e.status)), e.status)
	if e.status != PlanArchived {
		msg += " (archive it instead)"
	}
	return msg
}

func (e *deleteError) Is(target error) bool { return target == ErrIllegalTransition }
