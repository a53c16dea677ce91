package schedule

import "fmt"

// Window is the part of each day messages may go out, from Open
// (included) to Close (excluded), in the organization's local time;
// outside it are the quiet hours. A window may not cross midnight.
type Window struct {
	Open  Clock `json:"open"`
	Close Clock `json:"close"`
}

// DefaultWindow is 08:00 to 20:00: no message before eight in the
// morning or from eight in the evening on.
var DefaultWindow = Window{Open: At(8, 0), Close: At(20, 0)}

// IsZero reports whether the window is unset (Options then uses
// DefaultWindow).
func (w Window) IsZero() bool { return w == Window{} }

// Validate checks that the window is a non-empty span inside one day.
func (w Window) Validate() error {
	if !w.Open.Valid() || !w.Close.Valid() {
		return fmt.Errorf("sending window times must be between 00:00 and 23:59")
	}
	if w.Open >= w.Close {
		return fmt.Errorf("sending window must open before it closes (got %s–%s)", w.Open, w.Close)
	}
	return nil
}

// Contains reports whether a message at c is inside the window.
func (w Window) Contains(c Clock) bool { return c >= w.Open && c < w.Close }
