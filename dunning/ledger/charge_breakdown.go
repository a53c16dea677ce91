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
	if !c.Status.Collectible() {
		return latefee.Breakdown{Open: c.OpenAmount, Fine: c.FineDue, Interest: c.InterestDue,
			Updated: c.OpenAmount + c.FineDue + c.InterestDue}, nil
	}
	return latefee.Compute(chargeTerms(c, st), on)
}

// chargeTerms are the charge's terms for dunning/latefee: its ledger and
// its rates within the caps of its debtor's kind now (chargeBreakdown).
func chargeTerms(c Charge, st Settings) latefee.Terms {
	fine, interest := st.Caps().Limit(chargeDebtorKind(c), c.Fine, c.Interest)
	return latefee.Terms{Open: c.OpenAmount, DueDate: c.DueDate, GraceUntil: st.GraceEnd(c.DueDate),
		Fine: fine, InterestMonthly: interest, FineDue: c.FineDue, InterestDue: c.InterestDue,
		FineAssessed: c.FineAssessed, AccrualFrom: c.AccrualFrom}
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
