package kadu

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/rest"
)

func intp(n int) *int { return &n }

// runsOf is the first n runs of a schedule after from, each written in
// the schedule's zone as "2006-01-02 15:04".
func runsOf(t *testing.T, cron, tz, days string, ofMonth *int, cal *bankcalendar.Calendar, from string, n int) []string {
	t.Helper()
	rule, err := ruleFromInput(days, ofMonth)
	if err != nil {
		t.Fatal(err)
	}
	s, err := buildTaskSchedule(cron, tz, rule, cal)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range s.nextRuns(mustTime(from), n) {
		out = append(out, r.Format("2006-01-02 15:04"))
	}
	return out
}

// TestBusinessDaySchedules: each rule on the bank calendar's holidays.
// Carnival 2027 is Monday 8 and Tuesday 9 February (Easter 28 March:
// −48 and −47 days; banks closed by FEBRABAN's calendar), Corpus Christi
// 2027 Thursday 27 May (Easter + 60; a bank holiday by the BCB/FEBRABAN
// calendar), 20 November a national holiday from 2024 (Lei 14.759/2023;
// the rest of the national list is Lei 662/1949 and its amendments), and
// 31 December without bank hours (FEBRABAN).
func TestBusinessDaySchedules(t *testing.T) {
	t.Parallel()
	const sp = "America/Sao_Paulo"
	cases := []struct {
		name     string
		cron, tz string
		days     string
		ofMonth  *int
		cal      *bankcalendar.Calendar
		from     string
		n        int
		want     []string
	}{
		{"5th business day: Carnival 2027 does not count", "0 8 * * *", sp, "", intp(5), nil, "2027-01-31T12:00:00Z", 2,
			[]string{"2027-02-05 08:00", "2027-03-05 08:00"}},
		{"6th business day of February 2027 is Ash Wednesday, after Carnival", "0 8 * * *", sp, "", intp(6), nil, "2027-02-01T00:00:00Z", 1,
			[]string{"2027-02-10 08:00"}},
		{"the organization's day moves the Nth too", "0 8 * * *", sp, "", intp(6),
			bankcalendar.New(bankcalendar.ClosedDay{Date: bankcalendar.NewDate(2027, time.February, 10), Name: "folga"}), "2027-02-01T00:00:00Z", 1,
			[]string{"2027-02-11 08:00"}},
		{"1st business day of January skips New Year and the weekend", "30 9 * * *", sp, "", intp(1), nil, "2026-12-15T00:00:00Z", 1,
			[]string{"2027-01-04 09:30"}},
		{"last business day: 31 December 2026 has no bank hours", "0 18 * * *", sp, "", intp(-1), nil, "2026-12-01T00:00:00Z", 2,
			[]string{"2026-12-30 18:00", "2027-01-29 18:00"}},
		{"last business day of April 2027 is the 30th (Friday)", "0 18 * * *", sp, "", intp(-1), nil, "2027-04-01T00:00:00Z", 1,
			[]string{"2027-04-30 18:00"}},
		{"only: weekdays around Carnival 2027", "0 8 * * 1-5", sp, "only", nil, nil, "2027-02-05T12:00:00Z", 5,
			[]string{"2027-02-10 08:00", "2027-02-11 08:00", "2027-02-12 08:00", "2027-02-15 08:00", "2027-02-16 08:00"}},
		{"only: Corpus Christi 2027 is skipped", "0 7 * * *", sp, "only", nil, nil, "2027-05-26T00:00:00Z", 2,
			[]string{"2027-05-26 07:00", "2027-05-28 07:00"}},
		{"only: 20 November 2026 (Friday) is skipped", "0 7 * * *", sp, "only", nil, nil, "2026-11-19T12:00:00Z", 2,
			[]string{"2026-11-23 07:00", "2026-11-24 07:00"}},
		{"next: the 20th of each month, 20 November 2026 moves to Monday 23", "0 10 20 * *", sp, "next", nil, nil, "2026-11-01T00:00:00Z", 3,
			[]string{"2026-11-23 10:00", "2026-12-21 10:00", "2027-01-20 10:00"}},
		{"next: 20 November 2023 was no national holiday yet", "0 10 20 11 *", sp, "next", nil, nil, "2023-11-01T00:00:00Z", 1,
			[]string{"2023-11-20 10:00"}},
		{"next: Carnival Monday's tick runs on Ash Wednesday", "0 9 8 2 *", sp, "next", nil, nil, "2026-12-01T00:00:00Z", 1,
			[]string{"2027-02-10 09:00"}},
		{"next: a daily tick's weekend and holidays collapse into one run", "0 9 * * *", sp, "next", nil, nil, "2027-02-05T13:00:00Z", 4,
			[]string{"2027-02-10 09:00", "2027-02-11 09:00", "2027-02-12 09:00", "2027-02-15 09:00"}},
		{"next: a closed day's late tick runs after the business day's earlier one", "0 8,20 * * *", sp, "next", nil, nil, "2027-05-26T12:00:00Z", 4,
			[]string{"2027-05-26 20:00", "2027-05-28 08:00", "2027-05-28 20:00", "2027-05-31 08:00"}},
		{"the day is read in the task's zone: 23:00 Friday in São Paulo is Saturday in UTC", "0 23 * * *", sp, "only", nil, nil, "2027-02-05T12:00:00Z", 1,
			[]string{"2027-02-05 23:00"}},
		{"the same cron in UTC skips that Saturday", "0 2 * * *", "UTC", "only", nil, nil, "2027-02-05T12:00:00Z", 1,
			[]string{"2027-02-10 02:00"}},
		{"state holiday: 9 July in São Paulo (Lei estadual 9.497/1997)", "0 8 * * *", sp, "only", nil, bankcalendar.NewIn(bankcalendar.Place{UF: "SP"}), "2027-07-08T12:00:00Z", 1,
			[]string{"2027-07-12 08:00"}},
		{"next: a cron firing each minute over Carnival's four closed days lands on Ash Wednesday's first minutes", "* * * * *", sp, "next", nil, nil, "2027-02-09T23:59:30-03:00", 3,
			[]string{"2027-02-10 00:00", "2027-02-10 00:01", "2027-02-10 00:02"}},
		{"plain cron is unchanged", "0 8 * * *", sp, "", nil, nil, "2027-02-07T12:00:00Z", 2,
			[]string{"2027-02-08 08:00", "2027-02-09 08:00"}},
		{"months narrowed by the cron", "0 8 * 3,6,9,12 *", sp, "", intp(-1), nil, "2027-01-01T00:00:00Z", 2,
			[]string{"2027-03-31 08:00", "2027-06-30 08:00"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := runsOf(t, c.cron, c.tz, c.days, c.ofMonth, c.cal, c.from, c.n)
			if strings.Join(got, ", ") != strings.Join(c.want, ", ") {
				t.Fatalf("runs %v, want %v", got, c.want)
			}
		})
	}
}

// TestBusinessDayRuleRefusals: each bad schedule names its field and
// says what to write.
func TestBusinessDayRuleRefusals(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, cron, days string
		ofMonth          *int
		field, says      string
	}{
		{"unknown business_days", "0 8 * * *", "sometimes", nil, "schedule.business_days", `"only"`},
		{"both rules", "0 8 * * *", "only", intp(3), "schedule.business_days", "either"},
		{"zeroth business day", "0 8 * * *", "", intp(0), "schedule.business_day_of_month", "from 1 to 23"},
		{"24th business day", "0 8 * * *", "", intp(24), "schedule.business_day_of_month", "from 1 to 23"},
		{"a day-of-month beside the Nth", "0 8 5 * *", "", intp(5), "schedule.cron", "day-of-month and day-of-week as *"},
		{"a weekday beside the last", "0 8 * * 1", "", intp(-1), "schedule.cron", "day-of-month and day-of-week as *"},
		{"@weekly beside the Nth", "@weekly", "", intp(2), "schedule.cron", "@daily"},
		{"never meets: February has no 23rd business day", "0 8 * 2 *", "", intp(23), "schedule.cron", "never meet"},
		{"a bad cron still says so", "0 25 * * *", "only", nil, "schedule.cron", "not a cron expression"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rule, err := ruleFromInput(c.days, c.ofMonth)
			if err == nil {
				_, err = buildTaskSchedule(c.cron, "America/Sao_Paulo", rule, nil)
			}
			var re *rest.Error
			if !errors.As(err, &re) || len(re.Details) != 1 || re.Details[0].Field != c.field || !strings.Contains(re.Details[0].Message, c.says) {
				t.Fatalf("got %v (%+v), want %s saying %q", err, re, c.field, c.says)
			}
		})
	}
}

// TestBusinessRuleStoredForm: what is saved reads back as the same rule,
// and an unknown stored rule is an error (the scheduler leaves the task
// alone rather than run it on plain cron).
func TestBusinessRuleStoredForm(t *testing.T) {
	t.Parallel()
	for _, r := range []businessRule{{}, {kind: ruleOnly}, {kind: ruleNext}, {kind: ruleNth, nth: 5}, {kind: ruleLast}} {
		got, err := parseStoredRule(r.String())
		if err != nil || got != r {
			t.Errorf("%q read back as %+v, %v", r.String(), got, err)
		}
	}
	for _, bad := range []string{"nth:0", "nth:24", "nth:x", "weekly"} {
		if _, err := parseStoredRule(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
