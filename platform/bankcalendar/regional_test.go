package bankcalendar

import (
	"sort"
	"testing"
	"time"
)

// TestBankClosingFEBRABAN: the last business day of the year has no
// public hours and no interbank clearing (FEBRABAN's yearly bank
// calendar), so it is closed: 31 December when it is a weekday, else the
// Friday before (29 December 2023, 31st a Sunday; 30 December 2022, 31st
// a Saturday).
func TestBankClosingFEBRABAN(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ year, day int }{
		{2021, 31}, {2022, 30}, {2023, 29}, {2024, 31}, {2025, 31}, {2026, 31}, {2027, 31}, {2028, 29}, {2033, 30},
	} {
		want := d(tt.year, time.December, tt.day)
		got, ok := (*Calendar)(nil).Closure(want)
		if !ok || got.Kind != KindBankClosing || got.Name != BankClosingName {
			t.Errorf("%v: %+v %v, want the bank closing", want, got, ok)
		}
	}
	// Only one day of the year: the 30th stays open when the 31st closes.
	if !IsBusinessDay(d(2026, time.December, 30)) {
		t.Error("30 December 2026 should be open")
	}
	// Due Thursday 2026-12-31: payable on Monday 2027-01-04.
	if got := NextBusinessDay(d(2026, time.December, 31)); got != d(2027, time.January, 4) {
		t.Errorf("NextBusinessDay(2026-12-31) = %v, want 2027-01-04", got)
	}
}

// TestRegionalTable: the table has the 27 federative units and the 27
// capitals, each capital in its state, and every entry names its source.
func TestRegionalTable(t *testing.T) {
	t.Parallel()
	r, err := LoadRegions()
	if err != nil {
		t.Fatal(err)
	}
	if len(r.states) != 27 || len(r.cities) != 27 {
		t.Fatalf("%d states, %d cities, want 27 and 27", len(r.states), len(r.cities))
	}
	perState := map[string]int{}
	for _, c := range r.cities {
		perState[c.UF]++
		if len(c.IBGE) != 7 {
			t.Errorf("%s: IBGE code %q is not 7 digits", c.Name, c.IBGE)
		}
	}
	for uf := range r.states {
		if perState[uf] != 1 {
			t.Errorf("%s has %d capitals in the table", uf, perState[uf])
		}
	}
	if c, ok := r.City("sp", "sao paulo"); !ok || c.IBGE != "3550308" {
		t.Errorf("City(sp, sao paulo) = %+v %v", c, ok)
	}
	if c, ok := r.City("MG", "3106200"); !ok || c.Name != "Belo Horizonte" {
		t.Errorf("City(MG, 3106200) = %+v %v", c, ok)
	}
	if _, ok := r.City("RJ", "3550308"); ok {
		t.Error("São Paulo's code found in RJ")
	}
	if _, ok := r.State("XX"); ok {
		t.Error("XX is no state")
	}
}

// easterMeeus is Easter Sunday by the Meeus/Butcher (anonymous
// Gregorian) algorithm, written here independently of the library.
func easterMeeus(y int) Date {
	a := y % 19
	b, c := y/100, y%100
	dd, e := b/4, b%4
	f := (b + 8) / 25
	g := (b - f + 1) / 3
	h := (19*a + b - dd - g + 15) % 30
	i, k := c/4, c%4
	l := (32 + 2*e + 2*i - h - k) % 7
	m := (a + 11*h + 22*l) / 451
	month := (h + l - 7*m + 114) / 31
	day := (h+l-7*m+114)%31 + 1
	return d(y, time.Month(month), day)
}

// TestRegionalYears2024to2035: the closed weekdays of São Paulo/SP, Rio
// de Janeiro/RJ and Belo Horizonte/MG for every year 2024–2035 equal a
// list built independently: Easter by Meeus/Butcher (Carnival −48/−47,
// Good Friday −2, Corpus Christi +60), the fixed national dates (Lei
// 662/1949, Lei 6.802/1980, Lei 14.759/2023), the year's bank closing
// (FEBRABAN), and the fixed local dates: SP 9 July (Lei estadual
// 9.497/1997), SP city 25 January (Lei municipal 14.485/2007); RJ 23
// April (Lei estadual 5.198/2008), RJ city 20 January; BH 15 August and 8
// December.
func TestRegionalYears2024to2035(t *testing.T) {
	t.Parallel()
	type md struct {
		m time.Month
		d int
	}
	national := []md{{1, 1}, {4, 21}, {5, 1}, {9, 7}, {10, 12}, {11, 2}, {11, 15}, {11, 20}, {12, 25}}
	places := []struct {
		place Place
		local []md
	}{
		{Place{UF: "SP", City: "3550308"}, []md{{7, 9}, {1, 25}}},
		{Place{UF: "RJ", City: "Rio de Janeiro"}, []md{{4, 23}, {1, 20}}},
		{Place{UF: "MG", City: "3106200"}, []md{{8, 15}, {12, 8}}},
	}
	for _, p := range places {
		c := NewIn(p.place)
		for year := 2024; year <= 2035; year++ {
			want := map[Date]bool{}
			add := func(x Date) {
				if x.Weekday() != time.Saturday && x.Weekday() != time.Sunday {
					want[x] = true
				}
			}
			e := easterMeeus(year)
			for _, off := range []int{-48, -47, -2, 60} {
				add(e.AddDays(off))
			}
			for _, f := range append(append([]md{}, national...), p.local...) {
				add(d(year, f.m, f.d))
			}
			last := d(year, time.December, 31)
			for last.Weekday() == time.Saturday || last.Weekday() == time.Sunday {
				last = last.AddDays(-1)
			}
			add(last)

			var got []string
			for _, h := range c.HolidaysIn(year) {
				if h.Date.Weekday() != time.Saturday && h.Date.Weekday() != time.Sunday {
					got = append(got, h.Date.String())
				}
			}
			var exp []string
			for x := range want {
				exp = append(exp, x.String())
			}
			sort.Strings(exp)
			if len(got) != len(exp) {
				t.Errorf("%+v %d: got %v\nwant %v", p.place, year, got, exp)
				continue
			}
			for i := range got {
				if got[i] != exp[i] {
					t.Errorf("%+v %d: got %v\nwant %v", p.place, year, got, exp)
					break
				}
			}
			// Every day the list closes, the calendar closes.
			for x := range want {
				if c.IsBusinessDay(x) {
					t.Errorf("%+v: %v should be closed", p.place, x)
				}
			}
		}
	}
}

// TestSaoPauloCityJanuary25: an organization in São Paulo/SP has 25
// January closed (Lei municipal 14.485/2007) without typing it; one in
// Rio does not, and its own closed days still add on top.
func TestSaoPauloCityJanuary25(t *testing.T) {
	t.Parallel()
	sp := NewIn(Place{UF: "SP", City: "São Paulo"}, ClosedDay{Date: d(2027, time.March, 3), Name: "folga"})
	if got, ok := sp.Closure(d(2027, time.January, 25)); !ok || got.Kind != KindMunicipal {
		t.Errorf("SP 2027-01-25 = %+v %v", got, ok)
	}
	if got, ok := sp.Closure(d(2027, time.July, 9)); !ok || got.Kind != KindState {
		t.Errorf("SP 2027-07-09 = %+v %v", got, ok)
	}
	if got, ok := sp.Closure(d(2027, time.March, 3)); !ok || got.Kind != KindOrganization {
		t.Errorf("organization day = %+v %v", got, ok)
	}
	if !NewIn(Place{UF: "RJ", City: "3304557"}).IsBusinessDay(d(2027, time.January, 25)) {
		t.Error("25 January is no holiday in Rio")
	}
	// Campinas is not in the table: the state's days only.
	cps := NewIn(Place{UF: "SP", City: "3509502"})
	if !cps.IsBusinessDay(d(2027, time.January, 25)) || cps.IsBusinessDay(d(2027, time.July, 9)) {
		t.Error("a city not in the table should get its state's holidays only")
	}
	// 20 November was São Paulo city's before it became national (2024).
	if got, _ := sp.Closure(d(2023, time.November, 20)); got.Kind != KindMunicipal {
		t.Errorf("SP 2023-11-20 = %+v", got)
	}
}
