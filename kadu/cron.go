package kadu

import (
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/kobana/kobana-mcp/rest"
)

// defaultTimezone is the zone of a schedule that names none: Kadu is
// Brazilian first.
const defaultTimezone = "America/Sao_Paulo"

// cronParser reads the five standard fields and the @descriptors
// (@hourly, @daily, …); seconds are not offered, a minute is the finest
// tick.
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// parseSchedule checks a cron expression and its zone, as saved on a
// task: the zone is its own field, so the expression may not carry one
// (CRON_TZ=), and @every intervals are refused (they drift with restarts
// rather than naming instants).
func parseSchedule(expr, tz string) (cron.Schedule, error) {
	expr = strings.TrimSpace(expr)
	invalid := func(field, msg string) error {
		return rest.Validation("the schedule is invalid", rest.FieldError{Field: "schedule." + field, Message: msg})
	}
	if strings.HasPrefix(expr, "CRON_TZ=") || strings.HasPrefix(expr, "TZ=") {
		return nil, invalid("cron", "give the time zone in schedule.timezone, not in the expression")
	}
	if strings.HasPrefix(expr, "@every") {
		return nil, invalid("cron", "@every is not supported: name the instants with five fields or @hourly, @daily, @weekly, @monthly")
	}
	loc, err := time.LoadLocation(tz)
	if err != nil || tz == "" || strings.EqualFold(tz, "local") {
		return nil, invalid("timezone", "must be an IANA time zone such as America/Sao_Paulo or UTC")
	}
	sched, err := cronParser.Parse(expr)
	if err != nil {
		return nil, invalid("cron", "is not a cron expression ("+err.Error()+"): five fields, minute hour day-of-month month day-of-week, such as \"0 8 * * 1-5\"")
	}
	if spec, ok := sched.(*cron.SpecSchedule); ok {
		spec.Location = loc
		if spec.Next(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)).IsZero() {
			return nil, invalid("cron", "never matches a date (such as the 30th of February)")
		}
		return spec, nil
	}
	return nil, invalid("cron", "is not a calendar schedule")
}
