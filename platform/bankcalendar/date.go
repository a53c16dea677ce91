// Package bankcalendar answers "is this a business day in Brazil?" for
// Dunning (due dates, the régua's steps) and Kadu (business-day
// schedules): which days banks are closed (national holidays, Good
// Friday, Carnival Monday and Tuesday, weekends) plus the extra days an
// organization closes (its city's holidays). It also defines Date, the
// calendar date Dunning uses for due dates, so no due date is ever an
// instant in some accidental time zone. It is a foundation (platform/)
// because both products use it and products never import each other
// (docs/architecture.md).
//
// The national rules come from github.com/rickar/cal/v2 and its br
// package, with the two bank holidays it leaves out added from its own
// rule kinds (see HolidaysIn), plus the year's bank closing
// (bankClosing). State and municipal holidays, which no maintained Go
// library has, come from the project's table holidays_br.json (NewIn).
package bankcalendar

import (
	"fmt"
	"time"
)

// Date is a calendar date with no time of day and no time zone, such as a
// charge's due date ("2026-03-10"). The zero Date is "no date" (IsZero).
// Dates compare with ==.
type Date struct {
	year  int
	month time.Month
	day   int
}

// NewDate is the date year-month-day, normalised the way time.Date does
// (month 13 is January of the next year, 31 April is 1 May). Use
// ParseDate for input, which rejects such dates instead.
func NewDate(year int, month time.Month, day int) Date {
	return DateOf(time.Date(year, month, day, 12, 0, 0, 0, time.UTC))
}

// DateOf is the calendar date of t in t's own location: pass
// t.In(orgZone) to get "today" for an organization.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{year: y, month: m, day: d}
}

// ParseDate reads the wire form "YYYY-MM-DD" (RFC 3339 full-date),
// rejecting days that do not exist ("2026-02-30").
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return Date{}, fmt.Errorf("date must be YYYY-MM-DD, a day that exists (got %.20q)", s)
	}
	return DateOf(t), nil
}

// Year is the date's year.
func (d Date) Year() int { return d.year }

// Month is the date's month.
func (d Date) Month() time.Month { return d.month }

// Day is the date's day of the month, from 1.
func (d Date) Day() int { return d.day }

// IsZero reports whether d is the zero Date, "no date" (an optional
// date left unset).
func (d Date) IsZero() bool { return d == Date{} }

// Weekday is the date's day of the week, which decides weekends.
func (d Date) Weekday() time.Weekday { return d.noonUTC().Weekday() }

// String is the wire form, "2026-03-10".
func (d Date) String() string {
	return fmt.Sprintf("%04d-%02d-%02d", d.year, int(d.month), d.day)
}

// BR is the Brazilian form, "10/03/2026", used in messages to debtors.
func (d Date) BR() string {
	return fmt.Sprintf("%02d/%02d/%04d", d.day, int(d.month), d.year)
}

// AddDays is the date n calendar days later (earlier when n < 0).
func (d Date) AddDays(n int) Date {
	return DateOf(d.noonUTC().AddDate(0, 0, n))
}

// Sub is the number of calendar days from o to d: positive when d is
// later. A charge due on o and paid on d is d.Sub(o) days late.
func (d Date) Sub(o Date) int {
	return int((d.noonUTC().Unix() - o.noonUTC().Unix()) / 86400)
}

// Compare returns -1, 0 or +1 as d is before, equal to or after o.
func (d Date) Compare(o Date) int {
	switch {
	case d.year != o.year:
		return cmp(d.year, o.year)
	case d.month != o.month:
		return cmp(int(d.month), int(o.month))
	default:
		return cmp(d.day, o.day)
	}
}

// Before reports whether d is earlier than o.
func (d Date) Before(o Date) bool { return d.Compare(o) < 0 }

// After reports whether d is later than o.
func (d Date) After(o Date) bool { return d.Compare(o) > 0 }

// At is the instant of the wall-clock time hour:min on this date in loc.
// A wall time that does not exist there (skipped by a daylight-saving
// change) is normalised the way time.Date does.
func (d Date) At(hour, min int, loc *time.Location) time.Time {
	return time.Date(d.year, d.month, d.day, hour, min, 0, 0, loc)
}

// MarshalText writes the wire form, so a Date is a JSON string.
func (d Date) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads the wire form with ParseDate's rules.
func (d *Date) UnmarshalText(b []byte) error {
	v, err := ParseDate(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// noonUTC is the date as a time.Time; noon keeps AddDate and Unix
// arithmetic clear of any day boundary.
func (d Date) noonUTC() time.Time {
	return time.Date(d.year, d.month, d.day, 12, 0, 0, 0, time.UTC)
}

func cmp(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
