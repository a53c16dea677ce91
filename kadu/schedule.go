package kadu

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	// Schedules are read in named zones (America/Sao_Paulo by default):
	// the zone database is embedded so they work on hosts without one.
	_ "time/tzdata"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// scheduleLookback is how far back a tick may be and still run: a tick
// the scheduler could not see for longer (every replica down) is dropped,
// never run late in a burst.
const scheduleLookback = 10 * time.Minute

// maxTicksPerRun bounds the ticks one task queues in one scheduler run.
const maxTicksPerRun = 10

// Outcomes of a schedule tick.
const (
	tickQueued  = "queued"
	tickSkipped = "skipped"
)

// scheduleTickArgs start one run of the scheduler.
type scheduleTickArgs struct{}

// Kind names the job.
func (scheduleTickArgs) Kind() string { return "kadu.schedule_tick" }

// expireArgs start one run of the timeouts sweep.
type expireArgs struct{}

// Kind names the job.
func (expireArgs) Kind() string { return "kadu.expire_executions" }

type scheduleWorker struct {
	river.WorkerDefaults[scheduleTickArgs]
	s *service
}

// Timeout bounds one scheduler run, below the queue's rescue time.
func (*scheduleWorker) Timeout(*river.Job[scheduleTickArgs]) time.Duration { return 50 * time.Second }

// Work queues the executions of every tick due now.
func (w *scheduleWorker) Work(ctx context.Context, _ *river.Job[scheduleTickArgs]) error {
	_, err := w.s.runSchedules(ctx, w.s.clock())
	return err
}

type expireWorker struct {
	river.WorkerDefaults[expireArgs]
	s *service
}

// Timeout bounds one sweep.
func (*expireWorker) Timeout(*river.Job[expireArgs]) time.Duration { return 50 * time.Second }

// Work ends the executions past their deadline.
func (w *expireWorker) Work(ctx context.Context, _ *river.Job[expireArgs]) error {
	_, err := w.s.expireExecutions(ctx, w.s.clock())
	return err
}

// registerSchedules adds the scheduler and the timeouts sweep: every
// minute, on the queue's leader. Both are safe to run twice for the same
// minute (a change of leader): the tick's row is unique, and a
// transition applies once.
func registerSchedules(s *service, q *jobs.Queue) {
	jobs.AddWorker(q, &scheduleWorker{s: s})
	jobs.AddWorker(q, &expireWorker{s: s})
	q.AddPeriodic(river.PeriodicInterval(time.Minute), func() (river.JobArgs, *river.InsertOpts) {
		return scheduleTickArgs{}, nil
	}, true)
	q.AddPeriodic(river.PeriodicInterval(time.Minute), func() (river.JobArgs, *river.InsertOpts) {
		return expireArgs{}, nil
	}, true)
}

// tickResult is what one scheduler run did, for tests and logs.
type tickResult struct {
	Queued, Skipped int
}

// runSchedules handles, for each active task with a schedule, every tick
// due at now (back to scheduleLookback, never before the schedule was
// set or the task resumed): each tick is one row of kadu_schedule_ticks,
// whose primary key lets exactly one scheduler — of however many
// replicas and runs — handle it, queueing one execution or recording
// why it was skipped.
func (s *service) runSchedules(ctx context.Context, now time.Time) (tickResult, error) {
	var res tickResult
	tasks, errs, err := records.ScheduledTasks(ctx, s.db)
	if err != nil {
		return res, err
	}
	// Each organization's calendar is read once per run, and only for
	// tasks with a business-day rule.
	calendars := map[string]*bankcalendar.Calendar{}
	for _, t := range tasks {
		rule := restkit.Deref(t.ScheduleBusinessDay)
		var cal *bankcalendar.Calendar
		if rule != "" {
			if cal = calendars[t.OrganizationID]; cal == nil {
				if cal, err = s.orgCalendar(ctx, s.db, t.OrganizationID); err != nil {
					errs = append(errs, fmt.Errorf("kadu: task %s: calendar: %w", t.ID, err))
					continue
				}
				calendars[t.OrganizationID] = cal
			}
		}
		sched, err := parseTaskSchedule(*t.ScheduleCron, restkit.Deref(t.ScheduleTimezone), rule, cal)
		if err != nil {
			continue // saved before a stricter check: never ticks
		}
		from := now.Add(-scheduleLookback)
		since := t.CreatedAt
		if t.ScheduleSince != nil {
			since = *t.ScheduleSince
		}
		if since.After(from) {
			from = since
		}
		tick := sched.Next(from.Add(-time.Nanosecond))
		for n := 0; n < maxTicksPerRun && !tick.IsZero() && !tick.After(now); n++ {
			outcome, err := s.handleTick(ctx, t.OrganizationID, t.ID, tick.UTC())
			switch {
			case err != nil:
				errs = append(errs, fmt.Errorf("kadu: task %s tick %s: %w", t.ID, tick.Format(time.RFC3339), err))
			case outcome == tickQueued:
				res.Queued++
			case outcome == tickSkipped:
				res.Skipped++
			}
			tick = sched.Next(tick)
		}
	}
	return res, errors.Join(errs...)
}

// handleTick claims one tick of a task and queues its execution, in one
// transaction: the tick's row, the execution and its job commit together
// or not at all. It answers "" when the tick was already handled (by
// another replica, or an earlier run), or the task is no longer active.
func (s *service) handleTick(ctx context.Context, orgID, taskID string, tick time.Time) (string, error) {
	outcome := ""
	err := s.db.WithTx(ctx, func(tx *store.Tx) error {
		t, err := records.LockTask(ctx, tx, orgID, taskID)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if t.Status != records.TaskActive || t.ScheduleCron == nil {
			return nil
		}
		now := s.clock()
		claimed, err := records.ClaimTick(ctx, tx, t, tick, now)
		if err != nil || !claimed {
			return err // handled already
		}
		skip := func(reason string) error {
			outcome = tickSkipped
			return records.SkipTick(ctx, tx, t.ID, tick, reason)
		}
		active, err := records.ActiveExecutionsOfTask(ctx, tx, t.OrganizationID, t.ID)
		if err != nil {
			return err
		}
		if active > 0 {
			return skip("the previous execution of the task is still active")
		}
		owner := t.OwnerUserID
		e, err := s.queueExecution(ctx, tx, t, runRequest{Trigger: records.TriggerSchedule, TriggeredBy: &owner, TickAt: &tick})
		var refusal *rest.Error
		if errors.As(err, &refusal) {
			return skip(refusal.Code + ": " + refusal.Message)
		}
		if err != nil {
			return err
		}
		outcome = tickQueued
		return records.SetTickExecution(ctx, tx, t.ID, tick, e.ID)
	})
	if err != nil {
		return "", err
	}
	return outcome, nil
}

// maxExpiredPerRun bounds one sweep; the next minute takes the rest.
const maxExpiredPerRun = 500

// expireExecutions ends the executions past their deadline: running ones
// timed_out, waiting ones failed with the reason, those waiting for their
// budget cost_exceeded. An execution another
// process moved meanwhile is left to it.
func (s *service) expireExecutions(ctx context.Context, now time.Time) (int, error) {
	due, err := records.PastDeadline(ctx, s.db, now, maxExpiredPerRun)
	if err != nil {
		return 0, err
	}
	n := 0
	var errs []error
	for _, e := range due {
		to, code, msg := records.ExecFailed, "", ""
		switch e.Status {
		case records.ExecRunning:
			to, code, msg = records.ExecTimedOut, "timed_out", fmt.Sprintf("the execution ran past its limit of %s", s.cfg.ExecutionTimeout)
		case records.ExecWaitingInput:
			code, msg = "input_timeout", fmt.Sprintf("nobody gave the input it waited for within %s", s.cfg.WaitTimeout)
		case records.ExecWaitingApproval:
			code, msg = "approval_timeout", fmt.Sprintf("nobody decided on the approval it waited for within %s", s.cfg.WaitTimeout)
		case records.ExecWaitingBudget:
			// As a ceiling ended an execution before budgets paused.
			to, code, msg = records.ExecCostExceeded, "cost_exceeded", fmt.Sprintf("nobody raised the ceiling or approved the overrun within %s: %s",
				s.cfg.WaitTimeout, budgetWaitMessage(e))
		}
		err := s.machine.Transition(ctx, s.db, e, to, records.Change{ErrorCode: &code, ErrorMessage: &msg})
		switch {
		case errors.Is(err, records.ErrStaleExecution):
		case err != nil:
			errs = append(errs, err)
		default:
			n++
		}
	}
	return n, errors.Join(errs...)
}
