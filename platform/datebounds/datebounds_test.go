package datebounds

import (
	"testing"
	"time"
)

func TestWithin(t *testing.T) {
	t.Parallel()
	sp := time.FixedZone("BRT", -3*3600)
	for _, c := range []struct {
		t    time.Time
		want bool
	}{
		{time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{time.Date(1989, 12, 31, 23, 59, 59, 0, time.UTC), false},
		{time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC), true},
		{time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC), true},
		{time.Date(2100, 12, 31, 23, 59, 59, 0, time.UTC), true},
		{time.Date(2101, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC), false},
		// The day as written: 2100-12-31 21:30 in São Paulo is 2101 in UTC.
		{time.Date(2100, 12, 31, 21, 30, 0, 0, sp), true},
		{time.Date(1989, 12, 31, 22, 0, 0, 0, sp), false},
	} {
		if got := Within(c.t); got != c.want {
			t.Errorf("Within(%s) = %v", c.t, got)
		}
		if err := Check(c.t); (err == nil) != c.want || (err != nil && err.Error() != Message) {
			t.Errorf("Check(%s) = %v", c.t, err)
		}
	}
}
