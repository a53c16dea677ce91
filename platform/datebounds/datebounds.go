// Package datebounds is the window every date a tenant sends the APIs
// must fall in, the same for all products (docs/decisions.md "Dates"): a
// date far outside it is a typo or a probe — `0000-01-01` made a charge
// 740 316 days late and its updated amount R$ 2 477 920 000 — never a
// real debt, filter or period.
//
// The window is 1990-01-01 to 2100-12-31 inclusive: 1990 reaches back
// past any debt still collectable (the longest Brazilian limitation period
// for debts, Código Civil art. 205, is ten years) with room for old
// imported records; 2100 covers the longest agreement or schedule.
package datebounds

import (
	"fmt"
	"time"
)

// First and Last are the window's first and last days (UTC).
var (
	First = time.Date(1990, time.January, 1, 0, 0, 0, 0, time.UTC)
	Last  = time.Date(2100, time.December, 31, 0, 0, 0, 0, time.UTC)
)

// Message is what a validation error says of a date outside the window.
const Message = "must be between 1990-01-01 and 2100-12-31"

// Within reports whether the day of t (in t's own location) lies in the
// window.
func Within(t time.Time) bool {
	d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	return !d.Before(First) && !d.After(Last)
}

// Check is nil for a date in the window, else an error with Message.
func Check(t time.Time) error {
	if Within(t) {
		return nil
	}
	return fmt.Errorf("%s", Message)
}
