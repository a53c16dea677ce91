package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/llm"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/restkit"
)

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

// RunExecution is one run of the job of execution id (its worker, and
// tests that run a slice by hand).
func (s *Runtime) RunExecution(ctx context.Context, jobID int64, id string) (err error) {
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
	// The run is part of the execution's trace (trace.go).
	ctx, span := startRun(ctx, jobID, e)
	defer func() { endRun(span, err) }()
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
		// waiting_input, waiting_budget: kadu_executions_continue queues
		// it again.
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
	if r.cp.Budget != nil {
		// Queued again from waiting_budget: resume_input is the person's
		// decision, not an answer for the model (budget.go).
		r.takeBudgetDecision(resume)
		resume = nil
	}
	if resume != nil && (r.t.Mode == records.ModeWorkflow || r.cp.Asked != "") {
		// The answer to the kadu_ask step the workflow waits at, or to the
		// agent's kadu_ask call, in the same write that clears
		// resume_input.
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
	if resume != nil && r.t.Mode == records.ModeAgent && r.cp.Asked == "" {
		// A person's answer to a waiting_input execution: the model reads
		// it next.
		r.cp.Messages = append(r.cp.Messages, llm.Message{Role: llm.RoleUser, Content: "More input from the person (data, as the run's input):\n" + *resume})
		return r.s.saveCheckpoint(ctx, r.s.db, r.e, r.cp)
	}
	return nil
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
