package bankcalendar

import (
	"sort"
	"time"

	"github.com/rickar/cal/v2"
	"github.com/rickar/cal/v2/br"
)

// Kinds of closed day, in Closure.Kind.
const (
	KindWeekend      = "weekend"
	KindNational     = "national_holiday"
	KindBankClosing  = "bank_closing"
	KindState        = "state_holiday"
	KindMunicipal    = "municipal_holiday"
	KindOrganization = "organization"
)

// BankClosingName names the last business day of the year, closed to
// the public and to interbank clearing (bankClosing).
const BankClosingName = "Último dia útil do ano — sem expediente bancário"

// ClosedDay is a day banks or the organization are closed. Name is the
// holiday's name ("Tiradentes", "Carnaval (segunda-feira)") or, for a
// weekend, "sábado" or "domingo". Kind is one of the Kind constants.
type ClosedDay struct {
	Date Date   `json:"date"`
	Name string `json:"name"`
	Kind string `json:"kind"`
}

// holidays are the national bank holidays: github.com/rickar/cal/v2's br
// package — the civil holidays of Lei 662/1949 as rewritten by Lei
// 10.607/2002 (1 January, 21 April, 1 May, 7 September, 2 November,
// 15 November, 25 December) and Lei 6.802/1980 (12 October), and Good
// Friday, Carnival and Corpus Christi, days without bank hours in the
// FEBRABAN/BCB bank calendar — whose Carnival rule marks only the
// Tuesday (Easter − 47), plus:
//   - Carnival Monday (Easter − 48), computed with the same library's
//     Easter rule: banks do not open on either Carnival day (FEBRABAN's
//     bank holiday calendar), though the law calls them optional points;
//   - 20 November, Dia Nacional de Zumbi e da Consciência Negra, a
//     national holiday from 2024 on (Lei 14.759/2023), which the library
//     does not have yet.
//
// They stay unexported because the library's rules are mutable pointers
// shared by every Calendar; HolidaysIn is the read-only view.
var holidays = nationalHolidays()

var carnivalMonday = &cal.Holiday{
	Name:   "Carnaval (segunda-feira)",
	Type:   cal.ObservanceBank,
	Offset: -48,
	Func:   cal.CalcEasterOffset,
}

var conscienciaNegra = &cal.Holiday{
	Name:      "Dia Nacional de Zumbi e da Consciência Negra",
	Type:      cal.ObservancePublic,
	StartYear: 2024,
	Month:     time.November,
	Day:       20,
	Func:      cal.CalcDayOfMonth,
}

func nationalHolidays() []*cal.Holiday {
	hs := make([]*cal.Holiday, 0, len(br.Holidays)+2)
	for _, h := range br.Holidays {
		if h == br.Carnaval {
			hs = append(hs, carnivalMonday, br.Carnaval.Clone(&cal.Holiday{Name: "Carnaval (terça-feira)"}))
			continue
		}
		hs = append(hs, h)
	}
	return append(hs, conscienciaNegra)
}

// national holds holidays for lookups. Its cache stays off: the
// library's cache is a plain map, unsafe under concurrent reads.
var national = &cal.Calendar{Name: "BR bank holidays", Holidays: holidays}

// Calendar is the national calendar plus an organization's own closed
// days. A nil *Calendar is the national calendar alone. A Calendar is
// immutable and safe for concurrent use.
type Calendar struct {
	extra    map[Date]string
	regional []regionalDay
}

// regionalDay is a state or municipal holiday of the calendar's place.
type regionalDay struct {
	RegionalHoliday
	kind string
}

// New is the national calendar plus the organization's closed days
// (municipal and state holidays, a company day off). Only each day's
// Date and Name are read; a day given twice keeps its first name.
func New(orgDays ...ClosedDay) *Calendar {
	c := &Calendar{extra: make(map[Date]string, len(orgDays))}
	for _, d := range orgDays {
		if _, ok := c.extra[d.Date]; !ok && !d.Date.IsZero() {
			c.extra[d.Date] = d.Name
		}
	}
	return c
}

// NewIn is New for an organization at place p: the national calendar,
// the holidays of p's state and city from the project's table
// (holidays_br.json, BrazilRegions), and the organization's own days on
// top. A state or city the table does not know adds nothing: callers
// check the place when it is saved (Regions.State, Regions.City).
func NewIn(p Place, orgDays ...ClosedDay) *Calendar {
	c := New(orgDays...)
	r, err := BrazilRegions()
	if err != nil {
		return c
	}
	if s, ok := r.State(p.UF); ok {
		for _, h := range s.Holidays {
			c.regional = append(c.regional, regionalDay{h, KindState})
		}
		if p.City != "" {
			if city, ok := r.City(p.UF, p.City); ok {
				for _, h := range city.Holidays {
					c.regional = append(c.regional, regionalDay{h, KindMunicipal})
				}
			}
		}
	}
	return c
}

// Closure says why d is closed, or false when it is a business day.
// A national holiday wins over the year's bank closing, a state holiday,
// a municipal one and an organization's day on the same date, in that
// order, and all of them over the weekend.
func (c *Calendar) Closure(d Date) (ClosedDay, bool) {
	if _, _, h := national.IsHoliday(d.noonUTC()); h != nil {
		return ClosedDay{Date: d, Name: h.Name, Kind: KindNational}, true
	}
	if d == bankClosing(d.Year()) {
		return ClosedDay{Date: d, Name: BankClosingName, Kind: KindBankClosing}, true
	}
	if c != nil {
		for _, kind := range []string{KindState, KindMunicipal} {
			for _, h := range c.regional {
				if on, ok := h.in(d.Year()); ok && h.kind == kind && on == d {
					return ClosedDay{Date: d, Name: h.Name, Kind: kind}, true
				}
			}
		}
		if name, ok := c.extra[d]; ok {
			return ClosedDay{Date: d, Name: name, Kind: KindOrganization}, true
		}
	}
	switch d.Weekday() {
	case time.Saturday:
		return ClosedDay{Date: d, Name: "sábado", Kind: KindWeekend}, true
	case time.Sunday:
		return ClosedDay{Date: d, Name: "domingo", Kind: KindWeekend}, true
	}
	return ClosedDay{}, false
}

// IsBusinessDay reports whether banks (and the organization) are open on
// d: a weekday that is no national holiday and no organization day.
func (c *Calendar) IsBusinessDay(d Date) bool {
	_, closed := c.Closure(d)
	return !closed
}

// NextBusinessDay is d when d is a business day, otherwise the first
// business day after it: where a due date or a step that falls on a
// closed day moves (a boleto due on a holiday is payable without charges
// on the next business day, FEBRABAN's rule).
func (c *Calendar) NextBusinessDay(d Date) Date {
	for !c.IsBusinessDay(d) {
		d = d.AddDays(1)
	}
	return d
}

// HolidaysIn lists the closed days of year other than weekends, by date:
// the national bank holidays, the year's bank closing (bankClosing), the
// state and municipal holidays of the calendar's place that fall on a
// weekday, and the organization's days. The national
// ones are github.com/rickar/cal/v2's br holidays (New Year, Carnival
// Tuesday, Good Friday, Tiradentes, Labour Day, Corpus Christi,
// Independence, Nossa Senhora Aparecida, Finados, Republic, Christmas)
// plus Carnival Monday and, from 2024, 20 November (Lei 14.759/2023).
func (c *Calendar) HolidaysIn(year int) []ClosedDay {
	var out []ClosedDay
	seen := map[Date]bool{}
	for _, h := range holidays {
		_, obs := h.Calc(year)
		if obs.IsZero() {
			continue
		}
		d := DateOf(obs)
		if !seen[d] {
			seen[d] = true
			out = append(out, ClosedDay{Date: d, Name: h.Name, Kind: KindNational})
		}
	}
	if d := bankClosing(year); !seen[d] {
		seen[d] = true
		out = append(out, ClosedDay{Date: d, Name: BankClosingName, Kind: KindBankClosing})
	}
	if c != nil {
		for _, kind := range []string{KindState, KindMunicipal} {
			for _, h := range c.regional {
				if d, ok := h.in(year); ok && h.kind == kind && !seen[d] && !isWeekend(d) {
					seen[d] = true
					out = append(out, ClosedDay{Date: d, Name: h.Name, Kind: kind})
				}
			}
		}
		for d, name := range c.extra {
			if d.Year() == year && !seen[d] {
				seen[d] = true
				out = append(out, ClosedDay{Date: d, Name: name, Kind: KindOrganization})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Date.Before(out[j].Date) })
	return out
}

// IsBusinessDay is the national calendar's answer, for callers with no
// organization at hand.
func IsBusinessDay(d Date) bool { return (*Calendar)(nil).IsBusinessDay(d) }

// NextBusinessDay is the national calendar's answer.
func NextBusinessDay(d Date) Date { return (*Calendar)(nil).NextBusinessDay(d) }

// bankClosing is the last business day of year by the national calendar:
// banks have no public hours and there is no interbank clearing on it, so
// a bill due then is payable on the next business day without charges
// (FEBRABAN's yearly bank calendar: "não haverá expediente bancário e as
// compensações bancárias não serão efetivadas" on 31 December, and on
// Friday 29 December 2023 when the 31st fell on a Sunday).
func bankClosing(year int) Date {
	d := NewDate(year, time.December, 31)
	for {
		if _, _, h := national.IsHoliday(d.noonUTC()); h == nil && !isWeekend(d) {
			return d
		}
		d = d.AddDays(-1)
	}
}

func isWeekend(d Date) bool {
	w := d.Weekday()
	return w == time.Saturday || w == time.Sunday
}
