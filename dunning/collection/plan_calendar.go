package collection

import (
	"fmt"
	"sort"
	"time"

	"github.com/kobana/kobana-mcp/dunning/schedule"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
)

// CalendarEntry is one step of a plan placed on a charge's calendar: the
// instant it runs (dunning/schedule: due date + offset, the next business
// day when the step asks for it, its send time in the organization's
// zone, out of the quiet hours) and what moved it there.
type CalendarEntry struct {
	Step StepRecord
	Run  schedule.Run
	// Nominal is the day the step names, due date + offset, before any
	// move.
	Nominal bankcalendar.Date
}

// scheduleStep is what of a stored step decides when it runs.
func scheduleStep(st StepRecord) (schedule.Step, error) {
	at, err := schedule.ParseClock(st.SendTime)
	if err != nil {
		return schedule.Step{}, fmt.Errorf("step %s: %w", st.ID, err)
	}
	return schedule.Step{OffsetDays: st.OffsetDays, SendTime: at, BusinessDays: st.BusinessDays != 0}, nil
}

// planCalendar places every active step of a plan on the calendar of a
// charge due on due, in the order the charge meets them: by run instant,
// then by the plan's nominal order (offset, send time, id). Disabled
// steps are left out. Business days can reorder steps (a step on Saturday
// with business days runs on Monday, after a calendar-day step on
// Sunday), which is why the order is the schedule's and not the offsets'.
func planCalendar(due bankcalendar.Date, steps []StepRecord, opt schedule.Options) ([]CalendarEntry, error) {
	out := make([]CalendarEntry, 0, len(steps))
	for _, st := range steps {
		if st.Status != stepActive {
			continue
		}
		ss, err := scheduleStep(st)
		if err != nil {
			return nil, err
		}
		run, err := schedule.Plan(due, ss, opt)
		if err != nil {
			return nil, fmt.Errorf("step %s: %w", st.ID, err)
		}
		out = append(out, CalendarEntry{Step: st, Run: run, Nominal: due.AddDays(st.OffsetDays)})
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if !a.Run.At.Equal(b.Run.At) {
			return a.Run.At.Before(b.Run.At)
		}
		if a.Step.OffsetDays != b.Step.OffsetDays {
			return a.Step.OffsetDays < b.Step.OffsetDays
		}
		if a.Step.SendTime != b.Step.SendTime {
			return a.Step.SendTime < b.Step.SendTime
		}
		return a.Step.ID < b.Step.ID
	})
	return out, nil
}

// splitPast divides a calendar at now: the steps whose instant is not
// after now are past — enrolling now never sends them (no retroactive
// messages) — and the rest are still to come, the first of them the
// enrollment's next step.
func splitPast(cal []CalendarEntry, now time.Time) (past, upcoming []CalendarEntry) {
	for i, e := range cal {
		if e.Run.At.After(now) {
			return cal[:i], cal[i:]
		}
	}
	return cal, nil
}
