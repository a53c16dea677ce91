package jobs

import (
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// AddWorker registers the worker of one job kind. Call before Start.
//
// Register every kind in every process, working or not: enqueuing a kind
// that has no worker fails (a typo in a kind, or a worker that was never
// wired, shows at the first insert, not as jobs that nobody runs).
//
// Jobs are delivered at least once: a worker can run twice for one job (a
// crash after the work but before the completion was recorded, a job
// rescued after Config.RescueAfter, a retry after an error that came
// after a side effect), so Work must be idempotent — check what was done
// before doing it, and make outbound calls through Queue.Call, which
// records each call before it is made and knows, on the next run, that
// one started and never finished has an unknown outcome.
//
// A job runs for at most its worker's Timeout (Config.JobTimeout, one
// minute by default, when the worker sets none): then its context is
// cancelled. Give every kind a timeout that fits its work; a negative one
// (no bound) is refused. Start reads each kind's Timeout once, with an
// empty job of the kind, and refuses to start unless Config.RescueAfter is
// longer than all of them, so Timeout must not depend on the job's
// arguments. A job is retried with backoff up to 25 attempts (the
// worker's NextRetry and the job's MaxAttempts change that), then
// discarded.
//
// A worker that implements Quarantiner fails the object its job is about
// when the job is quarantined (Config.MaxRescues); args that implement
// Queued run in their own queue, args that implement Organizational get
// their organization's share of the kind's workers
// (Config.OrganizationShare).
//
// It panics on a second worker for the same kind, a kind River refuses,
// or a call after Start: all are wiring mistakes of the program.
func AddWorker[T river.JobArgs](q *Queue, w river.Worker[T]) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var args T
	if q.state != created {
		panic(fmt.Sprintf("jobs: AddWorker(%s) after Start", args.Kind()))
	}
	if err := river.AddWorkerSafely(q.workers, w); err != nil {
		panic(fmt.Sprintf("jobs: AddWorker(%s): %v", args.Kind(), err))
	}
	kind := args.Kind()
	q.kinds = append(q.kinds, kind)
	q.timeouts = append(q.timeouts, kindTimeout{kind: kind, timeout: func() time.Duration {
		return w.Timeout(&river.Job[T]{JobRow: &rivertype.JobRow{Kind: kind}})
	}})
	if hook := newQuarantineHook(w); hook != nil {
		q.hooks[kind] = hook
	}
	if keyOf := newOrgKeyFunc[T](); keyOf != nil {
		q.orgKeys[kind] = keyOf
	}
	q.stats.init(kind)
}

// AddPeriodic runs a job on a schedule (monthly usage reset, purge).
// Call before Start.
//
// Only one process runs the schedules: the River leader, elected among
// the working queues (Config.Work) on the database, so every working
// process should add the same periodic jobs; an insert-only queue ignores
// them. construct is called at each tick and must not block; it may
// return nil args to skip that tick. runOnStart also enqueues one job
// whenever a process becomes leader.
//
// The schedule lives in the leader's memory: a restart or a new leader
// starts it over from the current time, so a long interval
// (river.PeriodicInterval(30*24*time.Hour)) may never elapse on a
// service that restarts more often. Prefer calendar schedules such as
// MonthlyUTC and DailyUTC, whose next run does not depend on when the
// leader started, and make the job idempotent for its period: a change of
// leader can enqueue one tick twice (or pass InsertOpts with UniqueOpts
// ByPeriod from construct).
func (q *Queue) AddPeriodic(schedule river.PeriodicSchedule, construct func() (river.JobArgs, *river.InsertOpts), runOnStart bool) {
	if !q.cfg.Work || q.cfg.leaderless {
		return
	}
	q.client.PeriodicJobs().Add(river.NewPeriodicJob(schedule, construct, &river.PeriodicJobOpts{RunOnStart: runOnStart}))
}
