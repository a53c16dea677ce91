package kadu

import (
	"context"
	"slices"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/datebounds"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// meRequirement: any person of the organization with a valid token; the
// answer is about the caller.
var meRequirement = mcp.Requirement{Permission: identity.PermRead}

// planJSON is the organization's plan and where its month stands.
type planJSON struct {
	Month                   string  `json:"month"`
	MonthlyCostLimit        float64 `json:"monthly_cost_limit"`
	CostUsedThisMonth       float64 `json:"cost_used_this_month"`
	MaxCostPerExecution     float64 `json:"max_cost_per_execution"`
	MaxConcurrentExecutions int     `json:"max_concurrent_executions"`
}

type meJSON struct {
	Organization struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"organization"`
	User struct {
		ID    string `json:"id"`
		Email string `json:"email"`
	} `json:"user"`
	Role   string   `json:"role"`
	Scopes []string `json:"scopes"`
	Plan   planJSON `json:"plan"`
}

type meIn struct{}

type usageIn struct {
	From string `json:"from,omitempty" in:"query" format:"date" jsonschema:"First day of the period, YYYY-MM-DD (UTC; default: the first of this month)."`
	To   string `json:"to,omitempty" in:"query" format:"date" jsonschema:"Last day of the period, YYYY-MM-DD (UTC; default: today); at most 366 days after from."`
}

// usageTotals are cost, tokens and executions of a period, a day or a
// task.
type usageTotals struct {
	Cost       float64    `json:"cost"`
	Tokens     tokensJSON `json:"tokens"`
	Executions int        `json:"executions"`
	costCents  int64
}

func (u *usageTotals) add(cents int64, t records.Tokens) {
	u.costCents += cents
	u.Cost = money.Cents(u.costCents).Float64()
	u.Tokens.Input += t.In
	u.Tokens.Output += t.Out
	u.Tokens.Cached += t.Cached
}

type dayUsage struct {
	Date string `json:"date"`
	usageTotals
}

type taskUsage struct {
	TaskID string `json:"task_id"`
	Name   string `json:"name"`
	usageTotals
}

type usageJSON struct {
	From   string      `json:"from"`
	To     string      `json:"to"`
	Totals usageTotals `json:"totals"`
	ByDay  []dayUsage  `json:"by_day"`
	ByTask []taskUsage `json:"by_task"`
	// WaitingBudget are the executions paused at their ceiling now,
	// whatever the period (budget_continue.go): kadu_usage_get only.
	WaitingBudget []budgetWaitJSON `json:"waiting_budget,omitempty"`
}

// meAPI holds the handlers of kadu_me and kadu_usage_get.
type meAPI struct{ *service }

// registerMe declares kadu_me and kadu_usage_get.
func registerMe(api *rest.API, s *service) {
	h := &meAPI{s}
	rest.Handle(api, rest.Operation{
		ID: "kadu_me", Method: "GET", Path: "/me", Tags: []string{"me"},
		Title: "Who am I", Summary: "The caller's organization, role and scopes, and the plan: monthly cost limit, cost used this month, maximum cost per execution and how many executions may run at once (money in BRL).",
		Requires: meRequirement, Annotations: restkit.ReadOnly(),
	}, h.me)
	rest.Handle(api, rest.Operation{
		ID: "kadu_usage_get", Method: "GET", Path: "/usage", Tags: []string{"me"},
		Title: "Get usage", Summary: "Cost (BRL), tokens and executions over a period (days in UTC, default this month so far), by day and by task, with the totals computed by the server; and the executions paused now at their ceiling (waiting_budget), each with what its next step could cost and what is left.",
		Requires: executionsRead, Annotations: restkit.ReadOnly(),
	}, h.getUsage)
}

// me answers kadu_me.
func (h *meAPI) me(ctx context.Context, _ *meIn) (*rest.Response, error) {
	sc, err := h.tenancy(ctx)
	if err != nil {
		return nil, err
	}
	org, err := h.accounts.GetOrganization(ctx, sc.OrgID)
	if err != nil {
		return nil, err
	}
	usage, err := h.currentUsage(ctx, h.db, sc.OrgID)
	if err != nil {
		return nil, err
	}
	var me meJSON
	me.Organization.ID, me.Organization.Name = org.ID, org.Name
	me.User.ID, me.User.Email = sc.Identity.UserID, sc.Identity.Email
	me.Role = string(sc.Identity.Role)
	me.Scopes = append([]string{}, sc.Identity.Scopes...)
	me.Plan = planJSON{Month: usage.Month, MonthlyCostLimit: money.Cents(h.cfg.Plan.MonthlyCostLimitCents).Float64(),
		CostUsedThisMonth:       money.Cents(usage.CostCents).Float64(),
		MaxCostPerExecution:     money.Cents(h.cfg.Plan.MaxCostPerExecutionCents).Float64(),
		MaxConcurrentExecutions: h.cfg.Plan.MaxConcurrentExecutions}
	return rest.OK(map[string]any{"data": me}), nil
}

// getUsage answers kadu_usage_get.
func (h *meAPI) getUsage(ctx context.Context, in *usageIn) (*rest.Response, error) {
	sc, err := h.tenancy(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock()
	from := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	to := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	if in.From != "" {
		if from, err = time.Parse(time.DateOnly, in.From); err != nil {
			return nil, rest.Validation("the request is invalid", rest.FieldError{Field: "from", Message: "must be a date YYYY-MM-DD"})
		}
	}
	if in.To != "" {
		if to, err = time.Parse(time.DateOnly, in.To); err != nil {
			return nil, rest.Validation("the request is invalid", rest.FieldError{Field: "to", Message: "must be a date YYYY-MM-DD"})
		}
	}
	for _, d := range []struct {
		field string
		day   time.Time
	}{{"from", from}, {"to", to}} {
		if !datebounds.Within(d.day) {
			return nil, rest.Validation("the request is invalid", rest.FieldError{Field: d.field, Message: datebounds.Message})
		}
	}
	if to.Before(from) {
		return nil, rest.Validation("the request is invalid", rest.FieldError{Field: "to", Message: "must not be before from"})
	}
	if to.Sub(from) > 366*24*time.Hour {
		return nil, rest.Validation("the request is invalid", rest.FieldError{Field: "to", Message: "the period is at most 366 days"})
	}
	u, err := h.usage(ctx, sc.OrgID, from, to.AddDate(0, 0, 1))
	if err != nil {
		return nil, err
	}
	if u.WaitingBudget, err = h.budgetWaits(ctx, sc.OrgID); err != nil {
		return nil, err
	}
	return rest.OK(map[string]any{"data": u}), nil
}

// usage adds up the organization's costs, tokens and executions in
// [from, end): costs by the day their step finished, executions by the
// day they were queued.
func (s *service) usage(ctx context.Context, orgID string, from, end time.Time) (usageJSON, error) {
	out := usageJSON{From: from.Format(time.DateOnly), To: end.AddDate(0, 0, -1).Format(time.DateOnly), ByDay: []dayUsage{}, ByTask: []taskUsage{}}
	steps, err := records.CostedSteps(ctx, s.db, orgID, from, end)
	if err != nil {
		return out, err
	}
	execs, err := records.QueuedExecutions(ctx, s.db, orgID, from, end)
	if err != nil {
		return out, err
	}
	days := map[string]*dayUsage{}
	tasks := map[string]*taskUsage{}
	day := func(t time.Time) *dayUsage {
		k := t.UTC().Format(time.DateOnly)
		if days[k] == nil {
			days[k] = &dayUsage{Date: k}
		}
		return days[k]
	}
	task := func(id string) *taskUsage {
		if tasks[id] == nil {
			tasks[id] = &taskUsage{TaskID: id}
		}
		return tasks[id]
	}
	for _, st := range steps {
		tok := records.Tokens{In: st.In, Out: st.Out, Cached: st.Cached}
		out.Totals.add(st.CostCents, tok)
		day(st.FinishedAt).add(st.CostCents, tok)
		task(st.TaskID).add(st.CostCents, tok)
	}
	for _, e := range execs {
		out.Totals.Executions++
		day(e.CreatedAt).Executions++
		task(e.TaskID).Executions++
	}
	for _, d := range days {
		out.ByDay = append(out.ByDay, *d)
	}
	slices.SortFunc(out.ByDay, func(a, b dayUsage) int { return compareStrings(a.Date, b.Date) })
	ids := make([]string, 0, len(tasks))
	for id := range tasks {
		ids = append(ids, id)
	}
	names, err := records.NamesOfTasks(ctx, s.db, orgID, ids)
	if err != nil {
		return out, err
	}
	for _, t := range tasks {
		t.Name = names[t.TaskID]
		out.ByTask = append(out.ByTask, *t)
	}
	slices.SortFunc(out.ByTask, func(a, b taskUsage) int {
		if a.costCents != b.costCents {
			return int(b.costCents - a.costCents)
		}
		return compareStrings(a.TaskID, b.TaskID)
	})
	return out, nil
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
