package kadu

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/rest"
)

// Business-day rules of a schedule (docs/kadu.md "Business-day
// schedules"). The cron expression still names the ticks' time of day
// (and may narrow the months); the rule says which days they fall on,
// by the bank calendar (platform/bankcalendar: the national bank
// holidays of Lei 662/1949 and its amendments, Carnival Monday and
// Tuesday by FEBRABAN's bank calendar, 20 November by Lei 14.759/2023,
// the year's last business day without bank hours, as the BCB and
// FEBRABAN publish it) plus the organization's Kadu calendar (its state,
// city and own closed days). Days are read in the task's time zone.
const (
	// ruleOnly: a cron tick on a closed day is skipped.
	ruleOnly = "only"
	// ruleNext: a cron tick on a closed day runs at the same time of day
	// on the next business day (ticks that land on the same instant run
	// once).
	ruleNext = "next"
	// ruleNth: the cron's ticks on the Nth business day of the month only.
	ruleNth = "nth"
	// ruleLast: the cron's ticks on the last business day of the month.
	ruleLast = "last"
)

// maxBusinessDayOfMonth is the highest N of "the Nth business day": no
// month has more than 23 weekdays; a month with fewer business days than
// N has no run.
const maxBusinessDayOfMonth = 23

// businessRule is a schedule's business-day rule; the zero rule is plain
// cron. It is stored in kadu_tasks.schedule_business_day as its String.
type businessRule struct {
	kind string // "", ruleOnly, ruleNext, ruleNth, ruleLast
	nth  int    // for ruleNth, 1…maxBusinessDayOfMonth
}

// String is the stored form: "", "only", "next", "nth:5", "last".
func (r businessRule) String() string {
	if r.kind == ruleNth {
		return ruleNth + ":" + strconv.Itoa(r.nth)
	}
	return r.kind
}

// fields are the rule as the API shows it: business_days and
// business_day_of_month (-1 for the last).
func (r businessRule) fields() (days string, ofMonth *int) {
	switch r.kind {
	case ruleOnly, ruleNext:
		return r.kind, nil
	case ruleNth:
		n := r.nth
		return "", &n
	case ruleLast:
		n := -1
		return "", &n
	}
	return "", nil
}

// parseStoredRule reads kadu_tasks.schedule_business_day.
func parseStoredRule(s string) (businessRule, error) {
	switch {
	case s == "":
		return businessRule{}, nil
	case s == ruleOnly || s == ruleNext || s == ruleLast:
		return businessRule{kind: s}, nil
	case strings.HasPrefix(s, ruleNth+":"):
		n, err := strconv.Atoi(strings.TrimPrefix(s, ruleNth+":"))
		if err == nil && n >= 1 && n <= maxBusinessDayOfMonth {
			return businessRule{kind: ruleNth, nth: n}, nil
		}
	}
	return businessRule{}, fmt.Errorf("kadu: unknown business-day rule %q", s)
}

// ruleFromInput reads the rule as a caller writes it: business_days
// ("only", "next" or "") and business_day_of_month (1…23, or -1 for the
// last business day), which exclude each other.
func ruleFromInput(days string, ofMonth *int) (businessRule, error) {
	invalid := func(field, msg string) error {
		return rest.Validation("the schedule is invalid", rest.FieldError{Field: "schedule." + field, Message: msg})
	}
	days = strings.TrimSpace(days)
	if days != "" && days != ruleOnly && days != ruleNext {
		return businessRule{}, invalid("business_days", `must be "only" (ticks on closed days are skipped) or "next" (they move to the next business day)`)
	}
	if ofMonth == nil {
		return businessRule{kind: days}, nil
	}
	if days != "" {
		return businessRule{}, invalid("business_days", "give either business_days or business_day_of_month: the Nth or last business day is a business day already")
	}
	switch n := *ofMonth; {
	case n == -1:
		return businessRule{kind: ruleLast}, nil
	case n >= 1 && n <= maxBusinessDayOfMonth:
		return businessRule{kind: ruleNth, nth: n}, nil
	}
	return businessRule{}, invalid("business_day_of_month", fmt.Sprintf("must be from 1 to %d (the Nth business day of the month) or -1 (the last business day)", maxBusinessDayOfMonth))
}

// checkCronForRule refuses a cron whose day fields would fight the rule:
// with the Nth or last business day, the day of month and the day of the
// week are the rule's, so the expression must leave them "*".
func checkCronForRule(expr string, r businessRule) error {
	if r.kind != ruleNth && r.kind != ruleLast {
		return nil
	}
	expr = strings.TrimSpace(expr)
	if strings.HasPrefix(expr, "@") {
		switch expr {
		case "@daily", "@midnight", "@hourly":
			return nil
		}
		return rest.Validation("the schedule is invalid", rest.FieldError{Field: "schedule.cron",
			Message: "with business_day_of_month the rule picks the day: use @daily, @hourly or five fields with * for day-of-month and day-of-week (\"0 8 * * *\")"})
	}
	f := strings.Fields(expr)
	if len(f) == 5 && (f[2] != "*" && f[2] != "?" || f[4] != "*" && f[4] != "?") {
		return rest.Validation("the schedule is invalid", rest.FieldError{Field: "schedule.cron",
			Message: "with business_day_of_month the rule picks the day: leave day-of-month and day-of-week as * (\"0 8 * * *\" runs at 08:00 on that business day)"})
	}
	return nil
}

// taskSchedule is a task's schedule: its cron ticks, in its zone, under
// its business-day rule and calendar. Next is the first run strictly
// after t, or the zero time when there is none within the search bound.
type taskSchedule struct {
	cron cron.Schedule
	loc  *time.Location
	rule businessRule
	cal  *bankcalendar.Calendar
}

// searchBound caps how far Next looks: a rule and cron that never meet
// (the 23rd business day of February only) answer "no run" rather than
// loop.
const searchBound = 5000

// movedSearchBound caps the ticks nextMoved reads: every tick of a closed
// stretch (up to a long holiday weekend of a cron firing each minute,
// some 6 000 ticks a day) may be the earliest to land after t.
const movedSearchBound = 100000

// Next is the schedule's first run after t.
func (s taskSchedule) Next(t time.Time) time.Time {
	switch s.rule.kind {
	case ruleOnly:
		return s.nextOnBusinessDay(t)
	case ruleNext:
		return s.nextMoved(t)
	case ruleNth, ruleLast:
		return s.nextOfMonth(t)
	}
	return s.cron.Next(t)
}

func (s taskSchedule) day(t time.Time) bankcalendar.Date { return bankcalendar.DateOf(t.In(s.loc)) }

// startOf is the first instant of d in the schedule's zone.
func (s taskSchedule) startOf(d bankcalendar.Date) time.Time {
	return time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, s.loc)
}

// nextOnBusinessDay: the cron's next tick that falls on a business day;
// a tick on a closed day jumps the search to the next day.
func (s taskSchedule) nextOnBusinessDay(t time.Time) time.Time {
	tick := s.cron.Next(t)
	for n := 0; n < searchBound && !tick.IsZero(); n++ {
		d := s.day(tick)
		if s.cal.IsBusinessDay(d) {
			return tick
		}
		tick = s.cron.Next(s.startOf(d.AddDays(1)).Add(-time.Nanosecond))
	}
	return time.Time{}
}

// moved is where tick runs under ruleNext: its clock time on the first
// business day from its own day on.
func (s taskSchedule) moved(tick time.Time) time.Time {
	local := tick.In(s.loc)
	d := bankcalendar.DateOf(local)
	b := s.cal.NextBusinessDay(d)
	if b == d {
		return tick
	}
	return time.Date(b.Year(), b.Month(), b.Day(), local.Hour(), local.Minute(), 0, 0, s.loc)
}

// nextMoved is the earliest moved tick after t. A tick moved from a
// closed stretch just before t's day may land after t, so the search
// starts at that stretch; since a tick moves only later, it stops once a
// tick itself is past the best run found.
func (s taskSchedule) nextMoved(t time.Time) time.Time {
	start := s.day(t)
	for i := 0; i < 40 && !s.cal.IsBusinessDay(start.AddDays(-1)); i++ {
		start = start.AddDays(-1)
	}
	var best time.Time
	tick := s.cron.Next(s.startOf(start).Add(-time.Nanosecond))
	for n := 0; n < movedSearchBound && !tick.IsZero(); n++ {
		if !best.IsZero() && tick.After(best) {
			break
		}
		if m := s.moved(tick); m.After(t) && (best.IsZero() || m.Before(best)) {
			best = m
		}
		tick = s.cron.Next(tick)
	}
	return best
}

// businessDayOfMonth is the rule's day in the month of d: the Nth or the
// last business day, or false when the month has fewer than N.
func (s taskSchedule) businessDayOfMonth(year int, month time.Month) (bankcalendar.Date, bool) {
	first := bankcalendar.NewDate(year, month, 1)
	if s.rule.kind == ruleLast {
		d := bankcalendar.NewDate(year, month+1, 1).AddDays(-1)
		for ; d.Month() == month; d = d.AddDays(-1) {
			if s.cal.IsBusinessDay(d) {
				return d, true
			}
		}
		return bankcalendar.Date{}, false
	}
	n := 0
	for d := first; d.Month() == month; d = d.AddDays(1) {
		if s.cal.IsBusinessDay(d) {
			if n++; n == s.rule.nth {
				return d, true
			}
		}
	}
	return bankcalendar.Date{}, false
}

// nextOfMonth: month by month from t's, the cron's first tick after t on
// that month's business day (a cron that narrows the months skips the
// others).
func (s taskSchedule) nextOfMonth(t time.Time) time.Time {
	from := s.day(t)
	y, m := from.Year(), from.Month()
	for i := 0; i < 12*40; i++ {
		if d, ok := s.businessDayOfMonth(y, m); ok && !d.Before(from) {
			after := t
			if start := s.startOf(d).Add(-time.Nanosecond); start.After(after) {
				after = start
			}
			if tick := s.cron.Next(after); !tick.IsZero() && s.day(tick) == d {
				return tick
			}
		}
		if m++; m > time.December {
			y, m = y+1, time.January
		}
	}
	return time.Time{}
}

// nextRuns are the schedule's first n runs after t, in its zone.
func (s taskSchedule) nextRuns(t time.Time, n int) []time.Time {
	var out []time.Time
	for len(out) < n {
		t = s.Next(t)
		if t.IsZero() {
			break
		}
		out = append(out, t.In(s.loc))
	}
	return out
}

// parseTaskSchedule checks a schedule as saved on a task — its cron and
// zone (parseSchedule), its stored business-day rule — and binds it to
// the organization's calendar.
func parseTaskSchedule(expr, tz, rule string, cal *bankcalendar.Calendar) (taskSchedule, error) {
	r, err := parseStoredRule(rule)
	if err != nil {
		return taskSchedule{}, err
	}
	return buildTaskSchedule(expr, tz, r, cal)
}

func buildTaskSchedule(expr, tz string, r businessRule, cal *bankcalendar.Calendar) (taskSchedule, error) {
	c, err := parseSchedule(expr, tz)
	if err != nil {
		return taskSchedule{}, err
	}
	if err := checkCronForRule(expr, r); err != nil {
		return taskSchedule{}, err
	}
	loc, _ := time.LoadLocation(tz)
	s := taskSchedule{cron: c, loc: loc, rule: r, cal: cal}
	if r.kind != "" && s.Next(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)).IsZero() {
		return taskSchedule{}, rest.Validation("the schedule is invalid", rest.FieldError{Field: "schedule.cron",
			Message: "the expression and the business-day rule never meet (no run in the coming years)"})
	}
	return s, nil
}
