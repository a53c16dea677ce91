package lifecycle

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// checkTable compares every pair of states against the arrows the
// product specifies, written out independently of the package's table.
func checkTable[S ~string](t *testing.T, m *Machine[S], allowed [][2]S) {
	t.Helper()
	want := map[[2]S]bool{}
	for _, a := range allowed {
		want[a] = true
	}
	for _, from := range m.States() {
		for _, to := range m.States() {
			err := m.Check(from, to)
			switch {
			case want[[2]S{from, to}]:
				if err != nil {
					t.Errorf("%s %s → %s refused: %v", m.Noun(), from, to, err)
				}
			case from == to:
				if !errors.Is(err, ErrNoChange) || errors.Is(err, ErrIllegalTransition) {
					t.Errorf("%s %s → %s: %v, want ErrNoChange", m.Noun(), from, to, err)
				}
			default:
				var te *TransitionError
				if !errors.As(err, &te) || !errors.Is(err, ErrIllegalTransition) || te.From != string(from) || te.To != string(to) {
					t.Errorf("%s %s → %s: %v, want an illegal transition", m.Noun(), from, to, err)
				}
			}
		}
	}
}

func TestChargeTable(t *testing.T) {
	t.Parallel()
	checkTable(t, Charges, [][2]ChargeStatus{
		{ChargePending, ChargeOverdue},
		{ChargePending, ChargePaid},
		{ChargeOverdue, ChargePaid},
		{ChargePending, ChargeCanceled},
		{ChargeOverdue, ChargeCanceled},
		{ChargeOverdue, ChargeWrittenOff},
		{ChargePending, ChargeInAgreement},
		{ChargeOverdue, ChargeInAgreement},
		{ChargeInAgreement, ChargePaid},
		{ChargeInAgreement, ChargeOverdue},
		{ChargeInAgreement, ChargeCanceled},
	})
}

func TestEnrollmentTable(t *testing.T) {
	t.Parallel()
	checkTable(t, Enrollments, [][2]EnrollmentStatus{
		{EnrollmentActive, EnrollmentCompleted},
		{EnrollmentActive, EnrollmentStopped},
	})
}

func TestPlanTable(t *testing.T) {
	t.Parallel()
	checkTable(t, Plans, [][2]PlanStatus{
		{PlanDraft, PlanActive},
		{PlanActive, PlanPaused},
		{PlanPaused, PlanActive},
		{PlanActive, PlanArchived},
		{PlanPaused, PlanArchived},
	})
}

func TestMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  error
		want string
	}{
		{ChargePaid.CanBecome(ChargeOverdue), "a paid charge cannot become overdue"},
		{ChargeOverdue.CanBecome(ChargePending), "an overdue charge cannot become pending"},
		{ChargePending.CanBecome(ChargeWrittenOff), "a pending charge cannot become written_off"},
		{ChargeInAgreement.CanBecome(ChargeWrittenOff), "an in_agreement charge cannot become written_off"},
		{ChargePaid.CanBecome(ChargePaid), "the charge is already paid"},
		{ChargeStatus("lost").CanBecome(ChargePaid), `unknown charge status "lost"`},
		{ChargePaid.CanBecome("lost"), `unknown charge status "lost"`},
		{EnrollmentCompleted.CanBecome(EnrollmentActive), "a completed enrollment cannot become active"},
		{EnrollmentStopped.CanBecome(EnrollmentActive), "a stopped enrollment cannot become active"},
		{PlanArchived.CanBecome(PlanActive), "an archived collection plan cannot become active"},
		{PlanDraft.CanBecome(PlanPaused), "a draft collection plan cannot become paused"},
		{PlanActive.CheckDelete(), "an active collection plan cannot be deleted; only a draft can (archive it instead)"},
		{PlanPaused.CheckDelete(), "a paused collection plan cannot be deleted; only a draft can (archive it instead)"},
		{PlanArchived.CheckDelete(), "an archived collection plan cannot be deleted; only a draft can"},
		{PlanStatus("gone").CheckDelete(), `unknown collection plan status "gone"`},
	}
	for _, tt := range tests {
		if tt.err == nil || tt.err.Error() != tt.want {
			t.Errorf("got %v, want %q", tt.err, tt.want)
		}
	}
	if err := PlanDraft.CheckDelete(); err != nil {
		t.Errorf("deleting a draft: %v", err)
	}
	if !errors.Is(PlanActive.CheckDelete(), ErrIllegalTransition) {
		t.Error("a refused deletion should match ErrIllegalTransition")
	}
}

func TestFinalAndNext(t *testing.T) {
	t.Parallel()
	var finals []string
	for _, s := range Charges.States() {
		if Charges.Final(s) {
			finals = append(finals, string(s))
		}
	}
	if fmt.Sprint(finals) != "[paid canceled written_off]" {
		t.Errorf("final charge states = %v", finals)
	}
	if Charges.Final("lost") {
		t.Error("an unknown state is not final")
	}
	if got := Charges.Next(ChargeInAgreement); !slices.Equal(got, []ChargeStatus{ChargePaid, ChargeOverdue, ChargeCanceled}) {
		t.Errorf("Next(in_agreement) = %v", got)
	}
	// Next returns a copy: changing it must not change the table.
	got := Plans.Next(PlanDraft)
	got[0] = PlanArchived
	if PlanDraft.CanBecome(PlanArchived) == nil {
		t.Error("Next exposed the table")
	}
	if !Enrollments.Final(EnrollmentCompleted) || !Enrollments.Final(EnrollmentStopped) || Enrollments.Final(EnrollmentActive) {
		t.Error("enrollment finals are wrong")
	}
	if !Plans.Final(PlanArchived) || Plans.Final(PlanPaused) {
		t.Error("plan finals are wrong")
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	if s, err := Charges.Parse("written_off"); err != nil || s != ChargeWrittenOff {
		t.Errorf("Parse(written_off) = %v, %v", s, err)
	}
	_, err := Charges.Parse("Paid")
	if err == nil || err.Error() != `charge status must be one of pending, overdue, paid, canceled, written_off, in_agreement (got "Paid")` {
		t.Errorf("Parse(Paid) = %v", err)
	}
	if _, err := Plans.Parse("draft"); err != nil {
		t.Error(err)
	}
}

func TestCollection(t *testing.T) {
	t.Parallel()
	for _, s := range Charges.States() {
		reason, stops := StopReasonFor(s)
		if stops == s.Collectible() {
			t.Errorf("%s: StopReasonFor says stops=%v, Collectible=%v", s, stops, s.Collectible())
		}
		if stops && string(reason) != string(s) {
			t.Errorf("%s stops with reason %q", s, reason)
		}
	}
	if !ChargePending.Collectible() || !ChargeOverdue.Collectible() || ChargeInAgreement.Collectible() {
		t.Error("Collectible is wrong")
	}
}

func TestTableNamesOnlyItsStates(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("a table naming an unknown state should panic at init")
		}
	}()
	newMachine("x", []string{"a"}, map[string][]string{"a": {"b"}})
}
