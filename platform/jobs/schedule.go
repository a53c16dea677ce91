package jobs

import (
	"fmt"
	"time"

	"github.com/riverqueue/river"
)

// MonthlyUTC is a periodic schedule for AddPeriodic: midnight UTC on the
// first day of every month (the monthly usage reset). Its next run depends
// only on the calendar, so restarts and changes of leader do not delay it.
func MonthlyUTC() river.PeriodicSchedule { return monthlyUTC{} }

type monthlyUTC struct{}

// Next is the first midnight UTC of a month strictly after t.
func (monthlyUTC) Next(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, time.UTC)
}

// DailyUTC is a periodic schedule for AddPeriodic: every day at hour:minute
// UTC (a nightly purge). It panics on an hour or minute out of range, a
// mistake of the program.
func DailyUTC(hour, minute int) river.PeriodicSchedule {
	if hour < 0 || hour > 23 || minute < 0 || minute > 59 {
		panic(fmt.Sprintf("jobs: DailyUTC(%d, %d): want 0-23 and 0-59", hour, minute))
	}
	return dailyUTC{hour, minute}
}

type dailyUTC struct{ hour, minute int }

// Next is the first hour:minute UTC strictly after t.
func (d dailyUTC) Next(t time.Time) time.Time {
	t = t.UTC()
	next := time.Date(t.Year(), t.Month(), t.Day(), d.hour, d.minute, 0, 0, time.UTC)
	if !next.After(t) {
		next = next.AddDate(0, 0, 1)
	}
	return next
}
