package latefee

import (
	"errors"
	"testing"

	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/money"
)

// lateCharge is the charge: R$ 1 000 due 2026-10-01, 2 % fine,
// 1 % a month; on 2026-12-01 (61 days late) it costs R$ 1 040,33.
func lateCharge(t *testing.T) (Terms, bankcalendar.Date) {
	t.Helper()
	due, _ := bankcalendar.ParseDate("2026-10-01")
	on, _ := bankcalendar.ParseDate("2026-12-01")
	terms := Terms{Open: 100000, DueDate: due, Fine: 2 * OnePercent, InterestMonthly: OnePercent}
	if b, err := Compute(terms, on); err != nil || b.Updated != 104033 || b.Fine != 2000 || b.Interest != 2033 {
		t.Fatalf("updated = %+v, %v; want 1040.33 (fine 20, interest 20.33)", b, err)
	}
	return terms, on
}

// TestImputeInterestFirst: Código Civil art. 354 — a payment pays the
// interest, then the fine, then the principal; the face value on a late
// charge leaves its fine and interest open, and only the updated amount
// clears it.
func TestImputeInterestFirst(t *testing.T) {
	t.Parallel()
	terms, on := lateCharge(t)
	cases := []struct {
		pay, interest, fine, principal, updated money.Cents
		cleared                                 bool
	}{
		{pay: 100000, interest: 2033, fine: 2000, principal: 95967, updated: 4033},
		{pay: 50000, interest: 2033, fine: 2000, principal: 45967, updated: 54033},
		{pay: 104033, interest: 2033, fine: 2000, principal: 100000, updated: 0, cleared: true},
		{pay: 3000, interest: 2033, fine: 967, principal: 0, updated: 101033},
	}
	for _, c := range cases {
		after, a, err := Impute(terms, InterestFirst, c.pay, on)
		if err != nil {
			t.Fatal(err)
		}
		if a != (Applied{Interest: c.interest, Fine: c.fine, Principal: c.principal}) {
			t.Errorf("pay %d: applied %+v", c.pay, a)
		}
		b, err := Compute(after, on)
		if err != nil || b.Updated != c.updated || after.Cleared() != c.cleared {
			t.Errorf("pay %d: after %+v updated %+v cleared %v, want %d %v", c.pay, after, b, after.Cleared(), c.updated, c.cleared)
		}
	}
	// Interest afterwards accrues on the principal left, from the day of
	// the payment; the fine is never assessed twice.
	after, _, _ := Impute(terms, InterestFirst, 50000, on)
	b, _ := Compute(after, on.AddDays(30))
	if b.Fine != 0 || b.Interest != 540 || b.Updated != 54573 {
		t.Errorf("30 days later: %+v, want interest 5.40 on 540.33 and no new fine", b)
	}
	if _, _, err := Impute(terms, InterestFirst, 104034, on); !errors.Is(err, ErrOverpaid) {
		t.Errorf("overpaying: %v", err)
	}
}

// TestImputePrincipalFirst: the creditor that agreed otherwise (art.
// 354's "estipulação em contrário") keeps the old rule — R$ 500 leaves
// R$ 500 of principal, R$ 520,17 with fine and interest on it — and still
// only the updated amount clears.
func TestImputePrincipalFirst(t *testing.T) {
	t.Parallel()
	terms, on := lateCharge(t)
	after, a, err := Impute(terms, PrincipalFirst, 50000, on)
	if err != nil || a != (Applied{Principal: 50000}) {
		t.Fatalf("applied %+v, %v", a, err)
	}
	if b, _ := Compute(after, on); b.Updated != 52017 {
		t.Errorf("after 500: %+v, want 520.17", b)
	}
	after, a, _ = Impute(terms, PrincipalFirst, 100000, on)
	if b, _ := Compute(after, on); after.Cleared() || b.Updated != 4033 || a.Principal != 100000 {
		t.Errorf("after the face value: %+v %+v, want 40.33 of fine and interest open", after, b)
	}
	after, a, _ = Impute(terms, PrincipalFirst, 104033, on)
	if !after.Cleared() || a != (Applied{Principal: 100000, Fine: 2000, Interest: 2033}) {
		t.Errorf("paying the updated amount: %+v %+v", after, a)
	}
}

// TestLimitFollowsKind: the caps apply at computation, from the kind.
func TestLimitFollowsKind(t *testing.T) {
	t.Parallel()
	caps := DefaultCaps()
	caps.CompanyInterest = 3 * OnePercent
	if f, i := caps.Limit(NaturalPerson, 10*OnePercent, 2*OnePercent); f != ConsumerFineCap || i != NaturalPersonInterestCap {
		t.Errorf("natural person: %v %v", f, i)
	}
	if f, i := caps.Limit(Company, 10*OnePercent, 2*OnePercent); f != 10*OnePercent || i != 2*OnePercent {
		t.Errorf("company within caps: %v %v", f, i)
	}
	if f, i := caps.Limit(Company, 12*OnePercent, 4*OnePercent); f != 10*OnePercent || i != 3*OnePercent {
		t.Errorf("company above caps: %v %v", f, i)
	}
	if f, _ := caps.Limit("", 10*OnePercent, 0); f != ConsumerFineCap {
		t.Errorf("unknown kind: %v", f)
	}
}
