package dunning

import "time"

// hourly is a periodic schedule: minute min of every hour. Its next run
// depends only on the clock, so restarts and changes of leader do not
// delay it.
type hourly struct{ min int }

// Next is the first hh:min strictly after t.
func (h hourly) Next(t time.Time) time.Time {
	t = t.UTC()
	next := t.Truncate(time.Hour).Add(time.Duration(h.min) * time.Minute)
	if !next.After(t) {
		next = next.Add(time.Hour)
	}
	return next
}
