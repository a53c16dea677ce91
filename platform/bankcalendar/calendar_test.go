package bankcalendar

import (
	"sync"
	"testing"
	"time"
)

func d(y int, m time.Month, day int) Date { return NewDate(y, m, day) }

func TestNationalClosures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		date Date
		kind string // "" for a business day
		name string
	}{
		// 2026: Easter is 5 April.
		{d(2026, time.January, 1), KindNational, "Ano Novo"},
		{d(2026, time.January, 2), "", ""},
		{d(2026, time.February, 13), "", ""}, // Friday before Carnival
		{d(2026, time.February, 14), KindWeekend, "sábado"},
		{d(2026, time.February, 15), KindWeekend, "domingo"},
		{d(2026, time.February, 16), KindNational, "Carnaval (segunda-feira)"},
		{d(2026, time.February, 17), KindNational, "Carnaval (terça-feira)"},
		{d(2026, time.February, 18), "", ""}, // Ash Wednesday: banks open at noon
		{d(2026, time.April, 2), "", ""},
		{d(2026, time.April, 3), KindNational, "Sexta-feira Santa"},
		{d(2026, time.April, 21), KindNational, "Tiradentes"},
		{d(2026, time.May, 1), KindNational, "Dia do Trabalhador"},
		{d(2026, time.June, 4), KindNational, "Corpus Christi"},
		{d(2026, time.September, 7), KindNational, "Independência do Brasil"},
		{d(2026, time.October, 12), KindNational, "Nossa Senhora Aparecida"},
		{d(2026, time.November, 2), KindNational, "Finados"},
		{d(2026, time.November, 20), KindNational, "Dia Nacional de Zumbi e da Consciência Negra"},
		{d(2026, time.December, 24), "", ""},
		{d(2026, time.December, 25), KindNational, "Natal"},
		// 15 November 2026 is a Sunday: the holiday is named first.
		{d(2026, time.November, 15), KindNational, "Proclamação da República"},
		// 2027: Easter is 28 March.
		{d(2027, time.February, 8), KindNational, "Carnaval (segunda-feira)"},
		{d(2027, time.February, 9), KindNational, "Carnaval (terça-feira)"},
		{d(2027, time.March, 26), KindNational, "Sexta-feira Santa"},
		{d(2027, time.May, 27), KindNational, "Corpus Christi"},
		// 2025: Easter is 20 April.
		{d(2025, time.March, 3), KindNational, "Carnaval (segunda-feira)"},
		{d(2025, time.March, 4), KindNational, "Carnaval (terça-feira)"},
		{d(2025, time.April, 18), KindNational, "Sexta-feira Santa"},
		// 20 November became national in 2024 (Lei 14.759/2023).
		{d(2023, time.November, 20), "", ""},
		{d(2024, time.November, 20), KindNational, "Dia Nacional de Zumbi e da Consciência Negra"},
	}
	for _, tt := range tests {
		got, closed := Closure(tt.date)
		if tt.kind == "" {
			if closed || !IsBusinessDay(tt.date) {
				t.Errorf("%v (%v) closed as %+v, want a business day", tt.date, tt.date.Weekday(), got)
			}
			continue
		}
		if !closed || got.Kind != tt.kind || got.Name != tt.name || got.Date != tt.date || IsBusinessDay(tt.date) {
			t.Errorf("%v: Closure = %+v, %v; want %s %q", tt.date, got, closed, tt.kind, tt.name)
		}
	}
}

// Closure on the national calendar, for the table above.
func Closure(d Date) (ClosedDay, bool) { return (*Calendar)(nil).Closure(d) }

func TestNextBusinessDay(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want Date
	}{
		{d(2026, time.March, 10), d(2026, time.March, 10)},       // open: same day
		{d(2026, time.March, 14), d(2026, time.March, 16)},       // Saturday → Monday
		{d(2026, time.March, 15), d(2026, time.March, 16)},       // Sunday → Monday
		{d(2026, time.February, 14), d(2026, time.February, 18)}, // Carnival weekend → Ash Wednesday
		{d(2026, time.February, 16), d(2026, time.February, 18)},
		{d(2026, time.April, 3), d(2026, time.April, 6)},         // Good Friday → Monday
		{d(2026, time.April, 21), d(2026, time.April, 22)},       // Tiradentes (Tuesday)
		{d(2026, time.December, 25), d(2026, time.December, 28)}, // Christmas (Friday) → Monday
		{d(2026, time.December, 31), d(2027, time.January, 4)},   // Thursday, the year's bank closing (FEBRABAN) → Monday
		{d(2026, time.December, 30), d(2026, time.December, 30)}, // the last day with public hours
		{d(2027, time.January, 1), d(2027, time.January, 4)},     // New Year (Friday) → Monday
	}
	for _, tt := range tests {
		if got := NextBusinessDay(tt.in); got != tt.want {
			t.Errorf("NextBusinessDay(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestOrganizationDays(t *testing.T) {
	t.Parallel()
	// São Paulo city: 25 January (anniversary) and 20 November were
	// municipal before 20 November became national; a company day off.
	c := New(
		ClosedDay{Date: d(2026, time.January, 25), Name: "Aniversário de São Paulo"},
		ClosedDay{Date: d(2026, time.July, 9), Name: "Revolução Constitucionalista"},
		ClosedDay{Date: d(2026, time.July, 9), Name: "duplicate, ignored"},
		ClosedDay{Date: d(2026, time.July, 10), Name: "Ponte"},
		ClosedDay{Date: d(2026, time.December, 25), Name: "Natal da empresa"},
	)
	if got, ok := c.Closure(d(2026, time.July, 9)); !ok || got.Kind != KindOrganization || got.Name != "Revolução Constitucionalista" {
		t.Errorf("9 July = %+v, %v", got, ok)
	}
	if got, ok := c.Closure(d(2026, time.December, 25)); !ok || got.Kind != KindNational || got.Name != "Natal" {
		t.Errorf("a national holiday should win over the organization's name: %+v", got)
	}
	// 25 January 2026 is a Sunday: the organization's name is the reason.
	if got, _ := c.Closure(d(2026, time.January, 25)); got.Kind != KindOrganization {
		t.Errorf("25 January = %+v", got)
	}
	// Thursday 9 and Friday 10 July closed: next business day Monday 13.
	if got := c.NextBusinessDay(d(2026, time.July, 9)); got != d(2026, time.July, 13) {
		t.Errorf("NextBusinessDay(9 July) = %v", got)
	}
	if !IsBusinessDay(d(2026, time.July, 9)) {
		t.Error("the national calendar must not see an organization's day")
	}
	other := New()
	if !other.IsBusinessDay(d(2026, time.July, 9)) {
		t.Error("one organization's days leaked into another's calendar")
	}
}

func TestHolidaysIn(t *testing.T) {
	t.Parallel()
	c := New(
		ClosedDay{Date: d(2026, time.July, 9), Name: "Revolução Constitucionalista"},
		ClosedDay{Date: d(2027, time.July, 9), Name: "next year"},
		ClosedDay{Date: d(2026, time.December, 25), Name: "dup"},
	)
	got := c.HolidaysIn(2026)
	want := []string{
		"2026-01-01 Ano Novo",
		"2026-02-16 Carnaval (segunda-feira)",
		"2026-02-17 Carnaval (terça-feira)",
		"2026-04-03 Sexta-feira Santa",
		"2026-04-21 Tiradentes",
		"2026-05-01 Dia do Trabalhador",
		"2026-06-04 Corpus Christi",
		"2026-07-09 Revolução Constitucionalista",
		"2026-09-07 Independência do Brasil",
		"2026-10-12 Nossa Senhora Aparecida",
		"2026-11-02 Finados",
		"2026-11-15 Proclamação da República",
		"2026-11-20 Dia Nacional de Zumbi e da Consciência Negra",
		"2026-12-25 Natal",
		"2026-12-31 " + BankClosingName,
	}
	if len(got) != len(want) {
		t.Fatalf("HolidaysIn(2026) has %d days, want %d: %+v", len(got), len(want), got)
	}
	for i, h := range got {
		if s := h.Date.String() + " " + h.Name; s != want[i] {
			t.Errorf("day %d = %q, want %q", i, s, want[i])
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	c := New(ClosedDay{Date: d(2026, time.July, 9), Name: "x"})
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for day := 0; day < 400; day++ {
				c.NextBusinessDay(d(2026, time.January, 1).AddDays(day))
			}
		}()
	}
	wg.Wait()
}
