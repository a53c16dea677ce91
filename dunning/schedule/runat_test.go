package schedule

import (
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/bankcalendar"
)

func d(y int, m time.Month, day int) bankcalendar.Date { return bankcalendar.NewDate(y, m, day) }

func utc(y int, m time.Month, day, h, min int) time.Time {
	return time.Date(y, m, day, h, min, 0, 0, time.UTC)
}

func zone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := LoadZone(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestRunAt(t *testing.T) {
	t.Parallel()
	sp := zone(t, "America/Sao_Paulo")  // UTC−3 all year since 2019
	manaus := zone(t, "America/Manaus") // UTC−4, no DST
	noronha := zone(t, "America/Noronha")
	ny := zone(t, "America/New_York")
	org := bankcalendar.New(bankcalendar.ClosedDay{Date: d(2026, time.July, 9), Name: "Revolução Constitucionalista"})
	nine := At(9, 0)

	tests := []struct {
		name string
		due  bankcalendar.Date
		step Step
		opt  Options
		want time.Time
	}{
		// Tuesday 10 March 2026.
		{"on the due date", d(2026, time.March, 10), Step{0, nine, true}, Options{Zone: sp}, utc(2026, time.March, 10, 12, 0)},
		{"five days before", d(2026, time.March, 10), Step{-5, nine, true}, Options{Zone: sp}, utc(2026, time.March, 5, 12, 0)},
		{"three days after", d(2026, time.March, 10), Step{3, nine, true}, Options{Zone: sp}, utc(2026, time.March, 13, 12, 0)},
		{"thirty days after (Thursday 9 April)", d(2026, time.March, 10), Step{30, nine, true}, Options{Zone: sp}, utc(2026, time.April, 9, 12, 0)},
		{"zero options are São Paulo", d(2026, time.March, 10), Step{0, nine, false}, Options{}, utc(2026, time.March, 10, 12, 0)},
		// Weekend: +4 is Saturday 14 March.
		{"Saturday, business days → Monday", d(2026, time.March, 10), Step{4, nine, true}, Options{Zone: sp}, utc(2026, time.March, 16, 12, 0)},
		{"Saturday, calendar days → Saturday", d(2026, time.March, 10), Step{4, nine, false}, Options{Zone: sp}, utc(2026, time.March, 14, 12, 0)},
		// Carnival 2026: Monday 16 and Tuesday 17 February.
		{"Carnival Saturday → Ash Wednesday", d(2026, time.February, 13), Step{1, nine, true}, Options{Zone: sp}, utc(2026, time.February, 18, 12, 0)},
		{"Carnival Monday → Ash Wednesday", d(2026, time.February, 13), Step{3, nine, true}, Options{Zone: sp}, utc(2026, time.February, 18, 12, 0)},
		{"Carnival Tuesday → Ash Wednesday", d(2026, time.February, 17), Step{0, nine, true}, Options{Zone: sp}, utc(2026, time.February, 18, 12, 0)},
		{"Carnival Monday, calendar days", d(2026, time.February, 16), Step{0, nine, false}, Options{Zone: sp}, utc(2026, time.February, 16, 12, 0)},
		{"a reminder before the due date moves forward", d(2026, time.February, 18), Step{-2, nine, true}, Options{Zone: sp}, utc(2026, time.February, 18, 12, 0)},
		{"Good Friday → Monday", d(2026, time.April, 3), Step{0, nine, true}, Options{Zone: sp}, utc(2026, time.April, 6, 12, 0)},
		{"Tiradentes → Wednesday", d(2026, time.April, 21), Step{0, nine, true}, Options{Zone: sp}, utc(2026, time.April, 22, 12, 0)},
		{"Christmas (Friday) → Monday", d(2026, time.December, 20), Step{5, nine, true}, Options{Zone: sp}, utc(2026, time.December, 28, 12, 0)},
		{"organization's day → next day", d(2026, time.July, 9), Step{0, nine, true}, Options{Zone: sp, Calendar: org}, utc(2026, time.July, 10, 12, 0)},
		{"organization's day, national calendar", d(2026, time.July, 9), Step{0, nine, true}, Options{Zone: sp}, utc(2026, time.July, 9, 12, 0)},
		// Quiet hours 08:00–20:00 São Paulo = 11:00–23:00 UTC.
		{"before the window → same day's opening", d(2026, time.March, 10), Step{0, At(7, 0), true}, Options{Zone: sp}, utc(2026, time.March, 10, 11, 0)},
		{"at 00:00 → same day's opening", d(2026, time.March, 10), Step{0, At(0, 0), false}, Options{Zone: sp}, utc(2026, time.March, 10, 11, 0)},
		{"at the opening stays", d(2026, time.March, 10), Step{0, At(8, 0), true}, Options{Zone: sp}, utc(2026, time.March, 10, 11, 0)},
		{"last minute of the window stays", d(2026, time.March, 10), Step{0, At(19, 59), true}, Options{Zone: sp}, utc(2026, time.March, 10, 22, 59)},
		{"at the closing → next day's opening", d(2026, time.March, 10), Step{0, At(20, 0), true}, Options{Zone: sp}, utc(2026, time.March, 11, 11, 0)},
		{"Friday night → Monday's opening (business days)", d(2026, time.March, 13), Step{0, At(21, 30), true}, Options{Zone: sp}, utc(2026, time.March, 16, 11, 0)},
		{"Friday night → Saturday's opening (calendar days)", d(2026, time.March, 13), Step{0, At(21, 30), false}, Options{Zone: sp}, utc(2026, time.March, 14, 11, 0)},
		{"Friday night before Carnival → Ash Wednesday", d(2026, time.February, 13), Step{0, At(22, 0), true}, Options{Zone: sp}, utc(2026, time.February, 18, 11, 0)},
		{"custom window 09:00–18:00", d(2026, time.March, 10), Step{0, At(18, 0), true}, Options{Zone: sp, Window: Window{At(9, 0), At(18, 0)}}, utc(2026, time.March, 11, 12, 0)},
		{"custom window, early", d(2026, time.March, 10), Step{0, At(8, 30), true}, Options{Zone: sp, Window: Window{At(9, 0), At(18, 0)}}, utc(2026, time.March, 10, 12, 0)},
		// Other zones.
		{"Manaus (UTC−4)", d(2026, time.March, 10), Step{0, nine, true}, Options{Zone: manaus}, utc(2026, time.March, 10, 13, 0)},
		{"Fernando de Noronha (UTC−2)", d(2026, time.March, 10), Step{0, nine, true}, Options{Zone: noronha}, utc(2026, time.March, 10, 11, 0)},
		{"UTC", d(2026, time.March, 10), Step{0, nine, true}, Options{Zone: time.UTC}, utc(2026, time.March, 10, 9, 0)},
		{"UTC, late → next day", d(2026, time.March, 10), Step{0, At(20, 0), true}, Options{Zone: time.UTC}, utc(2026, time.March, 11, 8, 0)},
		// São Paulo kept DST until 2019: December 2018 was UTC−2.
		{"São Paulo under 2018 DST", d(2018, time.December, 10), Step{0, nine, true}, Options{Zone: sp}, utc(2018, time.December, 10, 11, 0)},
		// New York changes offset on 8 March 2026.
		{"New York before DST", d(2026, time.March, 6), Step{0, nine, true}, Options{Zone: ny}, utc(2026, time.March, 6, 14, 0)},
		{"New York after DST", d(2026, time.March, 9), Step{0, nine, true}, Options{Zone: ny}, utc(2026, time.March, 9, 13, 0)},
	}
	for _, tt := range tests {
		got, err := RunAt(tt.due, tt.step, tt.opt)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if !got.Equal(tt.want) || got.Location() != time.UTC {
			t.Errorf("%s: RunAt = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestPlanMoves(t *testing.T) {
	t.Parallel()
	r, err := Plan(d(2026, time.February, 13), Step{OffsetDays: 1, SendTime: At(21, 0), BusinessDays: true}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"2026-02-14 is closed (sábado): moved to 2026-02-18",
		"21:00 is not before the sending window closes at 20:00: moved to the next day's opening",
	}
	// Wednesday 18 at 21:00 moves to Thursday 19 at 08:00, a business day.
	if strings.Join(r.Moves, "\n") != strings.Join(want, "\n") || r.Date != d(2026, time.February, 19) || r.Time != At(8, 0) {
		t.Errorf("Plan = %+v", r)
	}
	r, _ = Plan(d(2026, time.March, 10), Step{SendTime: At(9, 0)}, Options{})
	if len(r.Moves) != 0 {
		t.Errorf("nothing should move: %v", r.Moves)
	}
	r, _ = Plan(d(2026, time.February, 16), Step{SendTime: At(9, 0), BusinessDays: true}, Options{})
	if len(r.Moves) != 1 || r.Moves[0] != "2026-02-16 is closed (Carnaval (segunda-feira)): moved to 2026-02-18" {
		t.Errorf("Carnival move = %v", r.Moves)
	}
}

func TestPlanErrors(t *testing.T) {
	t.Parallel()
	due := d(2026, time.March, 10)
	tests := []struct {
		due  bankcalendar.Date
		step Step
		opt  Options
		want string
	}{
		{bankcalendar.Date{}, Step{}, Options{}, "charge has no due date"},
		{due, Step{OffsetDays: MaxOffsetDays + 1}, Options{}, "offset_days must be between -1830 and 1830 (got 1831)"},
		{due, Step{OffsetDays: -MaxOffsetDays - 1}, Options{}, "offset_days must be between -1830 and 1830 (got -1831)"},
		{due, Step{SendTime: At(24, 0)}, Options{}, "send_time must be between 00:00 and 23:59"},
		{due, Step{SendTime: -1}, Options{}, "send_time must be between 00:00 and 23:59"},
		{due, Step{}, Options{Window: Window{At(20, 0), At(8, 0)}}, "sending window must open before it closes (got 20:00–08:00)"},
		{due, Step{}, Options{Window: Window{At(8, 0), At(8, 0)}}, "sending window must open before it closes (got 08:00–08:00)"},
		{due, Step{}, Options{Window: Window{At(8, 0), At(25, 0)}}, "sending window times must be between 00:00 and 23:59"},
	}
	for _, tt := range tests {
		_, err := Plan(tt.due, tt.step, tt.opt)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Plan(%v, %+v, %+v) = %v, want %q", tt.due, tt.step, tt.opt, err, tt.want)
		}
	}
	if _, err := Plan(due, Step{OffsetDays: MaxOffsetDays}, Options{}); err != nil {
		t.Errorf("the largest offset: %v", err)
	}
}
