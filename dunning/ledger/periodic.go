package ledger

import "time"

// Hourly is a periodic schedule: minute Min of every hour. Its next run
// depends only on the clock, so restarts and changes of leader do not
// delay it.
type Hourly struct {
	Min int
}

// Next is the first hh:min strictly after t.
func (h Hourly) Next(t time.Time) time.Time {
	t = t.UTC()
	next := t.Truncate(time.Hour).Add(time.Duration(h.Min) * time.Minute)
	if !next.After(t) {
		next = next.Add(time.Hour)
	}
	return next
}
