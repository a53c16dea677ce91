package kadu

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestBusinessDayScheduleAPI: the organization's calendar is saved and
// read back with its holidays; kadu_schedules_preview shows the next five
// runs by it (REST and MCP alike) and another organization's preview
// ignores it; a task with a business-day rule shows the same five runs in
// kadu_tasks_get; bad rules are refused with the field named and nothing
// saved.
func TestBusinessDayScheduleAPI(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startKadu(t, db, Config{})

		// The calendar: a member may read it, only an admin change it.
		e.wantError(e.member, "PUT", "/api/v1/calendar", map[string]any{"state": "SP"}, 403, "forbidden")
		e.wantError(e.admin, "PUT", "/api/v1/calendar", map[string]any{"state": "ZZ"}, 422, "validation_failed")
		e.wantError(e.admin, "PUT", "/api/v1/calendar", map[string]any{"closed_days": []map[string]any{{"date": "2027-02-30"}}}, 422, "validation_failed")
		e.wantError(e.admin, "PUT", "/api/v1/calendar", map[string]any{"closed_days": []map[string]any{{"date": "2027-02-10"}, {"date": "2027-02-10"}}}, 422, "validation_failed")
		if n := e.count(`SELECT COUNT(*) FROM kadu_calendars`); n != 0 {
			t.Fatalf("a refused calendar was saved: %d rows", n)
		}
		code, resp := e.Do(e.admin, "PUT", "/api/v1/calendar", map[string]any{"state": "sp", "city": "São Paulo",
			"closed_days": []map[string]any{{"date": "2027-02-10", "name": "Quarta de cinzas (folga da empresa)"}}})
		cal := data[calendarJSON](t, code, resp, 200)
		if cal.State != "SP" || cal.City != "3550308" || len(cal.ClosedDays) != 1 || cal.ClosedDays[0].Date != "2027-02-10" {
			t.Fatalf("saved calendar: %+v", cal)
		}
		code, resp = e.Do(e.member, "GET", "/api/v1/calendar", nil)
		got := data[calendarJSON](t, code, resp, 200)
		kinds := map[string]string{}
		for _, h := range got.Holidays {
			kinds[h.Date.String()] = h.Kind
		}
		if y := time.Now().Year(); y <= 2027 && y >= 2026 {
			if kinds["2027-02-08"] != bankcalendar.KindNational || kinds["2027-02-10"] != bankcalendar.KindOrganization ||
				kinds["2027-07-09"] != bankcalendar.KindState || kinds["2027-01-25"] != bankcalendar.KindMunicipal {
				t.Fatalf("holidays: %v", kinds)
			}
		}

		// The preview: the 6th business day of February 2027 is the 11th
		// for Mine (Carnival 8-9, its own 10th), the 10th for Theirs.
		preview := url.Values{"cron": {"0 8 * * *"}, "business_day_of_month": {"6"}, "from": {"2027-02-01T00:00:00-03:00"}}
		code, resp = e.Do(e.member, "GET", "/api/v1/schedules/preview?"+preview.Encode(), nil)
		p := data[previewJSON](t, code, resp, 200)
		if len(p.NextRuns) != 5 || p.Timezone != "America/Sao_Paulo" || *p.BusinessDayOfMonth != 6 {
			t.Fatalf("preview: %+v", p)
		}
		if first := p.NextRuns[0].Format(time.RFC3339); first != "2027-02-11T08:00:00-03:00" {
			t.Fatalf("Mine's first run %s, want 2027-02-11T08:00:00-03:00", first)
		}
		code, resp = e.Do(e.Other, "GET", "/api/v1/schedules/preview?"+preview.Encode(), nil)
		if p := data[previewJSON](t, code, resp, 200); p.NextRuns[0].Format(time.RFC3339) != "2027-02-10T08:00:00-03:00" {
			t.Fatalf("Theirs' first run %s: another organization's calendar leaked", p.NextRuns[0].Format(time.RFC3339))
		}
		text, isErr := e.Call(e.member, "kadu_schedules_preview", map[string]any{"cron": "0 7 * * *", "business_days": "only",
			"from": "2027-05-26T08:00:00-03:00"})
		if isErr || !strings.Contains(text, "2027-05-28T07:00:00-03:00") || strings.Contains(text, "2027-05-27T") {
			t.Fatalf("MCP preview over Corpus Christi 2027: %v %s", isErr, text)
		}
		e.wantError(e.member, "GET", "/api/v1/schedules/preview?cron=0+8+5+*+*&business_day_of_month=5", nil, 422, "validation_failed")

		// A task: kadu_tasks_get shows the rule and five runs, each on the
		// 3rd business day of its month at 08:00 in São Paulo.
		body := workflow("Fechamento")
		body["schedule"] = map[string]any{"cron": "0 8 * * *", "business_day_of_month": 3}
		task := e.createTask(e.member, body)
		code, resp = e.Do(e.viewer, "GET", "/api/v1/tasks/"+task.ID, nil)
		tj := data[taskJSON](t, code, resp, 200)
		s := tj.Schedule
		if s == nil || s.BusinessDayOfMonth == nil || *s.BusinessDayOfMonth != 3 || s.BusinessDays != "" || len(s.NextRuns) != 5 ||
			s.NextRunAt == nil || !s.NextRunAt.Equal(s.NextRuns[0]) {
			t.Fatalf("schedule: %s", resp)
		}
		full := toBankCalendar(&records.Calendar{State: "SP", City: "3550308", ClosedDays: []records.ClosedDay{{Date: "2027-02-10", Name: "x"}}})
		sp, _ := time.LoadLocation("America/Sao_Paulo")
		for i, r := range s.NextRuns {
			local := r.In(sp)
			d := bankcalendar.DateOf(local)
			n := 0
			for day := bankcalendar.NewDate(d.Year(), d.Month(), 1); !day.After(d); day = day.AddDays(1) {
				if full.IsBusinessDay(day) {
					n++
				}
			}
			if local.Hour() != 8 || local.Minute() != 0 || !full.IsBusinessDay(d) || n != 3 || (i > 0 && !r.After(s.NextRuns[i-1])) {
				t.Fatalf("run %d %s is not 08:00 on the 3rd business day (it is the %dth)", i, local, n)
			}
		}
		var stored string
		if err := db.Get(e.ctx, &stored, `SELECT schedule_business_day FROM kadu_tasks WHERE id = ?`, task.ID); err != nil || stored != "nth:3" {
			t.Fatalf("stored rule %q %v", stored, err)
		}

		// Changing the rule to "next"; refusals keep the rule saved.
		e.wantError(e.member, "PATCH", "/api/v1/tasks/"+task.ID, map[string]any{"schedule": map[string]any{"cron": "0 8 * * *", "business_days": "only", "business_day_of_month": 2}}, 422, "validation_failed")
		resp = e.wantError(e.member, "PATCH", "/api/v1/tasks/"+task.ID, map[string]any{"schedule": map[string]any{"cron": "", "business_days": "next"}}, 422, "validation_failed")
		if !strings.Contains(resp, "schedule.cron") {
			t.Fatalf("refusal names no field: %s", resp)
		}
		if err := db.Get(e.ctx, &stored, `SELECT schedule_business_day FROM kadu_tasks WHERE id = ?`, task.ID); err != nil || stored != "nth:3" {
			t.Fatalf("a refused change touched the rule: %q %v", stored, err)
		}
		resp = e.do(e.member, "PATCH", "/api/v1/tasks/"+task.ID, map[string]any{"schedule": map[string]any{"cron": "0 9 * * *", "business_days": "next"}}, 200)
		if !strings.Contains(resp, `"business_days":"next"`) || strings.Contains(resp, "business_day_of_month") {
			t.Fatalf("after the change: %s", resp)
		}
		// Removing the schedule removes the rule.
		e.do(e.member, "PATCH", "/api/v1/tasks/"+task.ID, map[string]any{"schedule": map[string]any{"cron": ""}}, 200)
		var rule *string
		if err := db.Get(e.ctx, &rule, `SELECT schedule_business_day FROM kadu_tasks WHERE id = ?`, task.ID); err != nil || rule != nil {
			t.Fatalf("rule after removal: %v %v", rule, err)
		}
	})
}

// TestBusinessDayTicksOncePerReplica: two replicas (two job queues on
// one database) run the scheduler together, three times each, across
// Carnival 2027 for a task that moves closed days' ticks to the next
// business day: nothing runs on the Saturday, Sunday, Monday and Tuesday
// of Carnival, and Ash Wednesday 09:00 — where all four ticks land — runs
// exactly once.
func TestBusinessDayTicksOncePerReplica(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		a, b := newReplica(t, db, Config{}), newReplica(t, db, Config{})
		tk := scheduledTask(t, db, "0 9 * * *", "America/Sao_Paulo", mustTime("2027-02-05T13:00:00Z"))
		rule := "next"
		tk.ScheduleBusinessDay = &rule
		if err := records.UpdateTask(ctx, db, tk); err != nil {
			t.Fatal(err)
		}
		tickAll := func(now time.Time) {
			t.Helper()
			a.set(now)
			b.set(now)
			var wg sync.WaitGroup
			errs := make(chan error, 6)
			for range 3 {
				for _, r := range []*replica{a, b} {
					wg.Add(1)
					go func() {
						defer wg.Done()
						_, err := r.svc.runSchedules(ctx, r.svc.clock())
						errs <- err
					}()
				}
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
		}
		// 09:00 in São Paulo is 12:00 UTC; each closed day's tick, a
		// minute after it.
		for _, day := range []string{"2027-02-06", "2027-02-07", "2027-02-08", "2027-02-09"} {
			tickAll(mustTime(day + "T12:01:00Z"))
		}
		var n int
		if err := db.Get(ctx, &n, `SELECT COUNT(*) FROM kadu_executions`); err != nil || n != 0 {
			t.Fatalf("ran on a closed day: %d %v", n, err)
		}
		tickAll(mustTime("2027-02-10T12:00:30Z"))
		var ticks []time.Time
		if err := db.Select(ctx, &ticks, `SELECT tick_at FROM kadu_executions`); err != nil {
			t.Fatal(err)
		}
		if len(ticks) != 1 || !ticks[0].Equal(mustTime("2027-02-10T12:00:00Z")) {
			t.Fatalf("Ash Wednesday: %v, want one run at 2027-02-10T12:00:00Z", ticks)
		}
		if err := db.Get(ctx, &n, `SELECT COUNT(*) FROM kadu_schedule_ticks WHERE task_id = ?`, tk.ID); err != nil || n != 1 {
			t.Fatalf("%d tick rows, want 1 (%v)", n, err)
		}
		// The encoded answer of the task shows the runs after that one.
		j := a.svc.toTaskJSON(ctx, tk)
		out, _ := json.Marshal(j.Schedule)
		if len(j.Schedule.NextRuns) != 5 || !j.Schedule.NextRuns[0].Equal(mustTime("2027-02-11T12:00:00Z")) {
			t.Fatalf("next runs after Ash Wednesday: %s", out)
		}
	})
}
