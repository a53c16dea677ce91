package ledger

import (
	"testing"

	"github.com/kobana/kobana-mcp/platform/bankcalendar"
)

// TestRememberedGraceEndsAreTheCalendars: across calendars that differ in
// place and closed days only, asked in turn for the same due dates and
// grace days, the remembered grace end is each calendar's own, on the
// first question and on the ones after.
func TestRememberedGraceEndsAreTheCalendars(t *testing.T) {
	t.Parallel()
	plain := DefaultSettings("org_a")
	closed := plain
	// Monday 12 January 2026: a closed day of this organization only.
	closed.ClosedDays = []bankcalendar.Date{bankcalendar.NewDate(2026, 1, 12)}
	sp := plain
	sp.State, sp.City = "SP", "São Paulo"
	rules := []*feeRules{newFeeRules(plain), newFeeRules(closed), newFeeRules(sp)}
	if rules[0].calKey == rules[1].calKey || rules[0].calKey == rules[2].calKey || rules[1].calKey == rules[2].calKey {
		t.Fatalf("calendars share a key: %q", []string{rules[0].calKey, rules[1].calKey, rules[2].calKey})
	}
	for round := range 2 {
		for day := bankcalendar.NewDate(2026, 1, 1); day.Before(bankcalendar.NewDate(2026, 3, 1)); day = day.AddDays(1) {
			for _, grace := range []int{0, 1, 3} {
				for i, r := range rules {
					r.grace = grace
					r.graceEnds = nil
					want := r.cal.NextBusinessDay(day.AddDays(grace))
					if got := r.graceEnd(day); got != want {
						t.Fatalf("round %d, calendar %d, due %s, grace %d: %s, want %s", round, i, day, grace, got, want)
					}
				}
			}
		}
	}
	// The closed Monday moves a Saturday's grace end to Tuesday there only.
	sat := bankcalendar.NewDate(2026, 1, 10)
	rules[0].grace, rules[1].grace = 0, 0
	rules[0].graceEnds, rules[1].graceEnds = nil, nil
	if a, b := rules[0].graceEnd(sat), rules[1].graceEnd(sat); a != bankcalendar.NewDate(2026, 1, 12) || b != bankcalendar.NewDate(2026, 1, 13) {
		t.Fatalf("grace ends of Saturday 10 January: %s and %s, want 2026-01-12 and 2026-01-13", a, b)
	}
}
