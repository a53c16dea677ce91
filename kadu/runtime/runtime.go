package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/llm"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/approval"
	"github.com/kobana/kobana-mcp/productkit/toolreg"
)

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
