package dunning

import (
	"testing"

	"github.com/kobana/kobana-mcp/dunning/escalation"
	"github.com/kobana/kobana-mcp/dunning/latefee"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/money"
)

// TestSplitCentsAwkwardTotals: installments are whole cents, add up
// exactly, differ by at most the remainder, which lands on the first.
func TestSplitCentsAwkwardTotals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		total money.Cents
		n     int
		first money.Cents
		rest  money.Cents
	}{
		{10000, 3, 3334, 3333},
		{10001, 3, 3335, 3333},
		{100, 7, 16, 14},
		{1, 3, 1, 0},
		{99999, 12, 8336, 8333},
		{123456, 1, 123456, 0},
		{200, 3, 68, 66},
		{1000000007, 60, 16666713, 16666666},
	} {
		got := escalation.SplitCents(tc.total, tc.n)
		if len(got) != tc.n {
			t.Fatalf("%v in %d: %d parts", tc.total, tc.n, len(got))
		}
		var sum money.Cents
		for i, c := range got {
			sum += c
			if i > 0 && c != tc.rest {
				t.Errorf("%v in %d: part %d is %v, want %v", tc.total, tc.n, i, c, tc.rest)
			}
		}
		if sum != tc.total || got[0] != tc.first {
			t.Errorf("%v in %d: %v (sum %v), want first %v", tc.total, tc.n, got, sum, tc.first)
		}
	}
}

func TestPercentOfHalfUp(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		amount money.Cents
		pct    latefee.Percent
		want   money.Cents
	}{
		{10000, 10 * latefee.OnePercent, 1000},
		{333, 50 * latefee.OnePercent, 167}, // 166,5 → 167
		{123456, 30 * latefee.OnePercent, 37037},
		{1, latefee.OnePercent, 0},
	} {
		if got := escalation.PercentOf(tc.amount, tc.pct); got != tc.want {
			t.Errorf("%v of %v = %v, want %v", tc.pct, tc.amount, got, tc.want)
		}
	}
}

// TestMonthlyDueDates: on the chosen day, the month's last day when it is
// shorter, moved to the next business day (weekends, bank holidays).
func TestMonthlyDueDates(t *testing.T) {
	t.Parallel()
	cal := bankcalendar.New()
	from := bankcalendar.NewDate(2026, 1, 15)
	got := escalation.MonthlyDueDates(from, 31, 4, cal)
	// 31 Jan 2026 is a Saturday → 2 Feb; February's last day, the 28th,
	// a Saturday too → 2 Mar; then 31 Mar and 30 Apr.
	want := []string{"2026-02-02", "2026-03-02", "2026-03-31", "2026-04-30"}
	for i, d := range got {
		if d.String() != want[i] {
			t.Fatalf("dates %v, want %v", got, want)
		}
	}
	// Tiradentes (21 April 2026, a Tuesday) moves to the 22nd; a day
	// already past this month starts next month.
	got = escalation.MonthlyDueDates(bankcalendar.NewDate(2026, 3, 25), 21, 2, cal)
	if got[0].String() != "2026-04-22" || got[1].String() != "2026-05-21" {
		t.Fatalf("dates %v", got)
	}
}
