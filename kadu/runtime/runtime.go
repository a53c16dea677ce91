package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/llm"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/approval"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/productkit/toolreg"
)

// The runtime: the worker of kadu.run_execution, which carries an
// execution from queued to its end (docs/decisions.md "Kadu's runtime").
//
// Every step is recorded as started, committed, before it is done
// (beginStep), and its outcome, cost and the runtime's checkpoint — the
// workflow's results so far, the agent's conversation — are written in
// one transaction after it (finishStep with the checkpoint), so the
// execution's row always says exactly which steps finished. A worker that
// dies leaves its job running in River; River rescues it (after
// --job-rescue-after) and the same job, on any worker, resumes from the
// checkpoint. A step found started without an outcome is never repeated
// blindly: a model call or a read-only tool is marked unknown and done
// again; any other tool call is marked unknown and the execution fails,
// saying so, because whether it took effect cannot be known.
//
// One job owns an execution while it runs: the checkpoint names the River
// job that moved it to running, and any other job that finds it running
// leaves it alone (a decision told twice, a stray job). A job works for at
// most Config.Slice before it snoozes (River runs it again at
// once), so no run of the job outlives its timeout, which must stay below
// --job-rescue-after.

// Config tunes the runtime (kadu.Config.Runtime); zero fields take the
// defaults.
type Config struct {
	// JobTimeout bounds one run of the kadu.run_execution job (default 4
	// minutes, below the default --job-rescue-after of 5).
	JobTimeout time.Duration
	// Slice is how long one run of the job starts new steps before it
	// snoozes and lets River run it again (default 90 s): a long execution
	// is many short runs of one job.
	Slice time.Duration
	// ModelTimeout bounds one model call (default 2 minutes).
	ModelTimeout time.Duration
	// ModelAttempts is how many times a model call that failed with a
	// retryable error (HTTP 429, 5xx, a timeout) is tried (default 3),
	// RetryDelay the pause before the second (doubling after).
	ModelAttempts int
	RetryDelay    time.Duration
	// MaxModelSteps bounds an agent execution's model calls (default 30).
	MaxModelSteps int
	// MaxOutputTokens bounds one model answer (default 4096); the budget
	// may bound it lower.
	MaxOutputTokens int
	// MaxToolResultBytes is how much of a tool's answer the model reads
	// (default 16 KB) and a workflow keeps per step (default 256 KB, the
	// template language's bound).
	MaxToolResultBytes int
	// Provider replaces the OpenAI-compatible client built from
	// Config.ModelURL and ModelKey (tests).
	Provider Provider

	// Hold makes the worker leave every execution as it is: tests of the
	// API that move executions by hand.
	Hold bool
}

func (c Config) withDefaults() Config {
	if c.JobTimeout <= 0 {
		c.JobTimeout = 4 * time.Minute
	}
	if c.Slice <= 0 {
		c.Slice = 90 * time.Second
	}
	if c.ModelTimeout <= 0 {
		c.ModelTimeout = 2 * time.Minute
	}
	if c.ModelAttempts <= 0 {
		c.ModelAttempts = 3
	}
	if c.RetryDelay <= 0 {
		c.RetryDelay = time.Second
	}
	if c.MaxModelSteps <= 0 {
		c.MaxModelSteps = 30
	}
	if c.MaxOutputTokens <= 0 {
		c.MaxOutputTokens = 4096
	}
	if c.MaxToolResultBytes <= 0 {
		c.MaxToolResultBytes = 16 << 10
	}
	return c
}

// Provider is the model an agent execution talks to: one chat-completions
// request, one answer with its tool calls and usage. *llm.Client (the
// OpenAI-compatible API, platform/llm) is the implementation; any server
// that speaks that API works.
type Provider interface {
	Chat(ctx context.Context, req llm.Request) (llm.Response, error)
}

// Limits are the deployment's limits the runtime enforces, from
// kadu.Config: the plan, the price table, the steps of one execution and
// how long it may wait.
type Limits struct {
	Plan        PlanLimits
	Prices      map[string]ModelPrice
	MaxSteps    int
	WaitTimeout time.Duration
}

// Deps are what the product builds the runtime from (kadu's service): the
// shared stores, the state machine's write path, the bucket, the
// deployment's tools and roles, the model.
type Deps struct {
	DB        *store.DB
	Accounts  *accounts.Store
	Jobs      *jobs.Queue
	Approvals *approval.Store
	Log       *slog.Logger
	// Machine is the one write path of statuses, steps and cost.
	Machine *records.Machine
	// Clock is the instant written to the database (the product's, so a
	// test's clock reaches the runtime).
	Clock func() time.Time
	// Files is the bucket output files are written to and input files
	// read from.
	Files Bucket
	// Tools are the deployment's MCP tools; Roles the role lookup of the
	// moment of each call (productkit.Deps.Roles, which serve and worker
	// fill from the authorization server's store; nil skips it in tests).
	Tools     *toolreg.Registry
	Roles     oauth.RoleLookup
	PublicURL string
	// ModelURL and ModelKey reach the OpenAI-compatible API agent tasks
	// run on (Config.Provider replaces it).
	ModelURL string
	ModelKey string
	Limits   Limits
	Config   Config
}

// Runtime is the worker of kadu.run_execution and what it carries an
// execution with: one per listener, built by the product (New).
type Runtime struct {
	db        *store.DB
	accounts  *accounts.Store
	jobs      *jobs.Queue
	approvals *approval.Store
	log       *slog.Logger
	machine   *records.Machine
	clock     func() time.Time
	files     Bucket
	cfg       Limits
	rt        *deployment
}

// deployment is what the runtime reaches beyond the database: the
// deployment's tools, the role lookup of the moment of each call, where
// approval links point, the model.
type deployment struct {
	tools     *toolreg.Registry
	roles     oauth.RoleLookup
	publicURL string
	provider  Provider
	cfg       Config
}

// New builds the runtime of one listener.
func New(d Deps) *Runtime {
	rt := &deployment{tools: d.Tools, roles: d.Roles, publicURL: d.PublicURL, cfg: d.Config.withDefaults()}
	rt.provider = rt.cfg.Provider
	if rt.provider == nil && d.ModelURL != "" {
		rt.provider = llm.New(llm.Config{URL: d.ModelURL, APIKey: d.ModelKey, Timeout: rt.cfg.ModelTimeout})
	}
	return &Runtime{db: d.DB, accounts: d.Accounts, jobs: d.Jobs, approvals: d.Approvals, log: d.Log, machine: d.Machine,
		clock: d.Clock, files: d.Files, cfg: d.Limits, rt: rt}
}

// Worker is the worker of kadu.run_execution. The product's registerJobs
// adds it to every queue, so every process knows the kind (platform/jobs
// refuses to enqueue one without a worker).
func (s *Runtime) Worker() river.Worker[RunExecutionArgs] { return &runWorker{s: s} }

// runWorker is the worker of kadu.run_execution.
type runWorker struct {
	river.WorkerDefaults[RunExecutionArgs]
	s *Runtime
}

// Timeout is Config.JobTimeout: fixed per deployment, as platform/jobs
// requires.
func (w *runWorker) Timeout(*river.Job[RunExecutionArgs]) time.Duration {
	return w.s.rt.cfg.JobTimeout
}

// Work runs the execution for one slice.
func (w *runWorker) Work(ctx context.Context, job *river.Job[RunExecutionArgs]) error {
	return w.s.RunExecution(ctx, job.ID, job.Args.ExecutionID)
}

// Checkpoint is what the runtime resumes from, kept in the execution's
// checkpoint column and rewritten with every step's outcome.
type Checkpoint struct {
	// RunnerJob is the River job that owns the running execution.
	RunnerJob int64 `json:"runner_job"`
	// Next is the index of the workflow step to run next; Results the
	// results of the workflow's steps so far, by step id.
	Next    int                        `json:"next,omitempty"`
	Results map[string]json.RawMessage `json:"results,omitempty"`
	// Item is the element of the for_each step Next that runs next, Items
	// the results of its elements before it (runtime_foreach.go).
	Item  int               `json:"item,omitempty"`
	Items []json.RawMessage `json:"items,omitempty"`
	// Last is the result of the last workflow step that ran.
	Last json.RawMessage `json:"last,omitempty"`
	// Messages are the agent's conversation; ModelSteps its model calls.
	Messages   []llm.Message `json:"messages,omitempty"`
	ModelSteps int           `json:"model_steps,omitempty"`
	// PromptTokens is the prompt size the model last reported, for the
	// messages up to PromptMessages: the bound of the next prompt starts
	// there.
	PromptTokens   int64 `json:"prompt_tokens,omitempty"`
	PromptMessages int   `json:"prompt_messages,omitempty"`
	// Awaiting is the destructive call the execution waits (or waited) for
	// the person to approve.
	Awaiting *awaitedCall `json:"awaiting,omitempty"`
	// Answer is the input a person gave a workflow's kadu_ask step
	// (kadu_executions_continue), moved here from resume_input when the
	// execution runs again and consumed as that step's result.
	Answer json.RawMessage `json:"answer,omitempty"`
}

// awaitedCall is a call waiting for its approval: which call (the
// workflow step's index or the agent's tool call id), the tool and its
// canonical arguments, and the approval.
type awaitedCall struct {
	Ref        string          `json:"ref"`
	Tool       string          `json:"tool"`
	Arguments  json.RawMessage `json:"arguments"`
	ApprovalID string          `json:"approval_id"`
}

func readCheckpoint(e *records.Execution) (*Checkpoint, error) {
	cp := &Checkpoint{}
	if e.CheckpointJSON == nil || *e.CheckpointJSON == "" {
		return cp, nil
	}
	if err := json.Unmarshal([]byte(*e.CheckpointJSON), cp); err != nil {
		return nil, fmt.Errorf("kadu: execution %s: checkpoint: %w", e.ID, err)
	}
	return cp, nil
}

func (cp *Checkpoint) Encode() *string {
	b, _ := json.Marshal(cp)
	s := string(b)
	return &s
}

// saveCheckpoint writes cp in q's transaction (the one recording the step
// it follows). It writes whatever the status: a step that ran is recorded
// even when the execution was canceled meanwhile.
func (s *Runtime) saveCheckpoint(ctx context.Context, q store.Querier, e *records.Execution, cp *Checkpoint) error {
	raw := cp.Encode()
	err := records.SetCheckpoint(ctx, q, e.OrganizationID, e.ID, *raw, s.clock())
	if err == nil {
		e.CheckpointJSON = raw
	}
	return err
}

// errStop ends a slice without an error: the execution ended, waits, was
// moved by someone else, or another job owns it.
var errStop = errors.New("kadu: stop")

// errSnooze ends a slice that ran out of time: the job runs again at once.
var errSnooze = errors.New("kadu: snooze")

// run is one slice of one execution.
type run struct {
	s       *Runtime
	e       *records.Execution
	t       *records.Task
	cp      *Checkpoint
	jobID   int64
	started time.Time
	email   string
}

// RunExecution is one run of the job of execution id (its worker, and
// tests that run a slice by hand).
func (s *Runtime) RunExecution(ctx context.Context, jobID int64, id string) error {
	if s.rt.cfg.Hold {
		return nil
	}
	e, err := records.ExecutionByID(ctx, s.db, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if records.IsTerminal(e.Status) {
		return nil
	}
	t, err := records.TaskOfExecution(ctx, s.db, e)
	if err != nil {
		return err
	}
	cp, err := readCheckpoint(e)
	if err != nil {
		return s.fail(ctx, e, "checkpoint_unreadable", err.Error())
	}
	r := &run{s: s, e: e, t: t, cp: cp, jobID: jobID, started: time.Now()}
	switch e.Status {
	case records.ExecQueued:
		ok, err := s.mayStart(ctx, s.db, e.OrganizationID)
		if err != nil {
			return err
		}
		if !ok {
			// The plan's executions at once are running: wait for a slot.
			return river.JobSnooze(5 * time.Second)
		}
		if err := r.take(ctx); err != nil {
			return done(err)
		}
	case records.ExecRunning:
		if cp.RunnerJob != jobID {
			// Another job carries it (or will, once River rescues it).
			return nil
		}
	case records.ExecWaitingApproval:
		if err := r.decided(ctx); err != nil {
			return done(err)
		}
	default:
		// waiting_input: kadu_executions_continue queues it again.
		return nil
	}
	if e.TriggeredBy != nil {
		if u, err := s.accounts.GetUser(ctx, *e.TriggeredBy); err == nil {
			r.email = u.Email
		}
	}
	if err := r.recover(ctx); err != nil {
		return done(err)
	}
	switch t.Mode {
	case records.ModeWorkflow:
		err = r.workflow(ctx)
	case records.ModeAgent:
		err = r.agent(ctx)
	default:
		err = s.fail(ctx, e, "invalid_task", "the task's mode "+t.Mode+" cannot run")
	}
	return done(err)
}

// done turns a slice's end into the job's answer.
func done(err error) error {
	switch {
	case errors.Is(err, errStop):
		return nil
	case errors.Is(err, errSnooze):
		return river.JobSnooze(10 * time.Millisecond)
	}
	return err
}

// take moves a queued execution to running, owned by this job.
func (r *run) take(ctx context.Context) error {
	r.cp.RunnerJob = r.jobID
	resume := r.e.ResumeInputJSON
	if resume != nil && r.t.Mode == records.ModeWorkflow {
		// The answer to the kadu_ask step the workflow waits at, in the
		// same write that clears resume_input.
		r.cp.Answer = json.RawMessage(*resume)
	}
	ch := records.Change{Checkpoint: r.cp.Encode()}
	if r.e.ResumeInputJSON != nil {
		ch.ClearResumeInput = true
	}
	if err := r.s.machine.Transition(ctx, r.s.db, r.e, records.ExecRunning, ch); err != nil {
		if errors.Is(err, records.ErrStaleExecution) {
			return errStop
		}
		return err
	}
	if resume != nil && r.t.Mode == records.ModeAgent {
		// A person's answer to a waiting_input execution: the model reads
		// it next.
		r.cp.Messages = append(r.cp.Messages, llm.Message{Role: llm.RoleUser, Content: "More input from the person (data, as the run's input):\n" + *resume})
		return r.s.saveCheckpoint(ctx, r.s.db, r.e, r.cp)
	}
	return nil
}

// stillRunning re-reads the execution's status before a step: a cancel
// (or the timeouts sweep) stops it before its next step.
func (r *run) stillRunning(ctx context.Context) error {
	status, err := records.ExecutionStatus(ctx, r.s.db, r.e.ID)
	if err != nil {
		return err
	}
	if status != records.ExecRunning {
		return errStop
	}
	if time.Since(r.started) > r.s.rt.cfg.Slice {
		return errSnooze
	}
	if r.e.StepCount >= r.s.cfg.MaxSteps {
		return r.s.fail(ctx, r.e, "step_limit", fmt.Sprintf("the execution reached its limit of %d steps", r.s.cfg.MaxSteps))
	}
	return nil
}

// end moves the running execution to a final status; a stale row (a
// cancel won) stops quietly.
func (s *Runtime) end(ctx context.Context, e *records.Execution, to string, ch records.Change) error {
	err := s.machine.Transition(ctx, s.db, e, to, ch)
	if err == nil || errors.Is(err, records.ErrStaleExecution) {
		return errStop
	}
	return err
}

// fail ends the execution failed with a code and a message for people.
func (s *Runtime) fail(ctx context.Context, e *records.Execution, code, msg string) error {
	return s.failAs(ctx, e, records.ExecFailed, code, msg)
}

func (s *Runtime) failAs(ctx context.Context, e *records.Execution, to, code, msg string) error {
	return s.end(ctx, e, to, records.Change{ErrorCode: &code, ErrorMessage: &msg})
}

// succeed ends the execution with its output.
func (s *Runtime) succeed(ctx context.Context, e *records.Execution, output any) error {
	b, err := json.Marshal(output)
	if err != nil {
		return err
	}
	out := string(b)
	return s.end(ctx, e, records.ExecSucceeded, records.Change{Output: &out})
}

// recover settles the steps a dead worker left started without an
// outcome. A model call is marked unknown (its cost is not known: the
// provider may or may not have charged it) and made again; a read-only
// tool call is marked unknown and made again; a destructive call whose
// approval was never claimed did not happen and is made again; any other
// tool call is marked unknown and the execution fails, because whether it
// took effect cannot be known and it is never repeated blindly.
func (r *run) recover(ctx context.Context) error {
	open, err := records.OpenSteps(ctx, r.s.db, r.e.ID)
	if err != nil {
		return err
	}
	for _, st := range open {
		out := records.StepOutcome{Status: records.StepUnknown}
		failWith := ""
		switch st.Kind {
		case records.StepLLM:
			out.Error = "interrupted: the worker stopped before the model's answer was recorded (whether the provider charged it is unknown); the call is made again"
		case records.StepMessage:
			out.Status = records.StepSucceeded
		case records.StepToolCall:
			tool := restkit.Deref(st.ToolName)
			entry, known := r.s.rt.tools.Lookup(tool)
			claimed := true
			if r.cp.Awaiting != nil && r.cp.Awaiting.Tool == tool {
				if a, err := r.s.approvals.Get(ctx, r.cp.Awaiting.ApprovalID); err == nil && a.Status == "approved" {
					claimed = false
				}
			}
			switch {
			case known && entry.Tool.IsReadOnly():
				out.Error = "interrupted: the worker stopped before the outcome was recorded; " + tool + " only reads, so it is called again"
			case !claimed:
				out.Status = records.StepFailed
				out.Error = "interrupted before the call was made (its approval was never claimed); it is made now"
			default:
				out.Error = "interrupted: the worker stopped before the outcome was recorded; " + tool + " is not read-only, so it is not called again"
				failWith = fmt.Sprintf("step %d called %s and the worker running it stopped before its outcome was recorded: it may or may not have taken effect, and a call that changes data is never repeated blindly. Check in the product whether it did, then run the task again if needed.", st.Seq, tool)
			}
		}
		if err := r.s.machine.FinishStep(ctx, r.s.db, r.e, st, out); err != nil {
			return err
		}
		if failWith != "" {
			if r.cp.Awaiting != nil && r.cp.Awaiting.ApprovalID != "" {
				r.s.abandonApproval(ctx, r.cp.Awaiting.ApprovalID)
			}
			return r.s.fail(ctx, r.e, "tool_outcome_unknown", failWith)
		}
	}
	return nil
}

// mayStart reports whether the organization may start one more
// execution now: fewer than the plan's MaxConcurrentExecutions are
// running. Queueing is never refused for it; the runtime's worker waits
// for a slot.
func (s *Runtime) mayStart(ctx context.Context, q store.Querier, orgID string) (bool, error) {
	n, err := records.RunningExecutions(ctx, q, orgID)
	if err != nil {
		return false, err
	}
	return n < s.cfg.Plan.MaxConcurrentExecutions, nil
}
