package jobs

import (
	"testing"
	"time"
)

func TestMonthlyUTC(t *testing.T) {
	t.Parallel()
	s := MonthlyUTC()
	for _, c := range []struct{ now, want string }{
		{"2025-01-15T10:00:00Z", "2025-02-01T00:00:00Z"},
		{"2025-12-31T23:59:59Z", "2026-01-01T00:00:00Z"},
		{"2025-03-01T00:00:00Z", "2025-04-01T00:00:00Z"},      // strictly after
		{"2025-01-31T22:00:00-03:00", "2025-03-01T00:00:00Z"}, // already Feb 1 in UTC
	} {
		now, _ := time.Parse(time.RFC3339, c.now)
		want, _ := time.Parse(time.RFC3339, c.want)
		if got := s.Next(now); !got.Equal(want) {
			t.Errorf("Next(%s) = %s, want %s", c.now, got, c.want)
		}
	}
}

func TestDailyUTC(t *testing.T) {
	t.Parallel()
	s := DailyUTC(3, 30)
	for _, c := range []struct{ now, want string }{
		{"2025-01-15T01:00:00Z", "2025-01-15T03:30:00Z"},
		{"2025-01-15T03:30:00Z", "2025-01-16T03:30:00Z"}, // strictly after
		{"2025-12-31T04:00:00Z", "2026-01-01T03:30:00Z"},
	} {
		now, _ := time.Parse(time.RFC3339, c.now)
		want, _ := time.Parse(time.RFC3339, c.want)
		if got := s.Next(now); !got.Equal(want) {
			t.Errorf("Next(%s) = %s, want %s", c.now, got, c.want)
		}
	}
	mustPanic(t, "hour 24", func() { DailyUTC(24, 0) })
	mustPanic(t, "minute -1", func() { DailyUTC(0, -1) })
}
