package records

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
)

// The execution state machine: the one table of which status may follow
// which. Waits end by running again (or by being queued again, for a
// runtime that resumes through a new job); every end is final.
var transitions = map[string][]string{
	ExecQueued:          {ExecRunning, ExecCanceled, ExecFailed, ExecTimedOut, ExecCostExceeded},
	ExecRunning:         {ExecWaitingInput, ExecWaitingApproval, ExecWaitingBudget, ExecSucceeded, ExecFailed, ExecCanceled, ExecTimedOut, ExecCostExceeded},
	ExecWaitingInput:    {ExecQueued, ExecRunning, ExecCanceled, ExecFailed},
	ExecWaitingApproval: {ExecQueued, ExecRunning, ExecCanceled, ExecFailed},
	// A budget wait ends queued (a person raised the ceiling or approved
	// the overrun), canceled, or cost_exceeded when nobody did in time.
	ExecWaitingBudget: {ExecQueued, ExecCanceled, ExecCostExceeded, ExecFailed},
	ExecSucceeded:     nil,
	ExecFailed:        nil,
	ExecCanceled:      nil,
	ExecTimedOut:      nil,
	ExecCostExceeded:  nil,
}

// ErrIllegalTransition is what CheckTransition's errors wrap.
var ErrIllegalTransition = errors.New("illegal execution transition")

// ErrStaleExecution is Machine.Transition's answer when the row's status is no
// longer the one the caller read: someone else moved it first.
var ErrStaleExecution = errors.New("execution status changed concurrently")

// CheckTransition is the state machine's one check: nil when an
// execution in status from may move to status to, else an error naming
// both.
func CheckTransition(from, to string) error {
	next, known := transitions[from]
	if !known {
		return fmt.Errorf("%w: unknown status %q (to %q)", ErrIllegalTransition, from, to)
	}
	for _, n := range next {
		if n == to {
			return nil
		}
	}
	return fmt.Errorf("%w: %s → %s", ErrIllegalTransition, from, to)
}

// IsTerminal reports whether an execution in this status has ended.
func IsTerminal(status string) bool {
	next, known := transitions[status]
	return known && len(next) == 0
}

// IsWait reports whether an execution in this status waits for a person
// (an input, an approval, a budget decision).
func IsWait(status string) bool {
	return status == ExecWaitingInput || status == ExecWaitingApproval || status == ExecWaitingBudget
}

// IsActive reports whether an execution in this status still occupies
// its task (queued, running or waiting).
func IsActive(status string) bool {
	_, known := transitions[status]
	return known && !IsTerminal(status)
}

// Change is what a transition writes besides the status. Nil fields are
// left as they are. Machine.Transition itself sets started_at (first time
// running) and finished_at (any end), clears waiting when the execution
// leaves a wait, and gives running and waiting states their deadline from
// the configuration (ExecutionTimeout, WaitTimeout) unless Deadline says
// otherwise; queued has none.
type Change struct {
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
	// MaxCostCents is the execution's new ceiling: a person raised it to
	// resume a waiting_budget execution (kadu_executions_continue).
	MaxCostCents *int64
}

// Machine is the one write path of an execution's status, steps and
// cost, shared by the API (run, continue, cancel, the schedules and the
// timeouts) and the runtime: every change is checked against the state
// machine and committed with its deliveries. The product builds one per
// listener.
type Machine struct {
	// Clock is the instant written to the database (UTC, microseconds).
	Clock func() time.Time
	// ExecutionTimeout and WaitTimeout are the deadlines of running and
	// waiting states (Config.ExecutionTimeout, WaitTimeout).
	ExecutionTimeout time.Duration
	WaitTimeout      time.Duration
	// Deliver sends what an execution's new status owes its task's
	// destinations, in the transaction of the change.
	Deliver Deliverer
}

// Deliverer is what a status change delivers (webhook events, result
// e-mails, tools called with the result), in the transaction that
// commits it; the product implements it (kadu delivery.go,
// service.DeliverTransition).
type Deliverer interface {
	DeliverTransition(ctx context.Context, tx *store.Tx, e *Execution) error
}

// Transition moves exec to status to: the state machine's check, then an
// update that only applies if the row is still in exec.Status (another
// replica, a cancel, the timeouts job may have moved it: ErrStaleExecution
// then). On success exec holds what was written.
func (m *Machine) Transition(ctx context.Context, q store.Querier, exec *Execution, to string, ch Change) error {
	from := exec.Status
	if err := CheckTransition(from, to); err != nil {
		return err
	}
	now := m.Clock()
	sets := []string{"status = ?", "updated_at = ?"}
	args := []any{to, now}
	next := *exec
	next.Status, next.UpdatedAt = to, now
	if to == ExecRunning && exec.StartedAt == nil {
		sets, args = append(sets, "started_at = ?"), append(args, now)
		next.StartedAt = &now
	}
	if IsTerminal(to) {
		sets, args = append(sets, "finished_at = ?"), append(args, now)
		next.FinishedAt = &now
	}
	if IsWait(from) && ch.Waiting == nil {
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
	if ch.MaxCostCents != nil {
		sets, args = append(sets, "max_cost_cents = ?"), append(args, *ch.MaxCostCents)
		next.MaxCostCents = *ch.MaxCostCents
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
	switch deadline := m.deadline(to, now, ch); {
	case deadline != nil:
		d := deadline.UTC().Truncate(time.Microsecond)
		sets, args = append(sets, "deadline = ?"), append(args, d)
		next.Deadline = &d
	case ch.ClearDeadline || to == ExecQueued:
		sets = append(sets, "deadline = NULL")
		next.Deadline = nil
	}
	// The status change and its deliveries commit together.
	err := q.WithTx(ctx, func(tx *store.Tx) error {
		if err := setExecutionStatus(ctx, tx, exec.OrganizationID, exec.ID, from, sets, args); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("%w: %s expected %s", ErrStaleExecution, exec.ID, from)
			}
			return err
		}
		return m.Deliver.DeliverTransition(ctx, tx, &next)
	})
	if err != nil {
		return err
	}
	*exec = next
	return nil
}

// deadline is the deadline of a transition's new state: the caller's,
// else the configuration's for running and waiting; nil while queued, and
// for an end, which keeps the last one for the record.
func (m *Machine) deadline(to string, now time.Time, ch Change) *time.Time {
	if ch.Deadline != nil || ch.ClearDeadline {
		return ch.Deadline
	}
	var d time.Time
	switch to {
	case ExecRunning:
		d = now.Add(m.ExecutionTimeout)
	case ExecWaitingInput, ExecWaitingApproval, ExecWaitingBudget:
		d = now.Add(m.WaitTimeout)
	default:
		return nil
	}
	return &d
}
