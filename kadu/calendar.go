package kadu

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// maxCalendarClosedDays bounds an organization's own closed days.
const maxCalendarClosedDays = 500

// calendarJSON is an organization's Kadu calendar as the API shows it,
// with the closed days of this year and the next that it yields (the
// national bank holidays, the place's, the organization's), so a person
// sees Carnival and Corpus Christi before a schedule skips them.
type calendarJSON struct {
	State      string                   `json:"state"`
	City       string                   `json:"city"`
	ClosedDays []records.ClosedDay      `json:"closed_days"`
	Holidays   []bankcalendar.ClosedDay `json:"holidays"`
	UpdatedAt  *time.Time               `json:"updated_at"`
}

type calendarGetIn struct{}

type calendarPutIn struct {
	State      string        `json:"state,omitempty" maxLength:"2" jsonschema:"The organization's state, its two-letter code (SP, RJ…), whose holidays close its business days; empty for national holidays only."`
	City       string        `json:"city,omitempty" maxLength:"100" jsonschema:"The organization's city, its IBGE code (3550308) or name (São Paulo), whose holidays close its business days; the table has the 27 capitals (give another city's days in closed_days). Needs state."`
	ClosedDays []closedDayIn `json:"closed_days,omitempty" maxItems:"500" jsonschema:"The organization's own closed days (a company day off, another city's holiday); replaces the list."`
}

type closedDayIn struct {
	Date string `json:"date" format:"date" jsonschema:"The day, YYYY-MM-DD."`
	Name string `json:"name,omitempty" maxLength:"100" jsonschema:"What the day is (default: \"closed day\")."`
}

// calendarAPI holds the handlers of the calendar and schedule preview
// operations.
type calendarAPI struct{ *service }

// registerCalendar declares kadu_calendar_get, kadu_calendar_update and
// kadu_schedules_preview.
func registerCalendar(api *rest.API, s *service) {
	h := &calendarAPI{s}
	rest.Handle(api, rest.Operation{
		ID: "kadu_calendar_get", Method: "GET", Path: "/calendar", Tags: []string{"calendar"},
		Title:    "Get the organization's calendar",
		Summary:  "The organization's Kadu calendar, which business-day schedules follow: its state and city (whose holidays close its days), its own closed days, and every closed day of this year and the next other than weekends (national bank holidays, the year's bank closing, the place's, the organization's).",
		Requires: tasksRead, Annotations: restkit.ReadOnly(),
	}, h.get)
	rest.Handle(api, rest.Operation{
		ID: "kadu_calendar_update", Method: "PUT", Path: "/calendar", Tags: []string{"calendar"},
		Title:    "Set the organization's calendar",
		Summary:  "Replaces the organization's Kadu calendar: its state and city and its own closed days. Business-day schedules follow it from their next run on. Admins only.",
		Requires: tasksManage, Annotations: restkit.Write(true),
	}, h.put)
	rest.Handle(api, rest.Operation{
		ID: "kadu_schedules_preview", Method: "GET", Path: "/schedules/preview", Tags: []string{"calendar"},
		Title:    "Preview a schedule",
		Summary:  "Checks a schedule (cron, time zone, business-day rule) as kadu_tasks_create would and shows its next five runs by the organization's calendar, saving nothing.",
		Requires: tasksRead, Annotations: restkit.ReadOnly(),
	}, h.preview)
}

func (h *calendarAPI) toJSON(c *records.Calendar) calendarJSON {
	cal := toBankCalendar(c)
	y := h.clock().Year()
	j := calendarJSON{State: c.State, City: c.City, ClosedDays: c.ClosedDays,
		Holidays: append(cal.HolidaysIn(y), cal.HolidaysIn(y+1)...)}
	if !c.UpdatedAt.IsZero() {
		at := c.UpdatedAt
		j.UpdatedAt = &at
	}
	return j
}

// get answers kadu_calendar_get.
func (h *calendarAPI) get(ctx context.Context, _ *calendarGetIn) (*rest.Response, error) {
	sc, err := h.tenancy(ctx)
	if err != nil {
		return nil, err
	}
	c, err := records.GetCalendar(ctx, h.db, sc.OrgID)
	if err != nil {
		return nil, err
	}
	return rest.OK(map[string]any{"data": h.toJSON(c)}), nil
}

// put answers kadu_calendar_update: the place checked against the
// holiday table, each day a date that exists, no day twice.
func (h *calendarAPI) put(ctx context.Context, in *calendarPutIn) (*rest.Response, error) {
	sc, err := h.tenancy(ctx)
	if err != nil {
		return nil, err
	}
	c := &records.Calendar{OrganizationID: sc.OrgID, UpdatedAt: h.clock()}
	var fields []rest.FieldError
	regions, err := bankcalendar.BrazilRegions()
	if err != nil {
		return nil, err
	}
	state, city := strings.TrimSpace(in.State), strings.TrimSpace(in.City)
	switch s, ok := regions.State(state); {
	case state == "" && city != "":
		fields = append(fields, rest.FieldError{Field: "state", Message: "give the state of the city"})
	case state != "" && !ok:
		fields = append(fields, rest.FieldError{Field: "state", Message: "is not a Brazilian state's two-letter code (SP, RJ…)"})
	case state != "":
		c.State = s.UF
		if city != "" {
			ct, ok := regions.City(s.UF, city)
			if !ok {
				fields = append(fields, rest.FieldError{Field: "city", Message: "is not in the holiday table (the 27 capitals, by IBGE code or name): give its holidays in closed_days"})
			}
			c.City = ct.IBGE
		}
	}
	if len(in.ClosedDays) > maxCalendarClosedDays {
		fields = append(fields, rest.FieldError{Field: "closed_days", Message: fmt.Sprintf("at most %d days", maxCalendarClosedDays)})
	}
	seen := map[bankcalendar.Date]bool{}
	for i, d := range in.ClosedDays {
		on, err := bankcalendar.ParseDate(strings.TrimSpace(d.Date))
		switch {
		case err != nil:
			fields = append(fields, rest.FieldError{Field: fmt.Sprintf("closed_days[%d].date", i), Message: err.Error()})
			continue
		case seen[on]:
			fields = append(fields, rest.FieldError{Field: fmt.Sprintf("closed_days[%d].date", i), Message: "is given twice"})
			continue
		}
		seen[on] = true
		name := strings.TrimSpace(d.Name)
		if name == "" {
			name = "closed day"
		}
		c.ClosedDays = append(c.ClosedDays, records.ClosedDay{Date: on.String(), Name: name})
	}
	if len(fields) > 0 {
		return nil, rest.Validation("the calendar is invalid", fields...)
	}
	if err := records.PutCalendar(ctx, h.db, c); err != nil {
		return nil, err
	}
	return rest.OK(map[string]any{"data": h.toJSON(c)}), nil
}

// previewIn is a schedule to preview.
type previewIn struct {
	Cron               string `json:"cron" in:"query" minLength:"1" maxLength:"100" jsonschema:"The cron expression, as in a task's schedule.cron (with a business-day rule it gives the time of day)."`
	Timezone           string `json:"timezone,omitempty" in:"query" maxLength:"64" jsonschema:"The IANA time zone (default America/Sao_Paulo)."`
	BusinessDays       string `json:"business_days,omitempty" in:"query" enum:"only,next" jsonschema:"only: ticks on closed days are skipped; next: they run on the next business day."`
	BusinessDayOfMonth *int   `json:"business_day_of_month,omitempty" in:"query" minimum:"-1" maximum:"23" jsonschema:"The Nth business day of the month (1-23), or -1 for the last one."`
	From               string `json:"from,omitempty" in:"query" format:"date-time" jsonschema:"The instant the runs are counted from (RFC 3339; default now)."`
}

// previewJSON is a schedule's next runs, in its zone.
type previewJSON struct {
	Cron               string      `json:"cron"`
	Timezone           string      `json:"timezone"`
	BusinessDays       string      `json:"business_days,omitempty"`
	BusinessDayOfMonth *int        `json:"business_day_of_month,omitempty"`
	NextRuns           []time.Time `json:"next_runs"`
}

// preview answers kadu_schedules_preview.
func (h *calendarAPI) preview(ctx context.Context, in *previewIn) (*rest.Response, error) {
	sc, err := h.tenancy(ctx)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Cron) == "" {
		return nil, rest.Validation("the schedule is invalid", rest.FieldError{Field: "schedule.cron", Message: "give the cron expression to preview"})
	}
	from := h.clock()
	if in.From != "" {
		if from, err = time.Parse(time.RFC3339, in.From); err != nil {
			return nil, rest.Validation("the request is invalid", rest.FieldError{Field: "from", Message: "must be an RFC 3339 instant such as 2027-02-01T00:00:00-03:00"})
		}
	}
	cal, err := h.orgCalendar(ctx, h.db, sc.OrgID)
	if err != nil {
		return nil, err
	}
	tz := in.Timezone
	if tz == "" {
		tz = defaultTimezone
	}
	rule, err := ruleFromInput(in.BusinessDays, in.BusinessDayOfMonth)
	if err != nil {
		return nil, err
	}
	sched, err := buildTaskSchedule(in.Cron, tz, rule, cal)
	if err != nil {
		return nil, err
	}
	days, ofMonth := rule.fields()
	return rest.OK(map[string]any{"data": previewJSON{Cron: strings.TrimSpace(in.Cron), Timezone: tz, BusinessDays: days,
		BusinessDayOfMonth: ofMonth, NextRuns: sched.nextRuns(from, nextRunsShown)}}), nil
}
