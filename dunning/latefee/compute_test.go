package latefee

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/money"
)

func date(y int, m time.Month, d int) bankcalendar.Date { return bankcalendar.NewDate(y, m, d) }

// Every row is computed by hand; the comment shows the arithmetic.
func TestCompute(t *testing.T) {
	t.Parallel()
	due := date(2026, time.March, 10)
	tests := []struct {
		name     string
		terms    Terms
		on       bankcalendar.Date
		fine     money.Cents
		interest money.Cents
		updated  money.Cents
		days     int
	}{
		{
			// 100 000 × 2 % = 2 000; 100 000 × 1 % × 45/30 = 1 500.
			name:  "R$ 1.000,00, 2 %, 1 %/month, 45 days",
			terms: Terms{Open: 100000, DueDate: due, Fine: 2 * OnePercent, InterestMonthly: OnePercent},
			on:    date(2026, time.April, 24),
			fine:  2000, interest: 1500, updated: 103500, days: 45,
		},
		{
			name:  "on the due date: open amount only",
			terms: Terms{Open: 100000, DueDate: due, Fine: 2 * OnePercent, InterestMonthly: OnePercent},
			on:    due,
			fine:  0, interest: 0, updated: 100000, days: 0,
		},
		{
			name:  "before the due date",
			terms: Terms{Open: 100000, DueDate: due, Fine: 2 * OnePercent, InterestMonthly: OnePercent},
			on:    date(2026, time.March, 5),
			fine:  0, interest: 0, updated: 100000, days: 0,
		},
		{
			// 100 000 × 2 % = 2 000; 100 000 × 1 % / 30 = 33.33 → 33.
			name:  "one day late",
			terms: Terms{Open: 100000, DueDate: due, Fine: 2 * OnePercent, InterestMonthly: OnePercent},
			on:    date(2026, time.March, 11),
			fine:  2000, interest: 33, updated: 102033, days: 1,
		},
		{
			// 12 345 × 2 % = 246.9 → 247; 12 345 × 1 % × 10/30 = 41.15 → 41.
			name:  "R$ 123,45, 10 days",
			terms: Terms{Open: 12345, DueDate: due, Fine: 2 * OnePercent, InterestMonthly: OnePercent},
			on:    date(2026, time.March, 20),
			fine:  247, interest: 41, updated: 12633, days: 10,
		},
		{
			// 3 333 × 2.5 % = 83.325 → 83; 3 333 × 1 % × 31/30 = 34.441 → 34.
			name:  "R$ 33,33, 2,5 % (company), 31 days",
			terms: Terms{Open: 3333, DueDate: due, Fine: 25000, InterestMonthly: OnePercent},
			on:    date(2026, time.April, 10),
			fine:  83, interest: 34, updated: 3450, days: 31,
		},
		{
			// 25 × 2 % = 0.5 → 1 (half-up); 25 × 1 % × 30/30 = 0.25 → 0.
			name:  "a fine of exactly half a cent rounds up",
			terms: Terms{Open: 25, DueDate: due, Fine: 2 * OnePercent, InterestMonthly: OnePercent},
			on:    date(2026, time.April, 9),
			fine:  1, interest: 0, updated: 26, days: 30,
		},
		{
			// 7 500 × 2 % = 150; 7 500 × 1 % / 30 = 2.5 → 3 (half-up).
			name:  "interest of exactly half a cent rounds up",
			terms: Terms{Open: 7500, DueDate: due, Fine: 2 * OnePercent, InterestMonthly: OnePercent},
			on:    date(2026, time.March, 11),
			fine:  150, interest: 3, updated: 7653, days: 1,
		},
		{
			// 1 × 2 % = 0.02 → 0; 1 × 1 % / 30 → 0.
			name:  "R$ 0,01 stays R$ 0,01",
			terms: Terms{Open: 1, DueDate: due, Fine: 2 * OnePercent, InterestMonthly: OnePercent},
			on:    date(2026, time.March, 11),
			fine:  0, interest: 0, updated: 1, days: 1,
		},
		{
			// Interest rounded once over 7 days: 9 999 × 1 % × 7/30 = 23.331 → 23
			// (rounding day by day would give 7 × round(3.333) = 21).
			name:  "interest is rounded once, not per day",
			terms: Terms{Open: 9999, DueDate: due, InterestMonthly: OnePercent},
			on:    date(2026, time.March, 17),
			fine:  0, interest: 23, updated: 10022, days: 7,
		},
		{
			// 0.0333 %/month: 1 000 000 × 0.000333 × 60/30 = 666.
			name:  "four-decimal rate",
			terms: Terms{Open: 1000000, DueDate: due, InterestMonthly: 333},
			on:    date(2026, time.May, 9),
			fine:  0, interest: 666, updated: 1000666, days: 60,
		},
		{
			// Across a leap day: 2024-02-28 → 2024-03-01 is 2 days;
			// 300 000 × 2 % = 6 000; 300 000 × 1 % × 2/30 = 200.
			name:  "leap year",
			terms: Terms{Open: 300000, DueDate: date(2024, time.February, 28), Fine: 2 * OnePercent, InterestMonthly: OnePercent},
			on:    date(2024, time.March, 1),
			fine:  6000, interest: 200, updated: 306200, days: 2,
		},
		{
			// money.Max, ten years (3 650 days):
			// fine 10^15 × 2 % = 2·10^13; interest 10^15 × 1 % × 3 650/30
			// = 1 216 666 666 666 666.67 → 1 216 666 666 666 667.
			name:  "largest amount, ten years",
			terms: Terms{Open: money.Max, DueDate: date(2026, time.January, 1), Fine: 2 * OnePercent, InterestMonthly: OnePercent},
			on:    date(2026, time.January, 1).AddDays(3650),
			fine:  20_000_000_000_000, interest: 1_216_666_666_666_667, updated: 2_236_666_666_666_667, days: 3650,
		},
		{
			name:  "no fine, no interest",
			terms: Terms{Open: 5000, DueDate: due},
			on:    date(2026, time.June, 1),
			fine:  0, interest: 0, updated: 5000, days: 83,
		},
		{
			// Due Saturday 14 Feb 2026 (Carnival weekend); payable until
			// Wednesday 18 without charges.
			name:  "paid within the grace period",
			terms: Terms{Open: 100000, DueDate: date(2026, time.February, 14), GraceUntil: date(2026, time.February, 18), Fine: 2 * OnePercent, InterestMonthly: OnePercent},
			on:    date(2026, time.February, 18),
			fine:  0, interest: 0, updated: 100000, days: 0,
		},
		{
			// After the grace: days from the due date, 14 → 19 Feb = 5;
			// 100 000 × 1 % × 5/30 = 166.67 → 167.
			name:  "after the grace period, days count from the due date",
			terms: Terms{Open: 100000, DueDate: date(2026, time.February, 14), GraceUntil: date(2026, time.February, 18), Fine: 2 * OnePercent, InterestMonthly: OnePercent},
			on:    date(2026, time.February, 19),
			fine:  2000, interest: 167, updated: 102167, days: 5,
		},
		{
			name:  "a grace date before the due date is ignored",
			terms: Terms{Open: 100000, DueDate: due, GraceUntil: date(2026, time.March, 1), Fine: 2 * OnePercent},
			on:    date(2026, time.March, 11),
			fine:  2000, interest: 0, updated: 102000, days: 1,
		},
	}
	for _, tt := range tests {
		got, err := Compute(tt.terms, tt.on)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		want := Breakdown{Open: tt.terms.Open, Fine: tt.fine, Interest: tt.interest, Updated: tt.updated, DaysLate: tt.days}
		if got != want {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, want)
		}
		if got.Updated != got.Open+got.Fine+got.Interest {
			t.Errorf("%s: updated is not the sum of its parts: %+v", tt.name, got)
		}
	}
}

func TestComputeErrors(t *testing.T) {
	t.Parallel()
	due := date(2026, time.March, 10)
	on := date(2026, time.April, 10)
	tests := []struct {
		terms Terms
		want  error
	}{
		{Terms{Open: 100}, ErrNoDueDate},
		{Terms{Open: -1, DueDate: due}, ErrNegative},
		{Terms{Open: 1, DueDate: due, Fine: -1}, ErrNegative},
		{Terms{Open: 1, DueDate: due, InterestMonthly: -1}, ErrNegative},
		// The largest amount at 100 %/month for a month still fits.
		{Terms{Open: money.Max, DueDate: due, InterestMonthly: MaxPercent}, nil},
	}
	for _, tt := range tests {
		_, err := Compute(tt.terms, on)
		if !errors.Is(err, tt.want) {
			t.Errorf("Compute(%+v) error = %v, want %v", tt.terms, err, tt.want)
		}
	}
	_, err := Compute(Terms{Open: money.Max, DueDate: due, InterestMonthly: MaxPercent}, due.AddDays(365_000))
	if !errors.Is(err, ErrOverflow) {
		t.Errorf("a thousand years at 100 %%/month: error = %v, want ErrOverflow", err)
	}
}

// TestComputeWordsAreExact: Compute's 64-bit arithmetic answers what
// arbitrary precision answers (computeBig), for amounts, rates and days
// from zero to past 64-bit products, half-cent ties included, and for
// totals at and past the largest int64.
func TestComputeWordsAreExact(t *testing.T) {
	t.Parallel()
	due := bankcalendar.NewDate(2026, 1, 10)
	rng := rand.New(rand.NewPCG(28, 2026))
	pick := func(limits ...int64) int64 {
		if l := limits[rng.IntN(len(limits))]; l < math.MaxInt64 {
			return rng.Int64N(l + 1)
		}
		return rng.Int64()
	}
	// 500_000 and 15_000_000 make ties: half a cent of fine for one
	// cent, half a cent of interest for one cent one day late.
	edges := []int64{0, 1, 99, 500_000, 1_000_000, 15_000_000, 1 << 32, int64(money.Max), math.MaxInt64 / 2, math.MaxInt64}
	for i := range 200_000 {
		tm := Terms{Open: money.Cents(pick(100, 1_000_000, int64(money.Max), math.MaxInt64)), DueDate: due,
			Fine: Percent(pick(100, 20_000, 1_000_000, math.MaxInt64)), InterestMonthly: Percent(pick(100, 10_000, 1_000_000, math.MaxInt64)),
			FineDue: money.Cents(pick(0, 1000, math.MaxInt64)), InterestDue: money.Cents(pick(0, 1000, math.MaxInt64)),
			FineAssessed: rng.IntN(4) == 0}
		if i < len(edges)*len(edges) {
			tm.Open, tm.Fine = money.Cents(edges[i/len(edges)]), Percent(edges[i%len(edges)])
			tm.InterestMonthly = tm.Fine
		}
		if rng.IntN(3) == 0 {
			tm.AccrualFrom = due.AddDays(rng.IntN(60))
		}
		on := due.AddDays(int(pick(0, 1, 45, 400, 40_000)))
		if i < len(edges)*len(edges) {
			on, tm.AccrualFrom = due.AddDays(1), bankcalendar.Date{}
		}
		got, gotErr := Compute(tm, on)
		want, wantErr := Breakdown{Open: tm.Open}, error(nil)
		if tm.Late(on) {
			want.DaysLate = on.Sub(tm.DueDate)
			want, wantErr = computeBig(tm, on, want)
		} else {
			total := new(big.Int).Add(big.NewInt(int64(tm.Open)), big.NewInt(int64(tm.FineDue)))
			total.Add(total, big.NewInt(int64(tm.InterestDue)))
			if total.IsInt64() {
				want.Fine, want.Interest, want.Updated = tm.FineDue, tm.InterestDue, money.Cents(total.Int64())
			} else {
				want, wantErr = Breakdown{}, ErrOverflow
			}
		}
		if got != want || !errors.Is(gotErr, wantErr) {
			t.Fatalf("%+v on %s: got %+v, %v; want %+v, %v", tm, on, got, gotErr, want, wantErr)
		}
	}
}
