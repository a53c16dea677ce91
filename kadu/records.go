package kadu

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
)

// The rows Kadu's operations, jobs and runtime share (migrations/00300),
// their org-scoped loaders, the step helpers and the execution state
// machine. Signatures here are shared with the runtime: keep them stable.

// Task modes.
const (
	// modeWorkflow runs the task's declared steps in order.
	modeWorkflow = "workflow"
	// modeAgent runs the agent loop with the task's model and tools.
	modeAgent = "agent"
)

// Task statuses; a deleted task is soft-deleted and answers 404.
const (
	taskActive  = "active"
	taskPaused  = "paused"
	taskDeleted = "deleted"
)

// Triggers: how an execution was started.
const (
	triggerManual   = "manual"
	triggerSchedule = "schedule"
	triggerAPI      = "api"
)

// Execution statuses (see transitions for how one leads to another).
const (
	execQueued          = "queued"
	execRunning         = "running"
	execWaitingInput    = "waiting_input"
	execWaitingApproval = "waiting_approval"
	execSucceeded       = "succeeded"
	execFailed          = "failed"
	execCanceled        = "canceled"
	execTimedOut        = "timed_out"
	execCostExceeded    = "cost_exceeded"
)

// Step kinds and statuses.
const (
	stepLLM      = "llm"
	stepToolCall = "tool_call"
	stepMessage  = "message"

	stepStarted   = "started"
	stepSucceeded = "succeeded"
	stepFailed    = "failed"
	stepUnknown   = "unknown"
)

// taskRecord is a task: what runs (instructions, workflow steps or the
// agent's model), with which tools and scopes, when (schedule), within
// which ceiling, started by whom and delivered where.
type taskRecord struct {
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
	TriggerersJSON    string     `db:"triggerers"`
	DestinationsJSON  string     `db:"destinations"`
	Status            string     `db:"status"`
	CreatedAt         time.Time  `db:"created_at"`
	UpdatedAt         time.Time  `db:"updated_at"`
	DeletedAt         *time.Time `db:"deleted_at"`

	// Decoded from the JSON columns when the row is read (decode), written
	// back by encode.
	Steps         []workflowStep      `db:"-"`
	AllowedTools  []string            `db:"-"`
	GrantedScopes map[string][]string `db:"-"`
	Triggerers    triggerers          `db:"-"`
	Destinations  []destination       `db:"-"`
}

// workflowStep is one step of a workflow task: a tool called with
// arguments (which may hold the runtime's expressions), and what to do
// when it fails. Extra fields the runtime defines travel in Extra, so a
// step saved today keeps them.
type workflowStep struct {
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

// triggerers are who, besides the owner, may run a task: people by user
// id, and everyone holding one of the roles.
type triggerers struct {
	Users []string `json:"users"`
	Roles []string `json:"roles"`
}

// destination is where an execution's result goes when it ends: a
// webhook event (kind "webhook", the organization's Kadu webhooks), an
// e-mail address, or a tool of another product called with the result.
type destination struct {
	Kind string `json:"kind"`
	// Target is the address, or the tool's name; empty for webhook.
	Target string `json:"target,omitempty"`
	// On are the outcomes it is sent for (empty: every end).
	On []string `json:"on,omitempty"`
}

// executionRecord is one run of a task, from queued to its end.
type executionRecord struct {
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
}

// stepRecord is one step of an execution: a model call, a tool call or a
// message, with what it cost.
type stepRecord struct {
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

// usageRecord is what an organization's executions cost in one month.
type usageRecord struct {
	OrganizationID string    `db:"organization_id"`
	Month          string    `db:"month"`
	CostCents      int64     `db:"cost_cents"`
	TokensIn       int64     `db:"tokens_in"`
	TokensOut      int64     `db:"tokens_out"`
	TokensCached   int64     `db:"tokens_cached"`
	Executions     int       `db:"executions"`
	UpdatedAt      time.Time `db:"updated_at"`
}

// tickRecord is one scheduled instant of a task and what came of it.
type tickRecord struct {
	TaskID         string    `db:"task_id"`
	Tick           time.Time `db:"tick"`
	OrganizationID string    `db:"organization_id"`
	Outcome        string    `db:"outcome"`
	ExecutionID    *string   `db:"execution_id"`
	Reason         *string   `db:"reason"`
	CreatedAt      time.Time `db:"created_at"`
}

// tokenUsage is what a model call used, as its provider reports it.
type tokenUsage struct {
	In     int64 `json:"input_tokens"`
	Out    int64 `json:"output_tokens"`
	Cached int64 `json:"cached_tokens"`
}

// MarshalJSON keeps a step's unknown fields (Extra) beside the known ones.
func (s workflowStep) MarshalJSON() ([]byte, error) {
	m := make(map[string]json.RawMessage, len(s.Extra)+4)
	for k, v := range s.Extra {
		m[k] = v
	}
	type plain workflowStep
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
func (s *workflowStep) UnmarshalJSON(b []byte) error {
	type plain workflowStep
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
	*s = workflowStep(p)
	return nil
}

// decode fills the fields kept as JSON, never nil, so no reader of a task
// parses them itself.
func (t *taskRecord) decode() error {
	t.Steps, t.AllowedTools, t.GrantedScopes, t.Triggerers, t.Destinations = nil, nil, nil, triggerers{}, nil
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
	t.normalize()
	return nil
}

// normalize replaces nil lists and maps by empty ones.
func (t *taskRecord) normalize() {
	if t.Steps == nil {
		t.Steps = []workflowStep{}
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
		t.Destinations = []destination{}
	}
}

// encode writes the decoded fields back into their JSON columns before a
// write.
func (t *taskRecord) encode() error {
	t.normalize()
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

// The execution state machine: the one table of which status may follow
// which. Waits end by running again (or by being queued again, for a
// runtime that resumes through a new job); every end is final.
var transitions = map[string][]string{
	execQueued:          {execRunning, execCanceled, execFailed, execTimedOut, execCostExceeded},
	execRunning:         {execWaitingInput, execWaitingApproval, execSucceeded, execFailed, execCanceled, execTimedOut, execCostExceeded},
	execWaitingInput:    {execQueued, execRunning, execCanceled, execFailed},
	execWaitingApproval: {execQueued, execRunning, execCanceled, execFailed},
	execSucceeded:       nil,
	execFailed:          nil,
	execCanceled:        nil,
	execTimedOut:        nil,
	execCostExceeded:    nil,
}

// errIllegalTransition is what checkTransition's errors wrap.
var errIllegalTransition = errors.New("illegal execution transition")

// errStaleExecution is transition's answer when the row's status is no
// longer the one the caller read: someone else moved it first.
var errStaleExecution = errors.New("execution status changed concurrently")

// checkTransition is the state machine's one check: nil when an
// execution in status from may move to status to, else an error naming
// both.
func checkTransition(from, to string) error {
	next, known := transitions[from]
	if !known {
		return fmt.Errorf("%w: unknown status %q (to %q)", errIllegalTransition, from, to)
	}
	for _, n := range next {
		if n == to {
			return nil
		}
	}
	return fmt.Errorf("%w: %s → %s", errIllegalTransition, from, to)
}

// isTerminal reports whether an execution in this status has ended.
func isTerminal(status string) bool {
	next, known := transitions[status]
	return known && len(next) == 0
}

// isActive reports whether an execution in this status still occupies
// its task (queued, running or waiting).
func isActive(status string) bool {
	_, known := transitions[status]
	return known && !isTerminal(status)
}

// activeStatuses is isActive as SQL: `status IN (…)`.
const activeStatuses = `('queued', 'running', 'waiting_input', 'waiting_approval')`

// executionChange is what a transition writes besides the status. Nil
// fields are left as they are. transition itself sets started_at (first
// time running) and finished_at (any end), clears waiting when the
// execution leaves a wait, and gives running and waiting states their
// deadline from the configuration (ExecutionTimeout, WaitTimeout) unless
// Deadline says otherwise; queued has none.
type executionChange struct {
	// Output is the result, as JSON.
	Output *string
	// ErrorCode and ErrorMessage say why it failed.
	ErrorCode    *string
	ErrorMessage *string
	// Deadline is when the new state must end (nil: the default above);
	// ClearDeadline leaves the new state without one.
	Deadline      *time.Time
	ClearDeadline bool
	// Waiting is what the execution now waits for, as JSON.
	Waiting *string
	// Checkpoint is the runtime's state to resume from, as JSON.
	Checkpoint *string
	// ApprovalID is the approval a waiting_approval execution waits on.
	ApprovalID *string
	// ResumeInput is the input a person gave to continue a waiting_input
	// execution (kadu_executions_continue); ClearResumeInput drops it once
	// the runtime has taken it.
	ResumeInput      *string
	ClearResumeInput bool
}

// transition moves exec to status to: the state machine's check, then an
// update that only applies if the row is still in exec.Status (another
// replica, a cancel, the timeouts job may have moved it: errStaleExecution
// then). On success exec holds what was written.
func (s *service) transition(ctx context.Context, q store.Querier, exec *executionRecord, to string, ch executionChange) error {
	from := exec.Status
	if err := checkTransition(from, to); err != nil {
		return err
	}
	now := s.clock()
	sets := []string{"status = ?", "updated_at = ?"}
	args := []any{to, now}
	next := *exec
	next.Status, next.UpdatedAt = to, now
	if to == execRunning && exec.StartedAt == nil {
		sets, args = append(sets, "started_at = ?"), append(args, now)
		next.StartedAt = &now
	}
	if isTerminal(to) {
		sets, args = append(sets, "finished_at = ?"), append(args, now)
		next.FinishedAt = &now
	}
	if (from == execWaitingInput || from == execWaitingApproval) && ch.Waiting == nil {
		sets = append(sets, "waiting = NULL")
		next.WaitingJSON = nil
	}
	set := func(col string, v *string, dst **string) {
		if v != nil {
			sets, args = append(sets, col+" = ?"), append(args, *v)
			c := *v
			*dst = &c
		}
	}
	set("output", ch.Output, &next.OutputJSON)
	set("error_code", ch.ErrorCode, &next.ErrorCode)
	set("error_message", ch.ErrorMessage, &next.ErrorMessage)
	set("waiting", ch.Waiting, &next.WaitingJSON)
	set("checkpoint", ch.Checkpoint, &next.CheckpointJSON)
	set("approval_id", ch.ApprovalID, &next.ApprovalID)
	set("resume_input", ch.ResumeInput, &next.ResumeInputJSON)
	if ch.ClearResumeInput && ch.ResumeInput == nil {
		sets = append(sets, "resume_input = NULL")
		next.ResumeInputJSON = nil
	}
	// The deadline of the new state: the caller's, else the
	// configuration's for running and waiting; none while queued; an end
	// keeps the last one, for the record.
	deadline := ch.Deadline
	if deadline == nil && !ch.ClearDeadline {
		switch to {
		case execRunning:
			d := now.Add(s.cfg.ExecutionTimeout)
			deadline = &d
		case execWaitingInput, execWaitingApproval:
			d := now.Add(s.cfg.WaitTimeout)
			deadline = &d
		}
	}
	switch {
	case deadline != nil:
		d := deadline.UTC().Truncate(time.Microsecond)
		sets, args = append(sets, "deadline = ?"), append(args, d)
		next.Deadline = &d
	case ch.ClearDeadline || to == execQueued:
		sets = append(sets, "deadline = NULL")
		next.Deadline = nil
	}
	args = append(args, exec.OrganizationID, exec.ID, from)
	// The status change and its deliveries (delivery.go) commit together.
	err := q.WithTx(ctx, func(tx *store.Tx) error {
		res, err := tx.Exec(ctx, `UPDATE kadu_executions SET `+strings.Join(sets, ", ")+`
		WHERE organization_id = ? AND id = ? AND status = ?`, args...)
		if err := store.ExpectOne(res, err); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("%w: %s expected %s", errStaleExecution, exec.ID, from)
			}
			return err
		}
		return s.deliverTransition(ctx, tx, &next)
	})
	if err != nil {
		return err
	}
	*exec = next
	return nil
}

// stepStart is what a step is when it begins.
type stepStart struct {
	Kind string
	// Tool is the tool called (tool_call), else empty.
	Tool string
	// Arguments are the call's arguments as JSON; secrets are redacted
	// before they are stored (redactArguments).
	Arguments json.RawMessage
}

// stepOutcome is how a step ended.
type stepOutcome struct {
	// Status is succeeded, failed or unknown (a call whose outcome was
	// lost: platform/jobs' unknown calls).
	Status string
	// ResultSummary is a short account of the result, for people.
	ResultSummary string
	// Error says why it failed.
	Error string
	// Usage and CostCents are what it used and cost (a model call's).
	Usage     tokenUsage
	CostCents int64
}

// beginStep records a step as started: the next seq of the execution
// (step_count counts them, unique per execution), committed with q's
// transaction. A step must begin before its call is made, so a crash
// leaves it started and the next run can mark it unknown.
func (s *service) beginStep(ctx context.Context, q store.Querier, exec *executionRecord, st stepStart) (*stepRecord, error) {
	switch st.Kind {
	case stepLLM, stepToolCall, stepMessage:
	default:
		return nil, fmt.Errorf("kadu: step kind %q", st.Kind)
	}
	now := s.clock()
	step := &stepRecord{ID: store.NewID(), OrganizationID: exec.OrganizationID, ExecutionID: exec.ID,
		Kind: st.Kind, Status: stepStarted, StartedAt: now, CreatedAt: now, UpdatedAt: now}
	if st.Tool != "" {
		tool := st.Tool
		step.ToolName = &tool
	}
	if len(st.Arguments) > 0 {
		args := redactArguments(st.Arguments)
		step.ArgumentsJSON = &args
	}
	err := q.WithTx(ctx, func(tx *store.Tx) error {
		if err := store.ExpectOne(tx.Exec(ctx, `UPDATE kadu_executions SET step_count = step_count + 1, updated_at = ?
			WHERE organization_id = ? AND id = ?`, now, exec.OrganizationID, exec.ID)); err != nil {
			return err
		}
		if err := tx.Get(ctx, &step.Seq, `SELECT step_count FROM kadu_executions WHERE id = ?`, exec.ID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO kadu_execution_steps (`+stepColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, NULL, 0, 0, 0, 0, 0, ?, NULL, ?, ?)`,
			step.ID, step.OrganizationID, step.ExecutionID, step.Seq, step.Kind, step.ToolName, step.ArgumentsJSON,
			step.Status, step.StartedAt, step.CreatedAt, step.UpdatedAt)
		return err
	})
	if err != nil {
		return nil, err
	}
	exec.StepCount = step.Seq
	return step, nil
}

// finishStep records how a step ended and, in the same transaction, what
// it cost: the execution's and the month's totals (recordStepCost).
func (s *service) finishStep(ctx context.Context, q store.Querier, exec *executionRecord, step *stepRecord, out stepOutcome) error {
	switch out.Status {
	case stepSucceeded, stepFailed, stepUnknown:
	default:
		return fmt.Errorf("kadu: step outcome %q", out.Status)
	}
	now := s.clock()
	dur := max(now.Sub(step.StartedAt).Milliseconds(), 0)
	var summary, errMsg *string
	if out.ResultSummary != "" {
		summary = &out.ResultSummary
	}
	if out.Error != "" {
		errMsg = &out.Error
	}
	err := q.WithTx(ctx, func(tx *store.Tx) error {
		if err := store.ExpectOne(tx.Exec(ctx, `UPDATE kadu_execution_steps SET status = ?, result_summary = ?,
			error_message = ?, tokens_in = ?, tokens_out = ?, tokens_cached = ?, cost_cents = ?, duration_ms = ?,
			finished_at = ?, updated_at = ? WHERE id = ? AND execution_id = ?`,
			out.Status, summary, errMsg, out.Usage.In, out.Usage.Out, out.Usage.Cached, out.CostCents, dur,
			now, now, step.ID, exec.ID)); err != nil {
			return err
		}
		if out.CostCents == 0 && out.Usage == (tokenUsage{}) {
			return nil
		}
		return s.recordStepCost(ctx, tx, exec, out.CostCents, out.Usage)
	})
	if err != nil {
		return err
	}
	step.Status, step.ResultSummary, step.ErrorMessage = out.Status, summary, errMsg
	step.TokensIn, step.TokensOut, step.TokensCached = out.Usage.In, out.Usage.Out, out.Usage.Cached
	step.CostCents, step.DurationMS, step.FinishedAt, step.UpdatedAt = out.CostCents, dur, &now, now
	return nil
}

// secretKeys are the argument names whose values are never stored.
var secretKeys = []string{"password", "secret", "token", "api_key", "apikey", "authorization",
	"credential", "private_key", "client_secret", "cookie"}

// redactArguments is a call's arguments as stored: every value under a
// key that names a secret, at any depth, replaced by "[redacted]". Text
// that is not JSON is not stored at all.
func redactArguments(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return `"[unreadable]"`
	}
	b, _ := json.Marshal(redactValue(v))
	return string(b)
}

func redactValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			lk := strings.ToLower(k)
			secret := false
			for _, s := range secretKeys {
				if strings.Contains(lk, s) {
					secret = true
					break
				}
			}
			if secret {
				x[k] = "[redacted]"
			} else {
				x[k] = redactValue(val)
			}
		}
		return x
	case []any:
		for i := range x {
			x[i] = redactValue(x[i])
		}
		return x
	default:
		return v
	}
}

// usageMonth is the calendar month (UTC) usage of instant t counts in.
func usageMonth(t time.Time) string { return t.UTC().Format("2006-01") }

// recordStepCost adds a step's cost and tokens to its execution and to
// the organization's month, in the caller's transaction, so a step's
// record and what it cost commit together (or not at all).
func (s *service) recordStepCost(ctx context.Context, tx *store.Tx, exec *executionRecord, cents int64, tokens tokenUsage) error {
	if cents < 0 {
		return fmt.Errorf("kadu: negative step cost %d", cents)
	}
	now := s.clock()
	if err := store.ExpectOne(tx.Exec(ctx, `UPDATE kadu_executions SET cost_cents = cost_cents + ?,
		tokens_in = tokens_in + ?, tokens_out = tokens_out + ?, tokens_cached = tokens_cached + ?, updated_at = ?
		WHERE organization_id = ? AND id = ?`,
		cents, tokens.In, tokens.Out, tokens.Cached, now, exec.OrganizationID, exec.ID)); err != nil {
		return err
	}
	if err := addUsage(ctx, tx, exec.OrganizationID, usageMonth(now), cents, tokens, 0, now); err != nil {
		return err
	}
	exec.CostCents += cents
	exec.TokensIn += tokens.In
	exec.TokensOut += tokens.Out
	exec.TokensCached += tokens.Cached
	exec.UpdatedAt = now
	return nil
}

// addUsage adds to an organization's month, creating the row.
func addUsage(ctx context.Context, q store.Querier, orgID, month string, cents int64, tokens tokenUsage, executions int, now time.Time) error {
	_, err := q.Exec(ctx, `INSERT INTO kadu_monthly_usage (organization_id, month, cost_cents, tokens_in,
		tokens_out, tokens_cached, executions, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (organization_id, month) DO UPDATE SET
			cost_cents = kadu_monthly_usage.cost_cents + excluded.cost_cents,
			tokens_in = kadu_monthly_usage.tokens_in + excluded.tokens_in,
			tokens_out = kadu_monthly_usage.tokens_out + excluded.tokens_out,
			tokens_cached = kadu_monthly_usage.tokens_cached + excluded.tokens_cached,
			executions = kadu_monthly_usage.executions + excluded.executions,
			updated_at = excluded.updated_at`,
		orgID, month, cents, tokens.In, tokens.Out, tokens.Cached, executions, now)
	return err
}

// monthUsage is the organization's usage in month (zero when none yet).
func monthUsage(ctx context.Context, q store.Querier, orgID, month string) (usageRecord, error) {
	var u usageRecord
	err := q.Get(ctx, &u, `SELECT organization_id, month, cost_cents, tokens_in, tokens_out, tokens_cached,
		executions, updated_at FROM kadu_monthly_usage WHERE organization_id = ? AND month = ?`, orgID, month)
	if errors.Is(err, store.ErrNotFound) {
		return usageRecord{OrganizationID: orgID, Month: month}, nil
	}
	return u, err
}
