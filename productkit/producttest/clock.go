package producttest

import (
	"sync"
	"time"
)

// Clock is a product's clock in its tests: it stands still until the
// test sets it, so schedule time never passes by sleeping, and every
// reader (the handlers, the job workers, the test itself) sees the same
// instant. It keeps time in UTC, as a deployment's clock does.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock is a Clock standing at at.
func NewClock(at time.Time) *Clock { return &Clock{now: at.UTC()} }

// Now is the clock's instant; a product's clock seam (a now func) takes
// it as it is.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to t, backwards too.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t.UTC()
}
