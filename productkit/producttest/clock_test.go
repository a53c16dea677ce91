package producttest

import (
	"sync"
	"testing"
	"time"
)

// TestClockStandsStillInUTC: the clock answers what it was set to, as
// the same instant in UTC, until it is set again, from any goroutine.
func TestClockStandsStillInUTC(t *testing.T) {
	t.Parallel()
	sp := time.FixedZone("BRT", -3*3600)
	at := time.Date(2026, 3, 10, 12, 0, 0, 0, sp)
	c := NewClock(at)
	if got := c.Now(); !got.Equal(at) || got.Location() != time.UTC {
		t.Fatalf("Now %v, want %v in UTC", got, at)
	}
	time.Sleep(5 * time.Millisecond)
	if got := c.Now(); !got.Equal(at) {
		t.Fatalf("the clock moved by itself: %v", got)
	}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() { c.Set(at.Add(time.Duration(i) * time.Hour)); _ = c.Now() })
	}
	wg.Wait()
	back := at.Add(-48 * time.Hour)
	c.Set(back)
	if got := c.Now(); !got.Equal(back) || got.Location() != time.UTC {
		t.Fatalf("after Set back: %v", got)
	}
}
