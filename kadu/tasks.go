package kadu

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/kadu/runtime"
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/address"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// Tasks: what Kadu runs. Reading is for every role; members create tasks
// and change their own; admins change anyone's, and are the only ones who
// choose who may run a task and where its results go (docs/decisions.md
// "The rules we build on": nothing that changes where data goes without
// the role that answers for it).
var (
	tasksRead   = mcp.Requirement{Scopes: []string{"kadu.tasks"}, Permission: identity.PermRead}
	tasksWrite  = mcp.Requirement{Scopes: []string{"kadu.tasks"}, Permission: identity.PermWrite}
	tasksManage = mcp.Requirement{Scopes: []string{"kadu.tasks"}, Permission: identity.PermManage}
)

// Limits of what a task holds.
const (
	maxAllowedTools = 100
	maxTriggerers   = 200
	maxDestinations = 20
)

// nextRunsShown is how many coming runs a schedule shows.
const nextRunsShown = 5

// scheduleJSON is a task's schedule as the API shows it: its rule and,
// while the task is active, its next runs in its zone by the
// organization's calendar.
type scheduleJSON struct {
	Cron               string      `json:"cron"`
	Timezone           string      `json:"timezone"`
	BusinessDays       string      `json:"business_days,omitempty"`
	BusinessDayOfMonth *int        `json:"business_day_of_month,omitempty"`
	NextRunAt          *time.Time  `json:"next_run_at"`
	NextRuns           []time.Time `json:"next_runs"`
}

// taskJSON is a task as the API shows it; money in BRL.
type taskJSON struct {
	ID            string                 `json:"id"`
	Name          string                 `json:"name"`
	Instructions  string                 `json:"instructions"`
	Mode          string                 `json:"mode"`
	Steps         []records.WorkflowStep `json:"steps"`
	AllowedTools  []string               `json:"allowed_tools"`
	GrantedScopes map[string][]string    `json:"granted_scopes"`
	Model         *string                `json:"model"`
	Schedule      *scheduleJSON          `json:"schedule"`
	CostCeiling   *float64               `json:"cost_ceiling"`
	Triggerers    records.Triggerers     `json:"triggerers"`
	Destinations  []records.Destination  `json:"destinations"`
	WorkspaceID   *string                `json:"workspace_id"`
	Status        string                 `json:"status"`
	OwnerUserID   string                 `json:"owner_user_id"`
	CreatedAt     time.Time              `json:"created_at"`
	UpdatedAt     time.Time              `json:"updated_at"`
}

func (s *service) toTaskJSON(ctx context.Context, t *records.Task) taskJSON {
	j := taskJSON{ID: t.ID, Name: t.Name, Instructions: t.Instructions, Mode: t.Mode, Steps: t.Steps,
		AllowedTools: t.AllowedTools, GrantedScopes: t.GrantedScopes, Model: t.Model, Triggerers: t.Triggerers,
		Destinations: t.Destinations, WorkspaceID: t.WorkspaceID, Status: t.Status, OwnerUserID: t.OwnerUserID, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt}
	if t.CostCeilingCents != nil {
		v := money.Cents(*t.CostCeilingCents).Float64()
		j.CostCeiling = &v
	}
	if t.ScheduleCron != nil {
		sj := &scheduleJSON{Cron: *t.ScheduleCron, Timezone: restkit.Deref(t.ScheduleTimezone), NextRuns: []time.Time{}}
		rule, err := parseStoredRule(restkit.Deref(t.ScheduleBusinessDay))
		sj.BusinessDays, sj.BusinessDayOfMonth = rule.fields()
		if t.Status == records.TaskActive && err == nil {
			s.fillNextRuns(ctx, t, sj)
		}
		j.Schedule = sj
	}
	return j
}

// fillNextRuns sets a schedule's next runs (and next_run_at, the first)
// by the organization's calendar, the same runs the scheduler queues.
// A calendar that cannot be read leaves them out rather than showing
// runs by another calendar.
func (s *service) fillNextRuns(ctx context.Context, t *records.Task, sj *scheduleJSON) {
	var cal *bankcalendar.Calendar
	if restkit.Deref(t.ScheduleBusinessDay) != "" {
		c, err := s.orgCalendar(ctx, s.db, t.OrganizationID)
		if err != nil {
			return
		}
		cal = c
	}
	sched, err := parseTaskSchedule(sj.Cron, sj.Timezone, restkit.Deref(t.ScheduleBusinessDay), cal)
	if err != nil {
		return
	}
	sj.NextRuns = sched.nextRuns(s.clock(), nextRunsShown)
	if len(sj.NextRuns) > 0 {
		next := sj.NextRuns[0]
		sj.NextRunAt = &next
	}
}

// workflowStepIn is one workflow step as a caller writes it.
type workflowStepIn struct {
	ID        string         `json:"id,omitempty" maxLength:"64" jsonschema:"Names the step, so later steps can use its result ({{steps.ID.…}})."`
	Tool      string         `json:"tool" minLength:"1" maxLength:"100" jsonschema:"The tool the step calls: one of the task's allowed tools, or kadu_ask to ask the person for input (arguments.question; the execution waits in waiting_input for kadu_executions_continue, whose input becomes the step's result)."`
	Arguments map[string]any `json:"arguments,omitempty" jsonschema:"The tool's arguments; strings may hold templates over the run's input and earlier steps' results ({{input.month}})."`
	Condition string         `json:"condition,omitempty" maxLength:"2000" jsonschema:"Runs the step only when this expression is true (in a for_each step, checked per item: false skips that item)."`
	ForEach   string         `json:"for_each,omitempty" maxLength:"1000" jsonschema:"An expression giving a list ({{steps.list.data}}): the tool is called once per item, in order, with item and index visible to the arguments and the condition; the step's result is the list of the items' results. At most 100 items (a longer list fails the step); each item is a step of its own, counted against the execution's step limit; a destructive tool waits for an approval per item; on_error applies per item. Not for kadu_ask."`
	OnError   string         `json:"on_error,omitempty" enum:"stop,continue" jsonschema:"stop (default): a failure ends the execution failed; continue: the next step runs."`
}

// scheduleIn is a schedule as a caller writes it.
type scheduleIn struct {
	Cron               string `json:"cron" maxLength:"100" jsonschema:"A cron expression with five fields (minute hour day-of-month month day-of-week) or @hourly, @daily, @weekly, @monthly; \"\" removes the schedule. With business_day_of_month it gives the time of day (\"0 8 * * *\": 08:00), day-of-month and day-of-week left *."`
	Timezone           string `json:"timezone,omitempty" maxLength:"64" jsonschema:"The IANA time zone the expression and the business days are read in (default America/Sao_Paulo)."`
	BusinessDays       string `json:"business_days,omitempty" enum:"only,next" jsonschema:"By the bank calendar (national bank holidays, Carnival, Corpus Christi, 20 November, the organization's Kadu calendar): only — a tick on a closed day is skipped; next — it runs at the same time on the next business day. Absent: plain cron."`
	BusinessDayOfMonth *int   `json:"business_day_of_month,omitempty" minimum:"-1" maximum:"23" jsonschema:"Runs the cron's ticks only on the Nth business day of the month (1-23; a month with fewer has no run), or -1 for the last business day. Excludes business_days."`
}

type createTaskIn struct {
	Name         string           `json:"name" minLength:"1" maxLength:"200" jsonschema:"The task's name."`
	Instructions string           `json:"instructions,omitempty" maxLength:"20000" jsonschema:"What the task is for; an agent task's system prompt."`
	Mode         string           `json:"mode,omitempty" enum:"workflow,agent" jsonschema:"workflow (default): the steps run in order, no model; agent: a model decides which allowed tools to call."`
	Steps        []workflowStepIn `json:"steps,omitempty" jsonschema:"The workflow's steps, in order (workflow mode)."`
	AllowedTools []string         `json:"allowed_tools,omitempty" jsonschema:"The tools of the other Kobana products the task may call (default for a workflow: its steps' tools)."`
	Model        string           `json:"model,omitempty" maxLength:"100" jsonschema:"The model an agent task runs with (default: the deployment's)."`
	Schedule     *scheduleIn      `json:"schedule,omitempty" jsonschema:"Runs the task on a schedule."`
	CostCeiling  *float64         `json:"cost_ceiling,omitempty" minimum:"0" jsonschema:"The most one execution may cost, in BRL (default: the plan's maximum per execution)."`
	WorkspaceID  string           `json:"workspace_id,omitempty" maxLength:"100" jsonschema:"The Inbox workspace (id or external id) every tool call of the task's executions acts in, as a token bound to that workspace does; required for Inbox tools when the organization has several workspaces (default: its only one)."`
}

type updateTaskIn struct {
	ID           string            `json:"task_id" in:"path" jsonschema:"The task's id."`
	Name         *string           `json:"name,omitempty" minLength:"1" maxLength:"200" jsonschema:"A new name."`
	Instructions *string           `json:"instructions,omitempty" maxLength:"20000" jsonschema:"New instructions."`
	Mode         *string           `json:"mode,omitempty" enum:"workflow,agent" jsonschema:"A new mode."`
	Steps        *[]workflowStepIn `json:"steps,omitempty" jsonschema:"Replaces the workflow's steps."`
	AllowedTools *[]string         `json:"allowed_tools,omitempty" jsonschema:"Replaces the allowed tools (the granted scopes are computed again)."`
	Model        *string           `json:"model,omitempty" maxLength:"100" jsonschema:"A new model; \"\" returns to the deployment's."`
	Schedule     *scheduleIn       `json:"schedule,omitempty" jsonschema:"A new schedule; cron \"\" removes it."`
	CostCeiling  *float64          `json:"cost_ceiling,omitempty" minimum:"-1" jsonschema:"A new ceiling per execution in BRL; -1 removes it (the plan's maximum applies)."`
	WorkspaceID  *string           `json:"workspace_id,omitempty" maxLength:"100" jsonschema:"A new workspace (id or external id) the executions' tool calls act in; \"\" unbinds the task (the organization's only workspace)."`
}

type listTasksIn struct {
	Status string `json:"status,omitempty" in:"query" enum:"active,paused" jsonschema:"Only tasks in this status."`
	Q      string `json:"q,omitempty" in:"query" maxLength:"200" jsonschema:"Only tasks whose name contains this text (case-insensitive)."`
	Limit  int    `json:"limit,omitempty" in:"query" minimum:"1" maximum:"200" jsonschema:"How many tasks per page (1-200, default 50)."`
	Cursor string `json:"cursor,omitempty" in:"query" jsonschema:"The meta.next_cursor of the previous page."`
}

type taskRefIn struct {
	ID string `json:"task_id" in:"path" jsonschema:"The task's id."`
}

type setTriggerersIn struct {
	ID    string   `json:"task_id" in:"path" jsonschema:"The task's id."`
	Users []string `json:"users" jsonschema:"User ids of the organization's people who may run the task (the owner always may)."`
	Roles []string `json:"roles" jsonschema:"Roles whose holders may run the task: viewer, member, admin, owner (running also needs the member role)."`
}

type destinationIn struct {
	Kind   string   `json:"kind" enum:"webhook,email,tool" jsonschema:"webhook: the organization's Kadu webhooks; email: an address; tool: a tool of another product called with the result."`
	Target string   `json:"target,omitempty" maxLength:"254" jsonschema:"The address (email) or the tool's name (tool); empty for webhook."`
	On     []string `json:"on,omitempty" jsonschema:"The outcomes it is sent for: succeeded, failed, canceled, timed_out, cost_exceeded (default: every end)."`
}

type setDestinationsIn struct {
	ID           string          `json:"task_id" in:"path" jsonschema:"The task's id."`
	Destinations []destinationIn `json:"destinations" jsonschema:"Where executions' results go; [] for nowhere but the API."`
}

// mayEdit: the task's owner, or an admin.
func mayEdit(id *identity.Identity, t *records.Task) error {
	if id != nil && (id.UserID == t.OwnerUserID || id.Role.Allows(identity.PermManage)) {
		return nil
	}
	return rest.Forbidden("only the task's owner or an admin may change it")
}

// mayTrigger says whether the caller may run t: its owner always; the
// people and roles its triggerers name.
func mayTrigger(id *identity.Identity, t *records.Task) bool {
	if id == nil || id.UserID == "" {
		return false
	}
	return id.UserID == t.OwnerUserID || slices.Contains(t.Triggerers.Users, id.UserID) ||
		slices.Contains(t.Triggerers.Roles, string(id.Role))
}

// taskDefinition is what create and update set, already decoded.
type taskDefinition struct {
	steps        []records.WorkflowStep
	allowedTools []string
	toolsGiven   bool
}

func toSteps(in []workflowStepIn) ([]records.WorkflowStep, error) {
	out := make([]records.WorkflowStep, 0, len(in))
	for _, st := range in {
		ws := records.WorkflowStep{ID: st.ID, Tool: st.Tool, OnError: st.OnError}
		if st.Arguments != nil {
			b, err := json.Marshal(st.Arguments)
			if err != nil {
				return nil, err
			}
			ws.Arguments = b
		}
		if st.Condition != "" {
			b, _ := json.Marshal(st.Condition)
			ws.Extra = map[string]json.RawMessage{"condition": b}
		}
		if st.ForEach != "" {
			if ws.Extra == nil {
				ws.Extra = map[string]json.RawMessage{}
			}
			b, _ := json.Marshal(st.ForEach)
			ws.Extra["for_each"] = b
		}
		out = append(out, ws)
	}
	return out, nil
}

// applyDefinition checks and sets what defines the task's run — mode,
// steps, tools and the scopes they need, model, schedule, ceiling — as
// the caller's role allows: scopes are granted only for tools the person
// saving the task may use themselves.
func (s *service) applyDefinition(id *identity.Identity, t *records.Task, def taskDefinition) error {
	t.Steps = def.steps
	t.AllowedTools = def.allowedToolsOf(t)
	var details []rest.FieldError
	if len(t.AllowedTools) > maxAllowedTools {
		details = append(details, rest.FieldError{Field: "allowed_tools", Message: fmt.Sprintf("at most %d tools", maxAllowedTools)})
	}
	granted, toolDetails, err := s.grantedScopes(id, t.AllowedTools)
	if err != nil {
		return err
	}
	details = append(details, toolDetails...)
	t.GrantedScopes = granted
	modeDetails, err := s.checkMode(t)
	if err != nil {
		return err
	}
	details = append(details, modeDetails...)
	details = append(details, s.checkModelAndCeiling(t)...)
	if len(details) > 0 {
		return rest.Validation("the task is invalid", details...)
	}
	return nil
}

// allowedToolsOf is the task's allowed tools: those given, or, when a
// workflow names none, its steps' tools (kadu_ask aside); never nil.
func (def taskDefinition) allowedToolsOf(t *records.Task) []string {
	tools := def.allowedTools
	if !def.toolsGiven && t.Mode == records.ModeWorkflow {
		tools = nil
		for _, st := range t.Steps {
			if st.Tool != runtime.AskTool && !slices.Contains(tools, st.Tool) {
				tools = append(tools, st.Tool)
			}
		}
	}
	if tools == nil {
		tools = []string{}
	}
	return tools
}

// grantedScopes checks each allowed tool's name and that it runs here,
// and grants the scopes its requirement names, per product, sorted. A
// tool the person saving the task may not use themselves is a 403, not
// a detail.
func (s *service) grantedScopes(id *identity.Identity, tools []string) (map[string][]string, []rest.FieldError, error) {
	var details []rest.FieldError
	granted := map[string][]string{}
	for i, name := range tools {
		at := fmt.Sprintf("allowed_tools.%d", i)
		switch {
		case !toolNameRe.MatchString(name):
			details = append(details, rest.FieldError{Field: at, Message: "must name a tool (lower-case letters, digits and _)"})
			continue
		case strings.HasPrefix(name, "kadu_"):
			details = append(details, rest.FieldError{Field: at, Message: "a task cannot call Kadu's own tools"})
			continue
		case slices.Index(tools, name) < i:
			details = append(details, rest.FieldError{Field: at, Message: "is listed twice"})
			continue
		}
		if s.lookupTool == nil {
			continue
		}
		info, ok := s.lookupTool(name)
		if !ok {
			details = append(details, rest.FieldError{Field: at, Message: "no tool of this name runs in this deployment"})
			continue
		}
		if info.Permission != "" && (id == nil || !id.Role.Allows(info.Permission)) {
			return nil, nil, rest.Forbidden(fmt.Sprintf("your role cannot use %s, so a task you save cannot be granted it: remove it from allowed_tools or ask someone whose role allows it", name))
		}
		for _, sc := range info.Scopes {
			if !slices.Contains(granted[info.Product], sc) {
				granted[info.Product] = append(granted[info.Product], sc)
			}
		}
	}
	for _, list := range granted {
		slices.Sort(list)
	}
	return granted, details, nil
}

// checkMode checks what the task's mode asks: a workflow that would run
// (service.validateWorkflow, whose refusal is returned as it is) calling
// only allowed tools; an agent without steps.
func (s *service) checkMode(t *records.Task) ([]rest.FieldError, error) {
	var details []rest.FieldError
	switch t.Mode {
	case records.ModeWorkflow:
		if err := s.validateWorkflow(t.Steps); err != nil {
			return nil, err
		}
		for i, st := range t.Steps {
			if toolNameRe.MatchString(st.Tool) && st.Tool != runtime.AskTool && !slices.Contains(t.AllowedTools, st.Tool) {
				details = append(details, rest.FieldError{Field: fmt.Sprintf("steps.%d.tool", i), Message: "is not among the task's allowed_tools"})
			}
		}
	case records.ModeAgent:
		if len(t.Steps) > 0 {
			details = append(details, rest.FieldError{Field: "steps", Message: "an agent task has no steps: the model chooses its tool calls"})
		}
	}
	return details, nil
}

// checkModelAndCeiling checks the task's model has a price and its
// ceiling is within the plan's maximum per execution.
func (s *service) checkModelAndCeiling(t *records.Task) []rest.FieldError {
	var details []rest.FieldError
	if t.Model != nil {
		if _, ok := s.cfg.Prices[*t.Model]; !ok {
			details = append(details, rest.FieldError{Field: "model", Message: "has no price in the deployment's price table (--kadu-model-prices): " + strings.Join(s.pricedModels(), ", ")})
		}
	}
	if t.CostCeilingCents != nil && *t.CostCeilingCents > s.cfg.Plan.MaxCostPerExecutionCents {
		details = append(details, rest.FieldError{Field: "cost_ceiling", Message: "is above the plan's maximum per execution, " + money.Cents(s.cfg.Plan.MaxCostPerExecutionCents).String()})
	}
	return details
}

func (s *service) pricedModels() []string {
	var out []string
	for m := range s.cfg.Prices {
		out = append(out, m)
	}
	slices.Sort(out)
	return out
}

// setSchedule validates and sets a schedule; cron "" removes it. A new
// or changed schedule counts its ticks from now.
func setSchedule(t *records.Task, in *scheduleIn, now time.Time) error {
	if in == nil {
		return nil
	}
	if strings.TrimSpace(in.Cron) == "" {
		if in.BusinessDays != "" || in.BusinessDayOfMonth != nil {
			return rest.Validation("the schedule is invalid", rest.FieldError{Field: "schedule.cron",
				Message: "a business-day rule needs a cron expression for its time of day (\"0 8 * * *\")"})
		}
		t.ScheduleCron, t.ScheduleTimezone, t.ScheduleSince, t.ScheduleBusinessDay = nil, nil, nil, nil
		return nil
	}
	tz := in.Timezone
	if tz == "" {
		tz = defaultTimezone
	}
	rule, err := ruleFromInput(in.BusinessDays, in.BusinessDayOfMonth)
	if err != nil {
		return err
	}
	// Checked on the national calendar: the organization's own days
	// cannot make a rule that meets the cron never meet it.
	if _, err := buildTaskSchedule(in.Cron, tz, rule, nil); err != nil {
		return err
	}
	c, r := strings.TrimSpace(in.Cron), rule.String()
	if restkit.Deref(t.ScheduleCron) != c || restkit.Deref(t.ScheduleTimezone) != tz || restkit.Deref(t.ScheduleBusinessDay) != r || t.ScheduleSince == nil {
		t.ScheduleSince = &now
	}
	t.ScheduleCron, t.ScheduleTimezone, t.ScheduleBusinessDay = &c, &tz, &r
	if r == "" {
		t.ScheduleBusinessDay = nil
	}
	return nil
}

// ceilingCents converts a ceiling in BRL; negative removes it.
func ceilingCents(v *float64) (*int64, error) {
	if v == nil || *v < 0 {
		return nil, nil
	}
	c, err := money.FromFloatAtMost(*v, maxAmount)
	if err != nil {
		return nil, rest.Validation("the request is invalid", rest.FieldError{Field: "cost_ceiling", Message: err.Error()})
	}
	n := int64(c)
	return &n, nil
}

// tasksAPI holds the handlers of the task operations; what they read
// and write of a task is in kadu/records tasks_store.go.
type tasksAPI struct{ *service }

// registerTasks declares the task operations.
func registerTasks(api *rest.API, s *service) {
	h := &tasksAPI{s}
	rest.Handle(api, rest.Operation{
		ID: "kadu_tasks_list", Method: "GET", Path: "/tasks", Tags: []string{"tasks"},
		Title: "List tasks", Summary: "Lists the organization's tasks, oldest first, with cursor pagination; filters by status and by text in the name.",
		Requires: tasksRead, Annotations: restkit.ReadOnly(),
	}, h.list)
	rest.Handle(api, rest.Operation{
		ID: "kadu_tasks_get", Method: "GET", Path: "/tasks/{task_id}", Tags: []string{"tasks"},
		Title: "Get a task", Summary: "Gets one task: its mode, steps or model, allowed tools and the scopes granted for them, schedule (with the next run), ceiling, who may run it and where results go.",
		Requires: tasksRead, Annotations: restkit.ReadOnly(),
	}, h.get)
	rest.Handle(api, rest.Operation{
		ID: "kadu_tasks_create", Method: "POST", Path: "/tasks", Tags: []string{"tasks"},
		Title:    "Create a task",
		Summary:  "Creates a task: a workflow (steps calling the allowed tools in order, no model) or an agent (a model choosing among the allowed tools), with an optional cron schedule and cost ceiling. The caller owns it and may always run it.",
		Requires: tasksWrite, Annotations: restkit.Write(false),
	}, h.create)
	rest.Handle(api, rest.Operation{
		ID: "kadu_tasks_update", Method: "PATCH", Path: "/tasks/{task_id}", Tags: []string{"tasks"},
		Title:    "Update a task",
		Summary:  "Changes the given fields of a task (name, instructions, mode, steps, allowed tools, model, schedule, cost ceiling); who may run it and where results go are changed with kadu_tasks_set_triggerers and kadu_tasks_set_destinations. Its owner or an admin may.",
		Requires: tasksWrite, Annotations: restkit.Write(true),
	}, h.update)
	rest.HandleConfirmed(api, rest.Operation{
		ID: "kadu_tasks_set_triggerers", Method: "PUT", Path: "/tasks/{task_id}/triggerers", Tags: []string{"tasks"},
		Title:       "Set who may run a task",
		Summary:     "Replaces who besides the owner may run a task: people (user ids of the organization) and roles. Running also needs the member role. Admins only.",
		Description: "Destructive: it changes who may start the task's executions, and so what runs on the organization's data.",
		Requires:    tasksManage, Annotations: restkit.Destructive(true), ConsumesConfirmation: true,
	}, h.describeSetTriggerers, h.setTriggerers)
	rest.HandleConfirmed(api, rest.Operation{
		ID: "kadu_tasks_set_destinations", Method: "PUT", Path: "/tasks/{task_id}/destinations", Tags: []string{"tasks"},
		Title:       "Set where a task's results go",
		Summary:     "Replaces where the task's executions' results are delivered when they end: the organization's Kadu webhooks, e-mail addresses, or a tool of another product. Admins only.",
		Description: "Destructive: it changes where the organization's data goes.",
		Requires:    tasksManage, Annotations: restkit.Destructive(true), ConsumesConfirmation: true,
	}, h.describeSetDestinations, h.setDestinations)
	rest.Handle(api, rest.Operation{
		ID: "kadu_tasks_pause", Method: "POST", Path: "/tasks/{task_id}/pause", Tags: []string{"tasks"},
		Title: "Pause a task", Summary: "Pauses a task: its schedule queues nothing and it cannot be run until resumed. Executions already queued or running go on. Its owner or an admin may.",
		Requires: tasksWrite, Annotations: restkit.Write(true),
	}, h.pause)
	rest.Handle(api, rest.Operation{
		ID: "kadu_tasks_resume", Method: "POST", Path: "/tasks/{task_id}/resume", Tags: []string{"tasks"},
		Title: "Resume a task", Summary: "Resumes a paused task: it may be run again and its schedule queues from the next tick on (ticks missed while paused are not run). Its owner or an admin may.",
		Requires: tasksWrite, Annotations: restkit.Write(true),
	}, h.resume)
	rest.HandleConfirmed(api, rest.Operation{
		ID: "kadu_tasks_delete", Method: "DELETE", Path: "/tasks/{task_id}", Tags: []string{"tasks"},
		Title: "Delete a task", Summary: "Deletes a task: it no longer runs, is listed or can be read; its executions stay readable. Its owner or an admin may.",
		Description: "Destructive: it cannot be undone.",
		Requires:    tasksWrite, Annotations: restkit.Destructive(true), ConsumesConfirmation: true,
	}, h.describeDelete, h.delete)
}

// list answers kadu_tasks_list.
func (h *tasksAPI) list(ctx context.Context, in *listTasksIn) (*rest.Response, error) {
	sc, after, err := restkit.PageScope(ctx, h.tenancy, in.Cursor)
	if err != nil {
		return nil, err
	}
	f := records.TaskFilter{Status: in.Status, Q: strings.TrimSpace(in.Q), After: after, Limit: restkit.PageLimit(in.Limit)}
	rows, err := records.ListTasks(ctx, h.db, sc.OrgID, f)
	if err != nil {
		return nil, err
	}
	return restkit.CursorPageWithLimit(rows, f.Limit, func(r *records.Task) string { return r.ID },
		func(t *records.Task) taskJSON { return h.toTaskJSON(ctx, t) }), nil
}

// get answers kadu_tasks_get.
func (h *tasksAPI) get(ctx context.Context, in *taskRefIn) (*rest.Response, error) {
	return restkit.ReadItem(ctx, h.tenancy, "task", func(sc restkit.Tenant) (*records.Task, error) {
		return records.GetTask(ctx, h.db, sc.OrgID, in.ID)
	}, func(t *records.Task) taskJSON { return h.toTaskJSON(ctx, t) })
}

// create answers kadu_tasks_create.
func (h *tasksAPI) create(ctx context.Context, in *createTaskIn) (*rest.Response, error) {
	sc, err := h.tenancy(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock()
	t := &records.Task{ID: store.NewID(), OrganizationID: sc.OrgID, OwnerUserID: sc.Identity.UserID,
		Name: strings.TrimSpace(in.Name), Instructions: in.Instructions, Mode: in.Mode, Status: records.TaskActive,
		CreatedAt: now, UpdatedAt: now}
	if t.Mode == "" {
		t.Mode = records.ModeWorkflow
	}
	if t.OwnerUserID == "" {
		return nil, rest.Forbidden("a task is owned by a person: use a token of a signed-in user")
	}
	if t.Name == "" {
		return nil, rest.Validation("the task is invalid", rest.FieldError{Field: "name", Message: "must not be blank"})
	}
	if in.Model != "" {
		m := in.Model
		t.Model = &m
	}
	if t.CostCeilingCents, err = ceilingCents(in.CostCeiling); err != nil {
		return nil, err
	}
	if err := setSchedule(t, in.Schedule, h.clock()); err != nil {
		return nil, err
	}
	if t.WorkspaceID, err = h.taskWorkspace(ctx, sc.OrgID, in.WorkspaceID); err != nil {
		return nil, err
	}
	steps, err := toSteps(in.Steps)
	if err != nil {
		return nil, err
	}
	if err := h.applyDefinition(sc.Identity, t, taskDefinition{steps: steps, allowedTools: in.AllowedTools, toolsGiven: in.AllowedTools != nil}); err != nil {
		return nil, err
	}
	if err := records.InsertTask(ctx, h.db, t); err != nil {
		return nil, err
	}
	return rest.Created(map[string]any{"data": h.toTaskJSON(ctx, t)}), nil
}

// update answers kadu_tasks_update.
func (h *tasksAPI) update(ctx context.Context, in *updateTaskIn) (*rest.Response, error) {
	sc, err := h.tenancy(ctx)
	if err != nil {
		return nil, err
	}
	// Checked before the transaction: the workspaces are read outside it.
	var workspace *string
	if in.WorkspaceID != nil {
		if workspace, err = h.taskWorkspace(ctx, sc.OrgID, *in.WorkspaceID); err != nil {
			return nil, err
		}
	}
	var t *records.Task
	err = h.db.WithTx(ctx, func(tx *store.Tx) error {
		if t, err = records.LockTask(ctx, tx, sc.OrgID, in.ID); err != nil {
			return err
		}
		if err := mayEdit(sc.Identity, t); err != nil {
			return err
		}
		if in.Name != nil {
			if t.Name = strings.TrimSpace(*in.Name); t.Name == "" {
				return rest.Validation("the task is invalid", rest.FieldError{Field: "name", Message: "must not be blank"})
			}
		}
		if in.Instructions != nil {
			t.Instructions = *in.Instructions
		}
		if in.Mode != nil {
			t.Mode = *in.Mode
		}
		if in.Model != nil {
			t.Model = nil
			if *in.Model != "" {
				m := *in.Model
				t.Model = &m
			}
		}
		if in.CostCeiling != nil {
			if t.CostCeilingCents, err = ceilingCents(in.CostCeiling); err != nil {
				return err
			}
		}
		if err := setSchedule(t, in.Schedule, h.clock()); err != nil {
			return err
		}
		if in.WorkspaceID != nil {
			t.WorkspaceID = workspace
		}
		def := taskDefinition{steps: t.Steps, allowedTools: t.AllowedTools, toolsGiven: true}
		if in.Steps != nil {
			if def.steps, err = toSteps(*in.Steps); err != nil {
				return err
			}
			def.toolsGiven = in.AllowedTools != nil
		}
		if in.AllowedTools != nil {
			def.allowedTools, def.toolsGiven = *in.AllowedTools, true
		}
		if in.Mode != nil && *in.Mode == records.ModeAgent && in.Steps == nil {
			def.steps = nil
		}
		if err := h.applyDefinition(sc.Identity, t, def); err != nil {
			return err
		}
		t.UpdatedAt = h.clock()
		return records.UpdateTask(ctx, tx, t)
	})
	if err != nil {
		return nil, taskErr(err)
	}
	return rest.OK(map[string]any{"data": h.toTaskJSON(ctx, t)}), nil
}

// describeSetTriggerers is the confirmation kadu_tasks_set_triggerers asks for.
func (h *tasksAPI) describeSetTriggerers(ctx context.Context, in *setTriggerersIn) (string, error) {
	t, err := h.describeTask(ctx, in.ID)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Let %s run task '%s' (besides its owner)? They can then start executions that act on the organization's data.", describeTriggerers(in.Users, in.Roles), t.Name), nil
}

// setTriggerers answers kadu_tasks_set_triggerers.
func (h *tasksAPI) setTriggerers(ctx context.Context, in *setTriggerersIn) (*rest.Response, error) {
	return h.changeTask(ctx, in.ID, false, func(ctx context.Context, tx *store.Tx, sc restkit.Tenant, t *records.Task) error {
		tr, err := h.checkTriggerers(ctx, tx, sc.OrgID, in.Users, in.Roles)
		if err != nil {
			return err
		}
		t.Triggerers = tr
		return nil
	})
}

// describeSetDestinations is the confirmation kadu_tasks_set_destinations asks for.
func (h *tasksAPI) describeSetDestinations(ctx context.Context, in *setDestinationsIn) (string, error) {
	t, err := h.describeTask(ctx, in.ID)
	if err != nil {
		return "", err
	}
	if _, err := checkDestinations(in.Destinations); err != nil {
		return "", err
	}
	return fmt.Sprintf("Send the results of task '%s' to %s? Its executions' output will leave Kadu there.", t.Name, describeDestinations(in.Destinations)), nil
}

// setDestinations answers kadu_tasks_set_destinations.
func (h *tasksAPI) setDestinations(ctx context.Context, in *setDestinationsIn) (*rest.Response, error) {
	return h.changeTask(ctx, in.ID, false, func(_ context.Context, _ *store.Tx, _ restkit.Tenant, t *records.Task) error {
		d, err := checkDestinations(in.Destinations)
		if err != nil {
			return err
		}
		t.Destinations = d
		return nil
	})
}

// pause answers kadu_tasks_pause.
func (h *tasksAPI) pause(ctx context.Context, in *taskRefIn) (*rest.Response, error) {
	return h.changeTask(ctx, in.ID, true, func(_ context.Context, _ *store.Tx, _ restkit.Tenant, t *records.Task) error {
		t.Status = records.TaskPaused
		return nil
	})
}

// resume answers kadu_tasks_resume.
func (h *tasksAPI) resume(ctx context.Context, in *taskRefIn) (*rest.Response, error) {
	return h.changeTask(ctx, in.ID, true, func(_ context.Context, _ *store.Tx, _ restkit.Tenant, t *records.Task) error {
		if t.Status == records.TaskPaused && t.ScheduleCron != nil {
			now := h.clock()
			t.ScheduleSince = &now
		}
		t.Status = records.TaskActive
		return nil
	})
}

// describeDelete is the confirmation kadu_tasks_delete asks for.
func (h *tasksAPI) describeDelete(ctx context.Context, in *taskRefIn) (string, error) {
	t, err := h.describeTask(ctx, in.ID)
	if err != nil {
		return "", err
	}
	sched := ""
	if t.ScheduleCron != nil {
		sched = fmt.Sprintf(" Its schedule (%s, %s) stops.", *t.ScheduleCron, restkit.Deref(t.ScheduleTimezone))
	}
	return fmt.Sprintf("Delete task '%s'?%s This cannot be undone.", t.Name, sched), nil
}

// delete answers kadu_tasks_delete.
func (h *tasksAPI) delete(ctx context.Context, in *taskRefIn) (*rest.Response, error) {
	sc, err := h.tenancy(ctx)
	if err != nil {
		return nil, err
	}
	err = h.nonces.WithTx(ctx, func(tx *store.Tx) error {
		t, err := records.LockTask(ctx, tx, sc.OrgID, in.ID)
		if err != nil {
			return err
		}
		if err := mayEdit(sc.Identity, t); err != nil {
			return err
		}
		now := h.clock()
		t.Status, t.UpdatedAt, t.DeletedAt = records.TaskDeleted, now, &now
		return records.UpdateTask(ctx, tx, t)
	})
	if err != nil {
		return nil, taskErr(err)
	}
	return rest.NoContent(), nil
}

// describeTask looks up the target of a destructive task operation for
// its confirmation message: another organization's task is 404 before
// anything is asked.
func (s *service) describeTask(ctx context.Context, id string) (*records.Task, error) {
	sc, err := s.tenancy(ctx)
	if err != nil {
		return nil, err
	}
	t, err := records.GetTask(ctx, s.db, sc.OrgID, id)
	return t, taskErr(err)
}

// changeTask is the body of the task operations that rewrite one task:
// lock it, check the caller may (owner or admin when ownerOrAdmin; the
// operation's own requirement otherwise), change it, write it, answer it.
// A confirmation in ctx is consumed in the same transaction.
func (s *service) changeTask(ctx context.Context, id string, ownerOrAdmin bool, change func(ctx context.Context, tx *store.Tx, sc restkit.Tenant, t *records.Task) error) (*rest.Response, error) {
	sc, err := s.tenancy(ctx)
	if err != nil {
		return nil, err
	}
	var t *records.Task
	err = s.nonces.WithTx(ctx, func(tx *store.Tx) error {
		if t, err = records.LockTask(ctx, tx, sc.OrgID, id); err != nil {
			return err
		}
		if ownerOrAdmin {
			if err := mayEdit(sc.Identity, t); err != nil {
				return err
			}
		}
		if err := change(ctx, tx, sc, t); err != nil {
			return err
		}
		t.UpdatedAt = s.clock()
		return records.UpdateTask(ctx, tx, t)
	})
	if err != nil {
		return nil, taskErr(err)
	}
	return rest.OK(map[string]any{"data": s.toTaskJSON(ctx, t)}), nil
}

// checkTriggerers validates triggerers: every user a member of the
// organization, every role one of the platform's.
func (s *service) checkTriggerers(ctx context.Context, q store.Querier, orgID string, users, roles []string) (records.Triggerers, error) {
	tr := records.Triggerers{Users: []string{}, Roles: []string{}}
	var details []rest.FieldError
	if len(users)+len(roles) > maxTriggerers {
		details = append(details, rest.FieldError{Field: "users", Message: fmt.Sprintf("at most %d users and roles together", maxTriggerers)})
	}
	for i, u := range users {
		if slices.Contains(tr.Users, u) {
			continue
		}
		member, err := records.IsMember(ctx, q, orgID, u)
		if err != nil {
			return tr, err
		}
		if !member {
			details = append(details, rest.FieldError{Field: fmt.Sprintf("users.%d", i), Message: "is not a person of the organization"})
			continue
		}
		tr.Users = append(tr.Users, u)
	}
	for i, r := range roles {
		if !identity.Role(r).Valid() {
			details = append(details, rest.FieldError{Field: fmt.Sprintf("roles.%d", i), Message: "must be viewer, member, admin or owner"})
			continue
		}
		if !slices.Contains(tr.Roles, r) {
			tr.Roles = append(tr.Roles, r)
		}
	}
	if len(details) > 0 {
		return tr, rest.Validation("the triggerers are invalid", details...)
	}
	return tr, nil
}

func describeTriggerers(users, roles []string) string {
	var parts []string
	if len(users) > 0 {
		parts = append(parts, fmt.Sprintf("%d person(s)", len(users)))
	}
	if len(roles) > 0 {
		parts = append(parts, "everyone with the role "+strings.Join(roles, " or "))
	}
	if len(parts) == 0 {
		return "only the owner"
	}
	return strings.Join(parts, " and ")
}

var outcomes = []string{records.ExecSucceeded, records.ExecFailed, records.ExecCanceled, records.ExecTimedOut, records.ExecCostExceeded}

// checkDestinations validates destinations: an address for email, a
// tool's name for tool, nothing for webhook; outcomes among the ends.
func checkDestinations(in []destinationIn) ([]records.Destination, error) {
	out := []records.Destination{}
	var details []rest.FieldError
	if len(in) > maxDestinations {
		details = append(details, rest.FieldError{Field: "destinations", Message: fmt.Sprintf("at most %d destinations", maxDestinations)})
	}
	for i, d := range in {
		at := fmt.Sprintf("destinations.%d", i)
		target := strings.TrimSpace(d.Target)
		switch d.Kind {
		case "webhook":
			if target != "" {
				details = append(details, rest.FieldError{Field: at + ".target", Message: "a webhook destination has no target: every Kadu webhook of the organization subscribed to the event receives it"})
			}
		case "email":
			// platform/address: the parser of every product's addresses.
			a, err := address.ParseEmail(target)
			if err != nil {
				details = append(details, rest.FieldError{Field: at + ".target", Message: "must be one e-mail address: " + err.Error()})
			}
			target = a
		case "tool":
			if !toolNameRe.MatchString(target) || strings.HasPrefix(target, "kadu_") {
				details = append(details, rest.FieldError{Field: at + ".target", Message: "must name a tool of another Kobana product"})
			}
		}
		for j, o := range d.On {
			if !slices.Contains(outcomes, o) {
				details = append(details, rest.FieldError{Field: fmt.Sprintf("%s.on.%d", at, j), Message: "must be one of " + strings.Join(outcomes, ", ")})
			}
		}
		out = append(out, records.Destination{Kind: d.Kind, Target: target, On: d.On})
	}
	if len(details) > 0 {
		return nil, rest.Validation("the destinations are invalid", details...)
	}
	return out, nil
}

func describeDestinations(in []destinationIn) string {
	if len(in) == 0 {
		return "nowhere (results stay readable through the API only)"
	}
	var parts []string
	for _, d := range in {
		switch d.Kind {
		case "webhook":
			parts = append(parts, "the organization's Kadu webhooks")
		default:
			parts = append(parts, d.Kind+" "+d.Target)
		}
	}
	return strings.Join(parts, ", ")
}
