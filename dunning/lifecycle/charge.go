package lifecycle

// ChargeStatus is where a charge (título) stands.
type ChargeStatus string

// Charge statuses.
const (
	// ChargePending: not yet due, or due today.
	ChargePending ChargeStatus = "pending"
	// ChargeOverdue: past its due date and unpaid.
	ChargeOverdue ChargeStatus = "overdue"
	// ChargePaid: settled, directly or through an agreement.
	ChargePaid ChargeStatus = "paid"
	// ChargeCanceled: the creditor withdrew it.
	ChargeCanceled ChargeStatus = "canceled"
	// ChargeWrittenOff: given up as a loss after being overdue.
	ChargeWrittenOff ChargeStatus = "written_off"
	// ChargeInAgreement: renegotiated into an agreement (acordo), whose
	// installments now carry the debt.
	ChargeInAgreement ChargeStatus = "in_agreement"
)

// Charges is the charge transition table:
//
//	pending      → overdue, paid, canceled, in_agreement
//	overdue      → paid, canceled, written_off, in_agreement
//	in_agreement → paid (agreement settled), overdue (agreement broken), canceled
//	paid, canceled, written_off: final
var Charges = newMachine("charge",
	[]ChargeStatus{ChargePending, ChargeOverdue, ChargePaid, ChargeCanceled, ChargeWrittenOff, ChargeInAgreement},
	map[ChargeStatus][]ChargeStatus{
		ChargePending:     {ChargeOverdue, ChargePaid, ChargeCanceled, ChargeInAgreement},
		ChargeOverdue:     {ChargePaid, ChargeCanceled, ChargeWrittenOff, ChargeInAgreement},
		ChargeInAgreement: {ChargePaid, ChargeOverdue, ChargeCanceled},
	})

// CanBecome is Charges.Check(s, to).
func (s ChargeStatus) CanBecome(to ChargeStatus) error { return Charges.Check(s, to) }

// Collectible reports whether the charge's collection plans keep
// contacting the debtor: only while it is pending or overdue. Collection
// stops when the debt is paid, canceled, written off or renegotiated.
func (s ChargeStatus) Collectible() bool {
	return s == ChargePending || s == ChargeOverdue
}

// StopReason is why an enrollment stopped, as the API reports it in
// stopped_reason.
type StopReason string

// Stop reasons. The first four follow from the charge's new status
// (StopReasonFor); the others from an action on the enrollment or plan.
const (
	StopPaid         StopReason = "paid"
	StopCanceled     StopReason = "canceled"
	StopWrittenOff   StopReason = "written_off"
	StopInAgreement  StopReason = "in_agreement"
	StopUnenrolled   StopReason = "unenrolled"
	StopPlanArchived StopReason = "plan_archived"
)

// StopReasonFor says whether a charge entering status s must stop its
// active enrollments, and with what reason: every status that is not
// Collectible does.
func StopReasonFor(s ChargeStatus) (StopReason, bool) {
	switch s {
	case ChargePaid:
		return StopPaid, true
	case ChargeCanceled:
		return StopCanceled, true
	case ChargeWrittenOff:
		return StopWrittenOff, true
	case ChargeInAgreement:
		return StopInAgreement, true
	}
	return "", false
}
