package ledger

import (
	"github.com/kobana/kobana-mcp/dunning/latefee"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
)

// What a charge costs on a day (dunning/latefee over the charge's ledger
// and the organization's caps and grace), and the charge after a
// payment's or a waiver's imputation.

// ChargeBreakdown is what the charge costs on date on — the one
// function that computes a charge's updated amount: its open principal,
// plus the fine and interest crystallised by payments and still unpaid,
// plus the fine (once) and the pro rata interest accrued since
// (dunning/latefee). The rates are the charge's, lowered to the caps of
// its debtor's kind as it is now (c.DebtorKind, latefee.Caps.Limit): a
// natural person's charge never owes more than CDC art. 52 §1's 2 % fine
// and the Lei de Usura's 1 % a month, whatever the charge stored. A
// charge costs nothing extra while it is paid on time: until its due
// date, or the next business day when that falls on a weekend or a bank
// holiday (of the organization's calendar), or the end of the
// organization's grace days, whichever is latest; after that, days late
// count from the due date. A charge out of collection (paid, canceled,
// written off, in an agreement) grows no more: its updated amount is
// what it owed when it left.
func ChargeBreakdown(c Charge, st Settings, on bankcalendar.Date) (latefee.Breakdown, error) {
	return newFeeRules(st).breakdown(c, on)
}

// chargeTerms are the charge's terms for dunning/latefee: its ledger and
// its rates within the caps of its debtor's kind now (chargeBreakdown).
func chargeTerms(c Charge, st Settings) latefee.Terms {
	return newFeeRules(st).terms(c)
}

// feeRules are what a charge's breakdown reads of the organization's
// settings — the caps, the business-day calendar and the grace days —
// made once for a page of charges instead of once a charge, with each
// due date's grace end remembered for the page and across pages
// (grace_ends.go; docs/performance.md, "Dunning listings"). Not safe for
// concurrent use.
type feeRules struct {
	caps      latefee.Caps
	cal       *bankcalendar.Calendar
	calKey    string // graceCalendarKey
	grace     int
	graceEnds map[bankcalendar.Date]bankcalendar.Date
}

// newFeeRules are st's rules for the breakdowns of one answer.
func newFeeRules(st Settings) *feeRules {
	return &feeRules{caps: st.Caps(), cal: st.Calendar(), calKey: graceCalendarKey(st), grace: max(st.GraceDays, 0)}
}

// breakdown is ChargeBreakdown under these rules.
func (r *feeRules) breakdown(c Charge, on bankcalendar.Date) (latefee.Breakdown, error) {
	if !c.Status.Collectible() {
		return latefee.Breakdown{Open: c.OpenAmount, Fine: c.FineDue, Interest: c.InterestDue,
			Updated: c.OpenAmount + c.FineDue + c.InterestDue}, nil
	}
	return latefee.Compute(r.terms(c), on)
}

// terms is chargeTerms under these rules.
func (r *feeRules) terms(c Charge) latefee.Terms {
	fine, interest := r.caps.Limit(chargeDebtorKind(c), c.Fine, c.Interest)
	return latefee.Terms{Open: c.OpenAmount, DueDate: c.DueDate, GraceUntil: r.graceEnd(c.DueDate),
		Fine: fine, InterestMonthly: interest, FineDue: c.FineDue, InterestDue: c.InterestDue,
		FineAssessed: c.FineAssessed, AccrualFrom: c.AccrualFrom}
}

// graceEnd is Settings.GraceEnd on these rules' calendar.
func (r *feeRules) graceEnd(due bankcalendar.Date) bankcalendar.Date {
	if end, ok := r.graceEnds[due]; ok {
		return end
	}
	end := rememberedGraceEnd(graceEndKey{calendar: r.calKey, grace: r.grace, due: due}, r.cal)
	if r.graceEnds == nil {
		r.graceEnds = make(map[bankcalendar.Date]bankcalendar.Date, 8)
	}
	r.graceEnds[due] = end
	return end
}

// chargeDebtorKind is the kind of the charge's debtor as loaded with it;
// a charge read without it (DebtorKind "") is held to the natural
// persons' caps, the stricter (latefee.Caps.Limit).
func chargeDebtorKind(c Charge) latefee.DebtorKind {
	return Debtor{PersonKind: c.DebtorKind}.FeeKind()
}

// withTerms is c with the ledger of t (latefee.Impute's answer): its
// principal left, the fine and interest still due, and from when
// interest accrues.
func withTerms(c Charge, t latefee.Terms) Charge {
	c.OpenAmount, c.FineDue, c.InterestDue, c.FineAssessed, c.AccrualFrom = t.Open, t.FineDue, t.InterestDue, t.FineAssessed, t.AccrualFrom
	return c
}
