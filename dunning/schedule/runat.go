package schedule

import (
	"fmt"
	"time"

	"github.com/kobana/kobana-mcp/platform/bankcalendar"
)

// MaxOffsetDays bounds a step's offset from the due date, five years
// either way: as long as a debt may stay with a credit bureau (CDC art.
// 43 §1), far beyond any collection plan.
const MaxOffsetDays = 5 * 366

// Step is what of a collection plan step decides when it runs.
type Step struct {
	// OffsetDays is the step's day relative to the due date: −5 is five
	// days before, 0 the due date, +30 thirty days after.
	OffsetDays int `json:"offset_days"`
	// SendTime is the local time of day the step's message goes out.
	SendTime Clock `json:"send_time"`
	// BusinessDays moves a step that lands on a closed day to the next
	// business day; when false it runs on weekends and holidays too.
	BusinessDays bool `json:"business_days"`
}

// Validate checks the step's offset and send time.
func (s Step) Validate() error {
	if s.OffsetDays < -MaxOffsetDays || s.OffsetDays > MaxOffsetDays {
		return fmt.Errorf("offset_days must be between %d and %d (got %d)", -MaxOffsetDays, MaxOffsetDays, s.OffsetDays)
	}
	if !s.SendTime.Valid() {
		return fmt.Errorf("send_time must be between 00:00 and 23:59")
	}
	return nil
}

// Options are the organization's settings a schedule depends on. The
// zero Options are São Paulo time, 08:00–20:00 and the national calendar.
type Options struct {
	// Zone is the organization's time zone; nil is DefaultZone.
	Zone *time.Location
	// Window is when messages may go out; zero is DefaultWindow.
	Window Window
	// Calendar is the organization's calendar; nil is the national one.
	Calendar *bankcalendar.Calendar
}

// Run is when a step runs, and why there.
type Run struct {
	// At is the instant, in UTC.
	At time.Time
	// Date and Time are the local date and time of day it runs at.
	Date bankcalendar.Date
	Time Clock
	// Moves says, in order, what moved the step from its nominal day and
	// send time; empty when nothing did.
	Moves []string
}

// Plan computes when step runs for a charge due on due:
//
//  1. the day is due + OffsetDays;
//  2. with BusinessDays, a closed day becomes the next business day;
//  3. a send time before the window opens becomes the opening time that
//     day; one at or after the window closes becomes the opening time of
//     the next day (the next business day with BusinessDays);
//  4. that local time in the organization's zone is the instant.
//
// A step before the due date that lands on a closed day moves forward
// too, possibly onto the due date itself. A local time skipped by a
// daylight-saving change (none in Brazil since 2019) is normalised the
// way time.Date does.
func Plan(due bankcalendar.Date, step Step, opt Options) (Run, error) {
	if due.IsZero() {
		return Run{}, fmt.Errorf("charge has no due date")
	}
	if err := step.Validate(); err != nil {
		return Run{}, err
	}
	zone := opt.Zone
	if zone == nil {
		var err error
		if zone, err = LoadZone(""); err != nil {
			return Run{}, err
		}
	}
	w := opt.Window
	if w.IsZero() {
		w = DefaultWindow
	}
	if err := w.Validate(); err != nil {
		return Run{}, err
	}
	var moves []string
	nextOpen := func(d bankcalendar.Date) bankcalendar.Date {
		if !step.BusinessDays {
			return d
		}
		n := opt.Calendar.NextBusinessDay(d)
		if n != d {
			closed, _ := opt.Calendar.Closure(d)
			moves = append(moves, fmt.Sprintf("%s is closed (%s): moved to %s", d, closed.Name, n))
		}
		return n
	}

	day := nextOpen(due.AddDays(step.OffsetDays))
	at := step.SendTime
	switch {
	case at < w.Open:
		moves = append(moves, fmt.Sprintf("%s is before the sending window opens at %s", at, w.Open))
		at = w.Open
	case at >= w.Close:
		moves = append(moves, fmt.Sprintf("%s is not before the sending window closes at %s: moved to the next day's opening", at, w.Close))
		day = nextOpen(day.AddDays(1))
		at = w.Open
	}
	t := day.At(at.Hour(), at.Minute(), zone)
	return Run{At: t.UTC(), Date: day, Time: at, Moves: moves}, nil
}

// RunAt is Plan's instant alone.
func RunAt(due bankcalendar.Date, step Step, opt Options) (time.Time, error) {
	r, err := Plan(due, step, opt)
	return r.At, err
}
