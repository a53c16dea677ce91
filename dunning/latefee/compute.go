package latefee

import (
	"errors"
	"math/big"

	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/money"
)

// Terms are what a charge says about lateness.
type Terms struct {
	// Open is the amount still owed, in cents.
	Open money.Cents
	// DueDate is the charge's due date; days late count from it.
	DueDate bankcalendar.Date
	// GraceUntil, when set and after DueDate, is the last day the charge
	// is still paid on time: pass calendar's NextBusinessDay(DueDate) so a
	// charge due on a Saturday or holiday costs nothing when paid on the
	// next business day (FEBRABAN's rule for boletos). Paid later, its
	// days late still count from DueDate.
	GraceUntil bankcalendar.Date
	// Fine is the one-time fine, a percent of Open.
	Fine Percent
	// InterestMonthly is the monthly interest rate, charged pro rata at
	// one thirtieth per calendar day late.
	InterestMonthly Percent

	// What earlier payments crystallised (Accrue): FineDue and
	// InterestDue are fine and interest assessed and still unpaid;
	// FineAssessed says the one-time fine was assessed already (it is
	// never charged twice); AccrualFrom, when set, is the day interest
	// on Open accrues from instead of DueDate. A charge no payment ever
	// touched has them all zero, and Compute is the plain formula.
	FineDue      money.Cents
	InterestDue  money.Cents
	FineAssessed bool
	AccrualFrom  bankcalendar.Date
}

// Breakdown is a charge's amount on a date. Updated is Open + Fine +
// Interest, the components each rounded half-up to the cent.
type Breakdown struct {
	Open     money.Cents `json:"open_amount"`
	Fine     money.Cents `json:"fine_amount"`
	Interest money.Cents `json:"interest_amount"`
	Updated  money.Cents `json:"updated_amount"`
	DaysLate int         `json:"days_late"`
}

// Errors for terms Compute cannot work with.
var (
	ErrNoDueDate = errors.New("charge has no due date")
	ErrNegative  = errors.New("open amount and percentages must not be negative")
	ErrOverflow  = errors.New("updated amount is too large")
)

// Compute is the charge's amount on date on (in the organization's
// calendar: callers pass bankcalendar.DateOf(now.In(zone))). On or before the
// due date (or GraceUntil) it is the open amount and DaysLate is 0.
// After it:
//
//	DaysLate = on − DueDate, in calendar days
//	Fine     = round(Open × Fine / 100)
//	Interest = round(Open × InterestMonthly / 100 × DaysLate / 30)
//	Updated  = Open + Fine + Interest
//
// where round is half-up to the cent, applied once per component to its
// exact rational value. Example: R$ 1.000,00 with a 2 % fine and 1 % a
// month, 45 days late: fine R$ 20,00, interest R$ 15,00, updated
// R$ 1.035,00.
func Compute(t Terms, on bankcalendar.Date) (Breakdown, error) {
	if t.DueDate.IsZero() {
		return Breakdown{}, ErrNoDueDate
	}
	if t.Open < 0 || t.Fine < 0 || t.InterestMonthly < 0 || t.FineDue < 0 || t.InterestDue < 0 {
		return Breakdown{}, ErrNegative
	}
	open := big.NewInt(int64(t.Open))
	fineCents := big.NewInt(int64(t.FineDue))
	interestCents := big.NewInt(int64(t.InterestDue))
	b := Breakdown{Open: t.Open}
	if t.Late(on) {
		b.DaysLate = on.Sub(t.DueDate)
		if !t.FineAssessed {
			// Percent units are 1/10_000 of a percent, so a rate r means
			// r / 1_000_000 of the amount.
			fine := new(big.Int).Mul(open, big.NewInt(int64(t.Fine)))
			fineCents.Add(fineCents, roundHalfUp(fine, big.NewInt(1_000_000)))
		}
		if days := t.accrualDays(on); days > 0 {
			interest := new(big.Int).Mul(open, big.NewInt(int64(t.InterestMonthly)))
			interest.Mul(interest, big.NewInt(int64(days)))
			interestCents.Add(interestCents, roundHalfUp(interest, big.NewInt(30_000_000)))
		}
	}
	total := new(big.Int).Add(open, fineCents)
	total.Add(total, interestCents)
	if !total.IsInt64() {
		return Breakdown{}, ErrOverflow
	}
	b.Fine = money.Cents(fineCents.Int64())
	b.Interest = money.Cents(interestCents.Int64())
	b.Updated = money.Cents(total.Int64())
	return b, nil
}

// Late reports whether a charge under t is late on date on: after its
// due date and its GraceUntil.
func (t Terms) Late(on bankcalendar.Date) bool {
	onTimeUntil := t.DueDate
	if t.GraceUntil.After(onTimeUntil) {
		onTimeUntil = t.GraceUntil
	}
	return on.After(onTimeUntil)
}

// accrualDays are the days of interest on Open not yet crystallised on
// date on: from AccrualFrom (or the due date), never negative.
func (t Terms) accrualDays(on bankcalendar.Date) int {
	from := t.DueDate
	if t.AccrualFrom.After(from) {
		from = t.AccrualFrom
	}
	return max(on.Sub(from), 0)
}

// roundHalfUp is num/den rounded half-up, for num ≥ 0 and den > 0:
// floor((2·num + den) / (2·den)).
func roundHalfUp(num, den *big.Int) *big.Int {
	n := new(big.Int).Lsh(num, 1)
	n.Add(n, den)
	d := new(big.Int).Lsh(den, 1)
	return n.Quo(n, d)
}
