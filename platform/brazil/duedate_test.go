package brazil

import (
	"testing"
	"time"
)

func TestDueDateFromFactorAcrossThe2025Rollover(t *testing.T) {
	t.Parallel()
	cases := []struct {
		factor int
		ref    string
		want   string
	}{
		{1000, "2000-07-01", "2000-07-03"}, // first cycle
		{1381, "2001-06-01", "2001-07-19"},
		{9999, "2025-01-10", "2025-02-21"}, // last factor of the first cycle
		{9999, "2025-03-01", "2025-02-21"}, // an overdue boleto seen after the rollover
		{1000, "2025-01-10", "2025-02-22"}, // new cycle, seen before the rollover
		{1000, "2025-03-01", "2025-02-22"},
		{1381, "2026-02-01", "2026-03-10"},
		{5000, "2026-02-01", "2036-02-05"},
		{9000, "2026-02-01", "2022-05-29"}, // old cycle, inside the 3000-day past window
		{4000, "2015-01-01", "2008-09-19"},
	}
	for _, c := range cases {
		got, ok := DueDateFromFactor(c.factor, day(c.ref))
		if !ok || got.Format(time.DateOnly) != c.want {
			t.Errorf("factor %d seen %s: got %s %v, want %s", c.factor, c.ref, got.Format(time.DateOnly), ok, c.want)
		}
	}
	for _, f := range []int{0, 1, 999, 10000} {
		if _, ok := DueDateFromFactor(f, day("2026-01-01")); ok {
			t.Errorf("factor %d should have no due date", f)
		}
	}
}

func TestFactorForDateRoundTrips(t *testing.T) {
	t.Parallel()
	ref := day("2026-06-01")
	for d := day("2018-04-01"); d.Before(day("2041-01-01")); d = d.AddDate(0, 0, 97) {
		f, ok := FactorForDate(d)
		if !ok || f < 1000 || f > 9999 {
			t.Fatalf("%s: factor %d %v", d.Format(time.DateOnly), f, ok)
		}
		back, ok := DueDateFromFactor(f, ref)
		if !ok || !back.Equal(d) {
			t.Errorf("%s → factor %d → %s", d.Format(time.DateOnly), f, back.Format(time.DateOnly))
		}
	}
	if f, _ := FactorForDate(day("2025-02-21")); f != 9999 {
		t.Errorf("2025-02-21: factor %d, want 9999", f)
	}
	if f, _ := FactorForDate(day("2025-02-22")); f != 1000 {
		t.Errorf("2025-02-22: factor %d, want 1000", f)
	}
}
