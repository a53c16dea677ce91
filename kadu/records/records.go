package records

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Task modes.
const (
	// ModeWorkflow runs the task's declared steps in order.
	ModeWorkflow = "workflow"
	// ModeAgent runs the agent loop with the task's model and tools.
	ModeAgent = "agent"
)

// Task statuses; a deleted task is soft-deleted and answers 404.
const (
	TaskActive  = "active"
	TaskPaused  = "paused"
	TaskDeleted = "deleted"
)

// Triggers: how an execution was started.
const (
	TriggerManual   = "manual"
	TriggerSchedule = "schedule"
	TriggerAPI      = "api"
)

// Execution statuses (see transitions for how one leads to another).
const (
	ExecQueued          = "queued"
	ExecRunning         = "running"
	ExecWaitingInput    = "waiting_input"
	ExecWaitingApproval = "waiting_approval"
	// ExecWaitingBudget: the next model step could cross the execution's
	// ceiling, so it waits for a person to raise the ceiling or approve
	// the overrun (kadu_executions_continue) instead of ending
	// cost_exceeded; every finished step is kept.
	ExecWaitingBudget = "waiting_budget"
	ExecSucceeded     = "succeeded"
	ExecFailed        = "failed"
	ExecCanceled      = "canceled"
	ExecTimedOut      = "timed_out"
	ExecCostExceeded  = "cost_exceeded"
)

// Step kinds and statuses.
const (
	StepLLM      = "llm"
	StepToolCall = "tool_call"
	StepMessage  = "message"

	stepStarted   = "started"
	StepSucceeded = "succeeded"
	StepFailed    = "failed"
	StepUnknown   = "unknown"
)

// Task is a task: what runs (instructions, workflow steps or the
// agent's model), with which tools and scopes, when (schedule), within
// which ceiling, started by whom and delivered where.
type Task struct {
	ID                string     `db:"id"`
	OrganizationID    string     `db:"organization_id"`
	OwnerUserID       string     `db:"owner_user_id"`
	Name              string     `db:"name"`
	Instructions      string     `db:"instructions"`
	Mode              string     `db:"mode"`
	StepsJSON         string     `db:"steps"`
	AllowedToolsJSON  string     `db:"allowed_tools"`
	GrantedScopesJSON string     `db:"granted_scopes"`
	Model             *string    `db:"model"`
	ScheduleCron      *string    `db:"schedule_cron"`
	ScheduleTimezone  *string    `db:"schedule_timezone"`
	CostCeilingCents  *int64     `db:"cost_ceiling_cents"`
	ScheduleSince     *time.Time `db:"schedule_since"`
	// ScheduleBusinessDay is the schedule's business-day rule (kadu's
	// bizday.go: "", "only", "next", "nth:N", "last").
	ScheduleBusinessDay *string    `db:"schedule_business_day"`
	TriggerersJSON      string     `db:"triggerers"`
	DestinationsJSON    string     `db:"destinations"`
	Status              string     `db:"status"`
	CreatedAt           time.Time  `db:"created_at"`
	UpdatedAt           time.Time  `db:"updated_at"`
	DeletedAt           *time.Time `db:"deleted_at"`
	// WorkspaceID is the Inbox workspace every in-process call of the
	// task's executions acts in (migration 00380); nil: the
	// organization's only one.
	WorkspaceID *string `db:"workspace_id"`

	// Decoded from the JSON columns when the row is read (decode), written
	// back by encode.
	Steps         []WorkflowStep      `db:"-"`
	AllowedTools  []string            `db:"-"`
	GrantedScopes map[string][]string `db:"-"`
	Triggerers    Triggerers          `db:"-"`
	Destinations  []Destination       `db:"-"`
}

// WorkflowStep is one step of a workflow task: a tool called with
// arguments (which may hold the runtime's expressions), and what to do
// when it fails. Extra fields the runtime defines travel in Extra, so a
// step saved today keeps them.
type WorkflowStep struct {
	// ID names the step for later steps' expressions; optional.
	ID string `json:"id,omitempty"`
	// Tool is the tool the step calls (one of the task's allowed tools).
	Tool string `json:"tool"`
	// Arguments are the call's arguments, as JSON.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// OnError is stop (the default: the execution fails) or continue.
	OnError string `json:"on_error,omitempty"`
	// Extra are fields the runtime's engine reads (conditions, loops…).
	Extra map[string]json.RawMessage `json:"-"`
}

// Triggerers are who, besides the owner, may run a task: people by user
// id, and everyone holding one of the roles.
type Triggerers struct {
	Users []string `json:"users"`
	Roles []string `json:"roles"`
}

// Destination is where an execution's result goes when it ends: a
// webhook event (kind "webhook", the organization's Kadu webhooks), an
// e-mail address, or a tool of another product called with the result.
type Destination struct {
	Kind string `json:"kind"`
	// Target is the address, or the tool's name; empty for webhook.
	Target string `json:"target,omitempty"`
	// On are the outcomes it is sent for (empty: every end).
	On []string `json:"on,omitempty"`
}

// Execution is one run of a task, from queued to its end.
type Execution struct {
	ID               string     `db:"id"`
	OrganizationID   string     `db:"organization_id"`
	TaskID           string     `db:"task_id"`
	Trigger          string     `db:"trigger_kind"`
	TriggeredBy      *string    `db:"triggered_by"`
	Status           string     `db:"status"`
	Model            *string    `db:"model"`
	InputJSON        string     `db:"input"`
	InputFileIDsJSON string     `db:"input_file_ids"`
	MaxCostCents     int64      `db:"max_cost_cents"`
	CostCents        int64      `db:"cost_cents"`
	TokensIn         int64      `db:"tokens_in"`
	TokensOut        int64      `db:"tokens_out"`
	TokensCached     int64      `db:"tokens_cached"`
	StepCount        int        `db:"step_count"`
	OutputJSON       *string    `db:"output"`
	ErrorCode        *string    `db:"error_code"`
	ErrorMessage     *string    `db:"error_message"`
	WaitingJSON      *string    `db:"waiting"`
	CheckpointJSON   *string    `db:"checkpoint"`
	ResumeInputJSON  *string    `db:"resume_input"`
	ApprovalID       *string    `db:"approval_id"`
	TickAt           *time.Time `db:"tick_at"`
	StartedAt        *time.Time `db:"started_at"`
	FinishedAt       *time.Time `db:"finished_at"`
	Deadline         *time.Time `db:"deadline"`
	CreatedAt        time.Time  `db:"created_at"`
	UpdatedAt        time.Time  `db:"updated_at"`
	// TraceParent and TraceState are the W3C trace context the execution
	// was created in (platform/tracing.Carrier), nil when tracing was
	// off: each run's span continues that trace (kadu/runtime).
	TraceParent *string `db:"trace_parent"`
	TraceState  *string `db:"trace_state"`
	// ClientID is the OAuth client whose call queued the execution (nil
	// for a schedule's, and before migration 00370): the execution page
	// names it.
	ClientID *string `db:"client_id"`
}

// Step is one step of an execution: a model call, a tool call or a
// message, with what it cost.
type Step struct {
	ID             string     `db:"id"`
	OrganizationID string     `db:"organization_id"`
	ExecutionID    string     `db:"execution_id"`
	Seq            int        `db:"seq"`
	Kind           string     `db:"kind"`
	ToolName       *string    `db:"tool_name"`
	ArgumentsJSON  *string    `db:"arguments"`
	ResultSummary  *string    `db:"result_summary"`
	Status         string     `db:"status"`
	ErrorMessage   *string    `db:"error_message"`
	TokensIn       int64      `db:"tokens_in"`
	TokensOut      int64      `db:"tokens_out"`
	TokensCached   int64      `db:"tokens_cached"`
	CostCents      int64      `db:"cost_cents"`
	DurationMS     int64      `db:"duration_ms"`
	StartedAt      time.Time  `db:"started_at"`
	FinishedAt     *time.Time `db:"finished_at"`
	CreatedAt      time.Time  `db:"created_at"`
	UpdatedAt      time.Time  `db:"updated_at"`
}

// Usage is what an organization's executions cost in one month.
type Usage struct {
	OrganizationID string    `db:"organization_id"`
	Month          string    `db:"month"`
	CostCents      int64     `db:"cost_cents"`
	TokensIn       int64     `db:"tokens_in"`
	TokensOut      int64     `db:"tokens_out"`
	TokensCached   int64     `db:"tokens_cached"`
	Executions     int       `db:"executions"`
	UpdatedAt      time.Time `db:"updated_at"`
}

// Tick is one scheduled instant of a task and what came of it.
type Tick struct {
	TaskID         string    `db:"task_id"`
	Tick           time.Time `db:"tick"`
	OrganizationID string    `db:"organization_id"`
	Outcome        string    `db:"outcome"`
	ExecutionID    *string   `db:"execution_id"`
	Reason         *string   `db:"reason"`
	CreatedAt      time.Time `db:"created_at"`
}

// Tokens is what a model call used, as its provider reports it.
type Tokens struct {
	In     int64 `json:"input_tokens"`
	Out    int64 `json:"output_tokens"`
	Cached int64 `json:"cached_tokens"`
}

// MarshalJSON keeps a step's unknown fields (Extra) beside the known ones.
func (s WorkflowStep) MarshalJSON() ([]byte, error) {
	m := make(map[string]json.RawMessage, len(s.Extra)+4)
	for k, v := range s.Extra {
		m[k] = v
	}
	type plain WorkflowStep
	b, err := json.Marshal(plain(s))
	if err != nil {
		return nil, err
	}
	var known map[string]json.RawMessage
	if err := json.Unmarshal(b, &known); err != nil {
		return nil, err
	}
	for k, v := range known {
		m[k] = v
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads the known fields and keeps the rest in Extra.
func (s *WorkflowStep) UnmarshalJSON(b []byte) error {
	type plain WorkflowStep
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	for _, k := range []string{"id", "tool", "arguments", "on_error"} {
		delete(all, k)
	}
	p.Extra = nil
	if len(all) > 0 {
		p.Extra = all
	}
	*s = WorkflowStep(p)
	return nil
}

// Decode fills the fields kept as JSON, never nil, so no reader of a task
// parses them itself.
func (t *Task) Decode() error {
	t.Steps, t.AllowedTools, t.GrantedScopes, t.Triggerers, t.Destinations = nil, nil, nil, Triggerers{}, nil
	for _, f := range []struct {
		name string
		raw  string
		dst  any
	}{
		{"steps", t.StepsJSON, &t.Steps},
		{"allowed_tools", t.AllowedToolsJSON, &t.AllowedTools},
		{"granted_scopes", t.GrantedScopesJSON, &t.GrantedScopes},
		{"triggerers", t.TriggerersJSON, &t.Triggerers},
		{"destinations", t.DestinationsJSON, &t.Destinations},
	} {
		if f.raw == "" {
			continue
		}
		if err := json.Unmarshal([]byte(f.raw), f.dst); err != nil {
			return fmt.Errorf("kadu task %s: %s: %w", t.ID, f.name, err)
		}
	}
	t.Normalize()
	return nil
}

// Normalize replaces nil lists and maps by empty ones.
func (t *Task) Normalize() {
	if t.Steps == nil {
		t.Steps = []WorkflowStep{}
	}
	if t.AllowedTools == nil {
		t.AllowedTools = []string{}
	}
	if t.GrantedScopes == nil {
		t.GrantedScopes = map[string][]string{}
	}
	if t.Triggerers.Users == nil {
		t.Triggerers.Users = []string{}
	}
	if t.Triggerers.Roles == nil {
		t.Triggerers.Roles = []string{}
	}
	if t.Destinations == nil {
		t.Destinations = []Destination{}
	}
}

// Encode writes the decoded fields back into their JSON columns before a
// write.
func (t *Task) Encode() error {
	t.Normalize()
	for _, f := range []struct {
		src any
		dst *string
	}{
		{t.Steps, &t.StepsJSON},
		{t.AllowedTools, &t.AllowedToolsJSON},
		{t.GrantedScopes, &t.GrantedScopesJSON},
		{t.Triggerers, &t.TriggerersJSON},
		{t.Destinations, &t.DestinationsJSON},
	} {
		b, err := json.Marshal(f.src)
		if err != nil {
			return fmt.Errorf("kadu task %s: %w", t.ID, err)
		}
		*f.dst = string(b)
	}
	return nil
}

// Wants reports whether destination d is sent an execution that moved to
// status (On empty: every end and every wait).
func (d Destination) Wants(status string) bool {
	return len(d.On) == 0 || slices.Contains(d.On, status)
}

// activeStatuses is IsActive as SQL: `status IN (…)`.
const activeStatuses = `('queued', 'running', 'waiting_input', 'waiting_approval', 'waiting_budget')`

// StepStart is what a step is when it begins.
type StepStart struct {
	Kind string
	// Tool is the tool called (tool_call), else empty.
	Tool string
	// Arguments are the call's arguments as JSON; secrets are redacted
	// before they are stored (redactArguments).
	Arguments json.RawMessage
}

// StepOutcome is how a step ended.
type StepOutcome struct {
	// Status is succeeded, failed or unknown (a call whose outcome was
	// lost: platform/jobs' unknown calls).
	Status string
	// ResultSummary is a short account of the result, for people.
	ResultSummary string
	// Error says why it failed.
	Error string
	// Usage and CostCents are what it used and cost (a model call's).
	Usage     Tokens
	CostCents int64
}
