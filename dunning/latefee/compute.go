package latefee

import (
	"errors"
	"math"
	"math/big"
	"math/bits"

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
	b := Breakdown{Open: t.Open}
	var fine, interest uint64
	if t.Late(on) {
		b.DaysLate = on.Sub(t.DueDate)
		ok := true
		if !t.FineAssessed {
			// Percent units are 1/10_000 of a percent, so a rate r means
			// r / 1_000_000 of the amount.
			fine, ok = roundedShare(uint64(t.Open), uint64(t.Fine), 1, 1_000_000)
		}
		if days := t.accrualDays(on); days > 0 && ok {
			interest, ok = roundedShare(uint64(t.Open), uint64(t.InterestMonthly), uint64(days), 30_000_000)
		}
		if !ok {
			return computeBig(t, on, b)
		}
	}
	fineCents, ok1 := addCents(uint64(t.FineDue), fine)
	interestCents, ok2 := addCents(uint64(t.InterestDue), interest)
	total, ok3 := addCents(uint64(t.Open), fineCents)
	total, ok4 := addCents(total, interestCents)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return Breakdown{}, ErrOverflow
	}
	b.Fine, b.Interest, b.Updated = money.Cents(fineCents), money.Cents(interestCents), money.Cents(total)
	return b, nil
}

// roundedShare is a·b·c / den rounded half-up, exactly, when a·b·c fits
// in 64 bits (false otherwise: computeBig then computes it). Every page
// of charges computes each one's fine and interest; big.Int allocated for
// each (docs/performance.md, "Dunning listings (issue 28)").
func roundedShare(a, b, c, den uint64) (uint64, bool) {
	hi, p := bits.Mul64(a, b)
	if hi != 0 {
		return 0, false
	}
	if hi, p = bits.Mul64(p, c); hi != 0 {
		return 0, false
	}
	// floor((2p + den) / (2den)) in 128 bits: the high word is at most 2,
	// below 2·den, as bits.Div64 requires.
	lo, carry := bits.Add64(p<<1, den, 0)
	q, _ := bits.Div64(p>>63+carry, lo, 2*den)
	return q, true
}

// addCents is a + b when it is at most the largest int64.
func addCents(a, b uint64) (uint64, bool) {
	s, carry := bits.Add64(a, b, 0)
	return s, carry == 0 && s <= math.MaxInt64
}

// computeBig is Compute in arbitrary precision, for the amounts, rates
// and days whose products pass 64 bits; b holds the open amount and the
// days late.
func computeBig(t Terms, on bankcalendar.Date, b Breakdown) (Breakdown, error) {
	open := big.NewInt(int64(t.Open))
	fineCents := big.NewInt(int64(t.FineDue))
	interestCents := big.NewInt(int64(t.InterestDue))
	if !t.FineAssessed {
		fine := new(big.Int).Mul(open, big.NewInt(int64(t.Fine)))
		fineCents.Add(fineCents, roundHalfUp(fine, big.NewInt(1_000_000)))
	}
	if days := t.accrualDays(on); days > 0 {
		interest := new(big.Int).Mul(open, big.NewInt(int64(t.InterestMonthly)))
		interest.Mul(interest, big.NewInt(int64(days)))
		interestCents.Add(interestCents, roundHalfUp(interest, big.NewInt(30_000_000)))
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
