// Package schedule decides the exact instant a collection plan's step
// runs for a charge: the due date plus the step's offset, moved to the
// next business day when the step asks for business days, at the step's
// send time in the organization's time zone, and moved forward out of the
// quiet hours (by default messages go out only from 08:00 to 20:00 local
// time). Users of debt-collection systems ask for exactly this: no
// messages on holidays, weekends or at night.
//
// The result is a UTC time.Time a job queue can store and compare; the
// time zone rules come from the IANA database embedded in the binary
// (time/tzdata), so a host without zoneinfo files computes the same
// instants.
package schedule

import _ "time/tzdata" // organization time zones must resolve on any host
