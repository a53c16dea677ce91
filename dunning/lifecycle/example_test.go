package lifecycle_test

import (
	"errors"
	"fmt"

	"github.com/kobana/kobana-mcp/dunning/lifecycle"
)

func ExampleChargeStatus_CanBecome() {
	fmt.Println(lifecycle.ChargeOverdue.CanBecome(lifecycle.ChargePaid))
	err := lifecycle.ChargePaid.CanBecome(lifecycle.ChargeOverdue)
	fmt.Println(err, errors.Is(err, lifecycle.ErrIllegalTransition))
	err = lifecycle.ChargeCanceled.CanBecome(lifecycle.ChargeCanceled)
	fmt.Println(err, errors.Is(err, lifecycle.ErrNoChange))
	// Output:
	// <nil>
	// a paid charge cannot become overdue true
	// the charge is already canceled true
}

// When a charge leaves collection, its enrollments stop with a reason.
func ExampleStopReasonFor() {
	reason, stop := lifecycle.StopReasonFor(lifecycle.ChargeInAgreement)
	fmt.Println(stop, reason, lifecycle.EnrollmentActive.CanBecome(lifecycle.EnrollmentStopped))
	// Output: true in_agreement <nil>
}

func ExamplePlanStatus_CheckDelete() {
	fmt.Println(lifecycle.PlanDraft.CheckDelete())
	fmt.Println(lifecycle.PlanActive.CheckDelete())
	// Output:
	// <nil>
	// an active collection plan cannot be deleted; only a draft can (archive it instead)
}

func ExampleMachine_Next() {
	fmt.Println(lifecycle.Plans.Next(lifecycle.PlanActive))
	// Output: [paused archived]
}
