package kadu

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/datebounds"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// Kadu's prompts (docs/tools/kadu.md): ready-made conversations for what
// people ask an AI client to do with their tasks. A prompt reads what it
// needs in-process through the routes (so it shows only what the caller
// may see, counted and summed by the server) and hands it to the model
// marked as third-party data; everything that changes something stays a
// separate tool call, and whatever is destructive is confirmed by the
// person.

// maxPromptText bounds a prompt's free-text arguments (a task's
// instructions are longer: the route's own bound).
const (
	maxPromptText         = 200
	maxPromptInstructions = 20000
)

// diagnosePerStatus is how many executions of each ended-badly status
// diagnose_failed_executions reads (one page of the listing); a variable
// so a test can reach the bound with a few executions.
var diagnosePerStatus = 200

// failedStatuses are the ends diagnose_failed_executions looks at.
var failedStatuses = []string{records.ExecFailed, records.ExecTimedOut, records.ExecCostExceeded}

// cronChoices and timezoneChoices are what schedule_task's completions
// suggest; any other valid expression or IANA zone is accepted.
var (
	cronChoices     = []string{"0 8 * * 1-5", "0 9 * * 1", "0 8 1 * *", "0 18 * * *", "@daily", "@weekly", "@monthly", "@hourly"}
	timezoneChoices = []string{"America/Sao_Paulo", "America/Manaus", "America/Recife", "America/Belem", "America/Cuiaba", "America/Porto_Velho", "America/Rio_Branco", "America/Noronha", "UTC"}
)

// Both prompts that read executions and tasks need both scopes.
var (
	tasksAndExecutionsRead = mcp.Requirement{Scopes: []string{"kadu.executions", "kadu.tasks"}, Permission: executionsRead.Permission}
)

func prompts(b *restbridge.Bridge) []mcp.Prompt {
	return []mcp.Prompt{
		{
			Name: "diagnose_failed_executions", Title: "Diagnose failed executions",
			Description: "Groups the executions that ended failed, timed_out or cost_exceeded since a date by their error code, with the counts, the tasks concerned and an example of each, and asks for a fix per group; nothing is run again without the user's go-ahead.",
			Arguments: []mcp.PromptArgument{
				{Name: "since", Title: "Since", Description: "Only executions queued on or after this day, YYYY-MM-DD in UTC (default: seven days ago)."},
				{Name: "task_id", Title: "Task", Description: "Only the executions of this task."},
			},
			Requires: tasksAndExecutionsRead,
			Get: func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return diagnoseFailed(ctx, b, req)
			},
			Complete: completeEither(restkit.CompleteIDs(b, map[string]restkit.IDSource{"task_id": taskIDs}), completeDays(b, "since", 1, 7, 30)),
		},
		{
			Name: "cost_review", Title: "Review Kadu's costs",
			Description: "The month's cost against the plan's monthly limit, and per task its executions, cost, tokens, average cost per execution and ceiling, all computed by the server, with suggestions for ceilings and schedules; nothing is changed without the user's go-ahead.",
			Arguments: []mcp.PromptArgument{
				{Name: "month", Title: "Month", Description: "The month to review, YYYY-MM (default: this month so far)."},
			},
			Requires: tasksAndExecutionsRead,
			Get: func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return costReview(ctx, b, req)
			},
			Complete: completeMonths(b, "month", 12),
		},
		{
			Name: "schedule_task", Title: "Schedule a task",
			Description: "Puts a task on a cron schedule — a new one from a name and instructions, or an existing one — paused first, shows it with its next runs, and activates it only once the user confirms.",
			Arguments: []mcp.PromptArgument{
				{Name: "cron", Title: "Schedule", Description: "Five cron fields (minute hour day-of-month month day-of-week) or @hourly, @daily, @weekly, @monthly: \"0 8 * * 1-5\" is 08:00 on weekdays.", Required: true},
				{Name: "timezone", Title: "Time zone", Description: "The IANA zone the schedule is read in (default America/Sao_Paulo)."},
				{Name: "business_days", Title: "Business days", Description: "only: ticks on bank holidays and weekends are skipped; next: they run on the next business day."},
				{Name: "business_day_of_month", Title: "Business day of the month", Description: "Runs on the Nth business day of each month (1-23) or, with -1, the last; the cron gives the time of day (\"0 8 * * *\")."},
				{Name: "task_id", Title: "Existing task", Description: "Schedule this task instead of creating one."},
				{Name: "name", Title: "Name", Description: "The new task's name (without task_id)."},
				{Name: "instructions", Title: "Instructions", Description: "What the new task does (without task_id)."},
			},
			Requires: tasksWrite,
			Get: func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return scheduleTask(ctx, b, req)
			},
			Complete: completeEither(restkit.CompleteIDs(b, map[string]restkit.IDSource{"task_id": taskIDs}), restkit.CompleteFixed(map[string][]string{"cron": cronChoices, "timezone": timezoneChoices})),
		},
	}
}

// today is the server's day (UTC), as kadu_usage_get counts it.
func today(ctx context.Context, b *restbridge.Bridge, req *mcp.Request) (time.Time, error) {
	var doc struct {
		Data struct {
			To string `json:"to"`
		} `json:"data"`
	}
	if err := restkit.GetJSON(ctx, b, req, APIBase+"/usage", nil, &doc); err != nil {
		return time.Time{}, err
	}
	d, err := time.Parse(time.DateOnly, doc.Data.To)
	if err != nil {
		return time.Time{}, mcp.NewError(mcp.CodeInternalError, "the prompt's data could not be read", nil)
	}
	return d, nil
}

// failureGroup is the executions of one error code, as the prompt shows
// them.
type failureGroup struct {
	Code       string         `json:"code"`
	Executions int            `json:"executions"`
	Statuses   map[string]int `json:"statuses"`
	Tasks      []groupTask    `json:"tasks"`
	Example    executionJSON  `json:"example"`
	Last       time.Time      `json:"last_at"`
}

type groupTask struct {
	TaskID     string `json:"task_id"`
	Name       string `json:"name"`
	Executions int    `json:"executions"`
}

// diagnoseFailed renders diagnose_failed_executions: the listing read per
// status (newest first, at most diagnosePerStatus each) down to the since
// day, grouped here by error code, largest group first.
func diagnoseFailed(ctx context.Context, b *restbridge.Bridge, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	day, err := today(ctx, b, &req.Request)
	if err != nil {
		return nil, err
	}
	since, err := diagnoseSince(req, day)
	if err != nil {
		return nil, err
	}
	taskID := strings.TrimSpace(req.Arguments["task_id"])
	names := map[string]string{}
	if taskID != "" {
		var doc struct {
			Data taskJSON `json:"data"`
		}
		if err := restkit.GetJSON(ctx, b, &req.Request, APIBase+"/tasks/"+url.PathEscape(taskID), nil, &doc); err != nil {
			return nil, err
		}
		taskID = doc.Data.ID
		names[taskID] = doc.Data.Name
	}
	f := newFailures()
	for _, status := range failedStatuses {
		if err := f.read(ctx, b, &req.Request, status, taskID, since); err != nil {
			return nil, err
		}
	}
	if err := taskNames(ctx, b, &req.Request, f.taskCounts, names); err != nil {
		return nil, err
	}
	summary := map[string]any{"since": since.Format(time.DateOnly), "today": day.Format(time.DateOnly), "executions": f.total, "groups": f.sorted(names)}
	if taskID != "" {
		summary["task_id"] = taskID
	}
	if len(f.incomplete) > 0 {
		summary["note"] = fmt.Sprintf("only the newest %d executions of each of these statuses were read: %s", diagnosePerStatus, strings.Join(f.incomplete, ", "))
	}
	data, err := json.MarshalIndent(summary, "", "  ")
	if err != nil {
		return nil, err
	}
	return restkit.UserPrompt("Failed executions by error", diagnoseText+string(data)), nil
}

// diagnoseText is what diagnose_failed_executions asks, before the
// server's figures.
const diagnoseText = "Diagnose the Kadu executions that ended badly (failed, timed_out, cost_exceeded) and propose a fix for each group.\n\n" +
	"The server grouped them below by error code: `executions` is how many, `statuses` how they ended, `tasks` which tasks they belong to, `example` the newest one. Quote these counts as they are; if `note` says the reading stopped, say so rather than estimating the rest. " +
	"For each group, read the example's steps with kadu_executions_steps (the failed step names the tool, its arguments and its error) and its task with kadu_tasks_get or kobana://kadu/tasks/{id}, then explain the likely cause in a sentence and the fix: a workflow step's arguments or condition, on_error continue, an allowed tool or a scope the task lacks, a cost ceiling (cost_exceeded), a slower tool or a smaller input (timed_out), an approval nobody answered (approval_expired, approval_timeout).\n\n" +
	"Changing a task (kadu_tasks_update) and running it again (kadu_tasks_run, destructive: it acts on the organization's data, and costs) are the user's decisions: propose them, and run them only when the user says so. Do not retry an execution on your own.\n\n" +
	untrustedNotice + "\n\n"

// diagnoseSince is the prompt's since day: the argument, else a week
// before day.
func diagnoseSince(req *mcp.GetPromptRequest, day time.Time) (time.Time, error) {
	v := strings.TrimSpace(req.Arguments["since"])
	if v == "" {
		return day.AddDate(0, 0, -7), nil
	}
	since, err := time.Parse(time.DateOnly, v)
	if err != nil || !datebounds.Within(since) {
		return time.Time{}, mcp.InvalidParams("since must be a day YYYY-MM-DD, " + datebounds.Message)
	}
	return since, nil
}

// failures are the failed executions read so far, grouped by error code.
type failures struct {
	groups     map[string]*failureGroup
	taskCounts map[string]map[string]int
	total      int
	// incomplete are the statuses whose listing went on past the newest
	// diagnosePerStatus executions.
	incomplete []string
}

func newFailures() *failures {
	return &failures{groups: map[string]*failureGroup{}, taskCounts: map[string]map[string]int{}, incomplete: []string{}}
}

// read adds the newest executions of one status (of one task when taskID
// is set) down to the since day.
func (f *failures) read(ctx context.Context, b *restbridge.Bridge, req *mcp.Request, status, taskID string, since time.Time) error {
	q := url.Values{"status": {status}, "limit": {fmt.Sprint(diagnosePerStatus)}}
	if taskID != "" {
		q.Set("task_id", taskID)
	}
	var doc struct {
		Data []executionJSON `json:"data"`
		Meta struct {
			NextCursor *string `json:"next_cursor"`
		} `json:"meta"`
	}
	if err := restkit.GetJSON(ctx, b, req, APIBase+"/executions", q, &doc); err != nil {
		return err
	}
	for _, e := range doc.Data {
		if e.CreatedAt.Before(since) {
			return nil
		}
		f.add(status, e)
	}
	if doc.Meta.NextCursor != nil {
		f.incomplete = append(f.incomplete, status)
	}
	return nil
}

// add counts one execution in its error code's group.
func (f *failures) add(status string, e executionJSON) {
	code := status
	if e.Error != nil && e.Error.Code != "" {
		code = e.Error.Code
	}
	g := f.groups[code]
	if g == nil {
		// The newest execution of the group is its example.
		g = &failureGroup{Code: code, Statuses: map[string]int{}, Example: e, Last: e.CreatedAt}
		f.groups[code] = g
		f.taskCounts[code] = map[string]int{}
	}
	g.Executions++
	g.Statuses[status]++
	f.taskCounts[code][e.TaskID]++
	f.total++
}

// sorted are the groups, largest first, each with its tasks by name,
// most executions first.
func (f *failures) sorted(names map[string]string) []*failureGroup {
	list := make([]*failureGroup, 0, len(f.groups))
	for code, g := range f.groups {
		for id, n := range f.taskCounts[code] {
			g.Tasks = append(g.Tasks, groupTask{TaskID: id, Name: names[id], Executions: n})
		}
		slices.SortFunc(g.Tasks, func(a, b groupTask) int {
			if a.Executions != b.Executions {
				return b.Executions - a.Executions
			}
			return strings.Compare(a.TaskID, b.TaskID)
		})
		list = append(list, g)
	}
	slices.SortFunc(list, func(a, b *failureGroup) int {
		if a.Executions != b.Executions {
			return b.Executions - a.Executions
		}
		return strings.Compare(a.Code, b.Code)
	})
	return list
}

// taskNames fills names with the name of every task the groups count,
// read through the task route (a task deleted since is left nameless).
func taskNames(ctx context.Context, b *restbridge.Bridge, req *mcp.Request, counts map[string]map[string]int, names map[string]string) error {
	for _, byTask := range counts {
		for id := range byTask {
			if _, ok := names[id]; ok {
				continue
			}
			names[id] = ""
			status, body := b.Get(ctx, req, APIBase+"/tasks/"+url.PathEscape(id), nil)
			if status == http.StatusNotFound {
				continue
			}
			if status != http.StatusOK {
				return mcp.NewError(mcp.CodeInternalError, "the prompt's data could not be read", nil)
			}
			var doc struct {
				Data taskJSON `json:"data"`
			}
			_ = json.Unmarshal(body, &doc)
			names[id] = doc.Data.Name
		}
	}
	return nil
}

// taskCost is one task's line of the cost review.
type taskCost struct {
	TaskID            string     `json:"task_id"`
	Name              string     `json:"name"`
	Executions        int        `json:"executions"`
	Cost              float64    `json:"cost"`
	Tokens            tokensJSON `json:"tokens"`
	AverageCost       *float64   `json:"average_cost_per_execution"`
	CostCeiling       *float64   `json:"cost_ceiling"`
	CeilingFrom       string     `json:"cost_ceiling_from"`
	Schedule          *string    `json:"schedule"`
	ShareOfMonthsCost *float64   `json:"share_of_cost_percent"`
}

// costReview renders cost_review: kadu_usage_get over the month, kadu_me's
// plan (the limit of the current month), and each task's ceiling and
// schedule; the averages and shares are computed here, in cents.
func costReview(ctx context.Context, b *restbridge.Bridge, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	var who struct {
		Data meJSON `json:"data"`
	}
	if err := restkit.GetJSON(ctx, b, &req.Request, APIBase+"/me", nil, &who); err != nil {
		return nil, err
	}
	plan := who.Data.Plan
	day, err := today(ctx, b, &req.Request)
	if err != nil {
		return nil, err
	}
	month, start, end, err := reviewPeriod(req, plan.Month, day)
	if err != nil {
		return nil, err
	}
	var usage struct {
		Data usageJSON `json:"data"`
	}
	if err := restkit.GetJSON(ctx, b, &req.Request, APIBase+"/usage", url.Values{"from": {start.Format(time.DateOnly)}, "to": {end.Format(time.DateOnly)}}, &usage); err != nil {
		return nil, err
	}
	u := usage.Data
	lines, err := taskCostLines(ctx, b, &req.Request, u, plan.MaxCostPerExecution)
	if err != nil {
		return nil, err
	}
	planSummary := map[string]any{"max_cost_per_execution": plan.MaxCostPerExecution, "max_concurrent_executions": plan.MaxConcurrentExecutions}
	if month == plan.Month {
		if err := addMonthLeft(planSummary, plan); err != nil {
			return nil, err
		}
	}
	summary := map[string]any{
		"month": month, "from": u.From, "to": u.To,
		"totals":  u.Totals,
		"by_task": restkit.OrEmpty(lines),
		"by_day":  u.ByDay,
		"plan":    planSummary,
	}
	data, err := json.MarshalIndent(summary, "", "  ")
	if err != nil {
		return nil, err
	}
	text := "Review what Kadu cost this organization in " + month + " and suggest where to save.\n\n" + costReviewText + string(data)
	return restkit.UserPrompt("Kadu costs of "+month, text), nil
}

// costReviewText is what cost_review asks, after its first line and
// before the server's figures.
const costReviewText = "The figures below were computed by the server, in BRL: `totals` and `by_day` are kadu_usage_get's; in `by_task` each task's executions, cost and tokens, `average_cost_per_execution` (rounded up to the cent), `share_of_cost_percent` of the period's cost, and `cost_ceiling` — the most one execution may cost, the task's own or the plan's maximum per execution (`cost_ceiling_from`). " +
	"For the current month `plan` also says the monthly limit, what is used and what is left. Quote these numbers as they are: never add or re-derive amounts yourself. Workflow steps cost nothing; model steps of agent tasks cost tokens.\n\n" +
	"Then suggest, task by task: a cost ceiling a little above its average (kadu_tasks_update with cost_ceiling) where the ceiling is far above it, a less frequent schedule for scheduled tasks that cost most, a workflow instead of an agent where the steps are always the same, and whether the monthly limit will last the month at this pace. Change nothing without the user's go-ahead.\n\n" +
	untrustedNotice + "\n\n"

// reviewPeriod is the month cost_review reads (the argument, else the
// plan's current one) and its first and last day, the last no later than
// day.
func reviewPeriod(req *mcp.GetPromptRequest, current string, day time.Time) (month string, start, end time.Time, err error) {
	month = current
	if v := strings.TrimSpace(req.Arguments["month"]); v != "" {
		month = v
	}
	start, err = time.Parse("2006-01", month)
	if err != nil || !datebounds.Within(start) {
		return "", start, end, mcp.InvalidParams("month must be a month YYYY-MM, " + datebounds.Message)
	}
	end = start.AddDate(0, 1, -1)
	if end.After(day) {
		end = day
	}
	if start.After(day) {
		return "", start, end, mcp.InvalidParams("month %s has not begun", month)
	}
	return month, start, end, nil
}

// taskCostLines are the review's lines, one per task of the usage, with
// shares of the period's cost computed in cents.
func taskCostLines(ctx context.Context, b *restbridge.Bridge, req *mcp.Request, u usageJSON, planCeiling float64) ([]taskCost, error) {
	monthCents, err := money.FromFloatAtMost(u.Totals.Cost, maxAmount)
	if err != nil {
		return nil, err
	}
	var lines []taskCost
	for _, tu := range u.ByTask {
		line := taskCost{TaskID: tu.TaskID, Name: tu.Name, Executions: tu.Executions, Cost: tu.Cost, Tokens: tu.Tokens, CeilingFrom: "plan"}
		cents, err := money.FromFloatAtMost(tu.Cost, maxAmount)
		if err != nil {
			return nil, err
		}
		if tu.Executions > 0 {
			avg := money.Cents((int64(cents) + int64(tu.Executions) - 1) / int64(tu.Executions)).Float64()
			line.AverageCost = &avg
		}
		if monthCents > 0 {
			share := float64(int64(cents)*1000/int64(monthCents)) / 10
			line.ShareOfMonthsCost = &share
		}
		if err := taskCeiling(ctx, b, req, &line, planCeiling); err != nil {
			return nil, err
		}
		lines = append(lines, line)
	}
	return lines, nil
}

// taskCeiling fills a line's ceiling (the task's when lower than the
// plan's) and schedule from the task route; a task deleted since keeps
// the plan's.
func taskCeiling(ctx context.Context, b *restbridge.Bridge, req *mcp.Request, line *taskCost, planCeiling float64) error {
	ceiling := planCeiling
	line.CostCeiling = &ceiling
	var doc struct {
		Data taskJSON `json:"data"`
	}
	status, body := b.Get(ctx, req, APIBase+"/tasks/"+url.PathEscape(line.TaskID), nil)
	switch status {
	case http.StatusOK:
		_ = json.Unmarshal(body, &doc)
		if doc.Data.CostCeiling != nil && *doc.Data.CostCeiling < ceiling {
			line.CostCeiling, line.CeilingFrom = doc.Data.CostCeiling, "task"
		}
		if doc.Data.Schedule != nil {
			s := doc.Data.Schedule.Cron + " (" + doc.Data.Schedule.Timezone + ")"
			line.Schedule = &s
		}
	case http.StatusNotFound:
		line.CeilingFrom = "task deleted"
	default:
		return mcp.NewError(mcp.CodeInternalError, "the prompt's data could not be read", nil)
	}
	return nil
}

// addMonthLeft adds the current month's limit, use and what is left to
// the review's plan.
func addMonthLeft(p map[string]any, plan planJSON) error {
	limit, err := money.FromFloatAtMost(plan.MonthlyCostLimit, maxAmount)
	if err != nil {
		return err
	}
	used, err := money.FromFloatAtMost(plan.CostUsedThisMonth, maxAmount)
	if err != nil {
		return err
	}
	p["monthly_cost_limit"] = plan.MonthlyCostLimit
	p["cost_used_this_month"] = plan.CostUsedThisMonth
	p["cost_left_this_month"] = max(0, limit-used).Float64()
	if limit > 0 {
		p["used_percent"] = float64(int64(used)*1000/int64(limit)) / 10
	}
	return nil
}

// promptSchedule reads schedule_task's schedule arguments, checked as the
// task routes check them: the schedule as kadu_tasks_update takes it, and
// a sentence of its next three runs.
func promptSchedule(req *mcp.GetPromptRequest) (json.RawMessage, string, error) {
	expr := strings.TrimSpace(req.Arguments["cron"])
	tz := strings.TrimSpace(req.Arguments["timezone"])
	if tz == "" {
		tz = defaultTimezone
	}
	if expr == "" {
		return nil, "", mcp.InvalidParams("cron must not be blank")
	}
	if len(expr) > 100 || len(tz) > 64 {
		return nil, "", mcp.InvalidParams("cron is at most 100 characters and timezone 64")
	}
	var ofMonth *int
	if v := strings.TrimSpace(req.Arguments["business_day_of_month"]); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, "", mcp.InvalidParams("business_day_of_month: must be a whole number from 1 to %d, or -1", maxBusinessDayOfMonth)
		}
		ofMonth = &n
	}
	days := strings.TrimSpace(req.Arguments["business_days"])
	rule, err := ruleFromInput(days, ofMonth)
	var sched taskSchedule
	if err == nil {
		sched, err = buildTaskSchedule(expr, tz, rule, nil)
	}
	if err != nil {
		var re *rest.Error
		if errors.As(err, &re) && len(re.Details) > 0 {
			return nil, "", mcp.InvalidParams("%s: %s", strings.TrimPrefix(re.Details[0].Field, "schedule."), re.Details[0].Message)
		}
		return nil, "", mcp.InvalidParams("%v", err)
	}
	loc, _ := time.LoadLocation(tz)
	var next []string
	at := time.Now()
	for range 3 {
		at = sched.Next(at)
		next = append(next, at.In(loc).Format("Mon 2006-01-02 15:04 MST"))
	}
	sj := map[string]any{"cron": expr, "timezone": tz}
	calendarNote := ""
	if rule.kind != "" {
		d, m := rule.fields()
		if d != "" {
			sj["business_days"] = d
		}
		if m != nil {
			sj["business_day_of_month"] = *m
		}
		calendarNote = " by the national bank calendar; kadu_tasks_get shows them with the organization's own closed days (kadu_calendar_get)"
	}
	schedule, _ := json.Marshal(sj)
	return schedule, fmt.Sprintf("The schedule %s runs next at %s (%s%s).", schedule, strings.Join(next, "; "), tz, calendarNote), nil
}

// scheduleTask renders schedule_task: the expression checked (the task
// routes' own parser) and its next runs, and the steps to create or
// change the task paused, show it, and resume it on the user's word.
func scheduleTask(ctx context.Context, b *restbridge.Bridge, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	schedule, when, err := promptSchedule(req)
	if err != nil {
		return nil, err
	}
	taskID := strings.TrimSpace(req.Arguments["task_id"])
	if taskID != "" {
		var doc struct {
			Data taskJSON `json:"data"`
		}
		if err := restkit.GetJSON(ctx, b, &req.Request, APIBase+"/tasks/"+url.PathEscape(taskID), nil, &doc); err != nil {
			return nil, err
		}
		task, _ := json.MarshalIndent(doc.Data, "", "  ")
		text := fmt.Sprintf("Put the Kadu task %q (%s) on a schedule. %s\n\n"+
			"1. If the task is active, pause it first with kadu_tasks_pause, so the schedule does not start before the user has seen it.\n"+
			"2. kadu_tasks_update with task_id %q and schedule %s.\n"+
			"3. Show the task with kadu_tasks_get: its schedule, its steps or allowed tools, its cost ceiling, and who may trigger it; each scheduled run runs as the task's owner and costs like a manual one.\n"+
			"4. Only when the user confirms, kadu_tasks_resume: from then on every tick queues one execution (a tick is skipped while the previous execution is still going). Without the confirmation, leave it paused and say how to resume it.\n"+
			"A VALIDATION_ERROR names the field: fix it and try again. Stop and report if a call fails.\n\n%s\n\nThe task now:\n%s",
			doc.Data.Name, doc.Data.ID, when, doc.Data.ID, schedule, untrustedNotice, task)
		return restkit.UserPrompt("Schedule a task", text), nil
	}
	name := strings.TrimSpace(req.Arguments["name"])
	instructions := strings.TrimSpace(req.Arguments["instructions"])
	if name == "" || instructions == "" {
		return nil, mcp.InvalidParams("name and instructions must not be blank when no task_id is given")
	}
	if len([]rune(name)) > maxPromptText || len([]rune(instructions)) > maxPromptInstructions {
		return nil, mcp.InvalidParams("name must be at most %d characters and instructions at most %d", maxPromptText, maxPromptInstructions)
	}
	text := fmt.Sprintf("Create a scheduled Kadu task named %q that does this: %q. %s\n\n"+
		"1. Draft the task with the user: a workflow (the default, needs no model) is an ordered list of steps, each a tool call of another Kobana product (inbox_…, dunning_…) with arguments written as templates over the run's input and earlier steps' results ({{input.month}}, {{steps.list.data[0].id}}); an agent task lets a model choose among its allowed tools, and costs tokens.\n"+
		"2. kadu_tasks_create with the name, the instructions, the steps or allowed tools, and schedule %s.\n"+
		"3. At once kadu_tasks_pause with the new task's id: a task is created active, and the schedule must not start before the user has seen it.\n"+
		"4. Show it with kadu_tasks_get: its schedule, steps, allowed tools with their granted scopes, cost ceiling, who may trigger it.\n"+
		"5. Only when the user confirms, kadu_tasks_resume: from then on every tick queues one execution, run as the task's owner. Without the confirmation, leave it paused and say how to resume it.\n"+
		"A validation_error names the field (a step's template: steps.1.arguments.…): fix it and try again. Stop and report if a call fails.",
		name, instructions, when, schedule)
	return restkit.UserPrompt("Schedule a task", text), nil
}

// completeEither asks the first handler, then the second when the first
// suggests nothing (each knows its own arguments).
func completeEither(first, second mcp.CompleteHandler) mcp.CompleteHandler {
	return func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.Completion, error) {
		c, err := first(ctx, req)
		if err != nil || len(c.Values) > 0 {
			return c, err
		}
		return second(ctx, req)
	}
}

// completeDays suggests, for arg, the days that many days before the
// server's today.
func completeDays(b *restbridge.Bridge, arg string, ago ...int) mcp.CompleteHandler {
	return func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.Completion, error) {
		values := []string{}
		if req.Argument != arg {
			return &mcp.Completion{Values: values}, nil
		}
		day, err := today(ctx, b, &req.Request)
		if err != nil {
			return &mcp.Completion{Values: values}, nil
		}
		return &mcp.Completion{Values: restkit.RecentDays(day, req.Value, ago...)}, nil
	}
}

// completeMonths suggests, for arg, the server's month and the n-1 before
// it, newest first.
func completeMonths(b *restbridge.Bridge, arg string, n int) mcp.CompleteHandler {
	return func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.Completion, error) {
		values := []string{}
		if req.Argument != arg {
			return &mcp.Completion{Values: values}, nil
		}
		day, err := today(ctx, b, &req.Request)
		if err != nil {
			return &mcp.Completion{Values: values}, nil
		}
		first := time.Date(day.Year(), day.Month(), 1, 0, 0, 0, 0, time.UTC)
		for i := range n {
			if m := first.AddDate(0, -i, 0).Format("2006-01"); strings.HasPrefix(m, req.Value) {
				values = append(values, m)
			}
		}
		return &mcp.Completion{Values: values}, nil
	}
}
