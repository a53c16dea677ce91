package jobs

import (
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/platform/store"
)

// Defaults of Config.
const (
	// DefaultConcurrency is how many jobs a working process runs at once.
	DefaultConcurrency = 10
	// DefaultPollInterval is how often a worker looks for jobs that no
	// notification announced, on SQLite (where every fetch takes the
	// writer's lock).
	DefaultPollInterval = time.Second
	// DefaultPollIntervalPostgres is the same on PostgreSQL, where a fetch
	// is a cheap indexed read: the insert notifications of a busy
	// insert-only process (serve --jobs=off) are spaced by River, so the
	// last jobs of a burst are announced by none and wait for the poll
	// (docs/decisions.md, "Inbox intake on PostgreSQL").
	DefaultPollIntervalPostgres = 100 * time.Millisecond
	// MinPollInterval is River's floor for the poll interval; a shorter
	// one is raised to it.
	MinPollInterval = river.FetchPollIntervalMin
	// DefaultJobTimeout bounds a job whose worker sets no Timeout of its
	// own (River's default too).
	DefaultJobTimeout = river.JobTimeoutDefault
	// DefaultRescueAfter is how long a job may run before the leader
	// treats it as stuck (its process died) and retries it elsewhere:
	// longer than the project's longest job (an Inbox e-mail's
	// processing, 3 minutes), short enough that a replica killed mid-job
	// delays its work by minutes, not River's default hour.
	DefaultRescueAfter = 5 * time.Minute
)

// defaultPollInterval is the engine's DefaultPollInterval.
func defaultPollInterval(d store.Dialect) time.Duration {
	if d == store.Postgres {
		return DefaultPollIntervalPostgres
	}
	return DefaultPollInterval
}

// withDefaults fills the zero fields and checks the rest against River's
// limits, so a bad value fails New with a message rather than a River
// validation error at Start.
func (c Config) withDefaults() (Config, error) {
	switch {
	case c.Concurrency == 0:
		c.Concurrency = DefaultConcurrency
	case c.Concurrency < 0 || c.Concurrency > river.QueueNumWorkersMax:
		return c, fmt.Errorf("jobs: Concurrency %d: want 1 to %d", c.Concurrency, river.QueueNumWorkersMax)
	}
	switch {
	case c.PollInterval == 0:
		c.PollInterval = DefaultPollInterval
	case c.PollInterval < 0:
		return c, fmt.Errorf("jobs: PollInterval %s is negative", c.PollInterval)
	case c.PollInterval < MinPollInterval:
		c.PollInterval = MinPollInterval
	}
	switch {
	case c.JobTimeout == 0:
		c.JobTimeout = DefaultJobTimeout
	case c.JobTimeout < 0:
		return c, fmt.Errorf("jobs: JobTimeout %s: every job needs a positive bound (a job without one could never be rescued)", c.JobTimeout)
	}
	switch {
	case c.RescueAfter == 0:
		c.RescueAfter = DefaultRescueAfter
	case c.RescueAfter < 0:
		return c, fmt.Errorf("jobs: RescueAfter %s is negative", c.RescueAfter)
	}
	if c.RescueAfter <= c.JobTimeout {
		return c, fmt.Errorf("jobs: RescueAfter %s must be longer than JobTimeout %s: a job is stuck only once it has outlived its timeout", c.RescueAfter, c.JobTimeout)
	}
	if c.MaxRescues == 0 {
		c.MaxRescues = DefaultMaxRescues
	}
	if c.OrganizationShare < 0 {
		return c, fmt.Errorf("jobs: OrganizationShare %d is negative", c.OrganizationShare)
	}
	if err := checkQueueWorkers(c.QueueWorkers); err != nil {
		return c, err
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c, nil
}

// kindTimeout is how a registered kind's timeout is read at Start: by
// asking its worker with an empty job of that kind.
type kindTimeout struct {
	kind    string
	timeout func() time.Duration
}

// checkTimeouts resolves every registered kind's timeout (the worker's
// Timeout, JobTimeout when it returns zero) and checks that RescueAfter
// is longer than each, so that the leader never rescues a job that is
// still within its own time. River's rescuer would not rescue such a job
// anyway (it waits for the kind's own timeout), but RescueAfter would
// then not be the bound the operator set. It reports the longest.
func (q *Queue) checkTimeouts() (time.Duration, error) {
	var longest time.Duration
	for _, kt := range q.timeouts {
		d := kt.timeout()
		switch {
		case d == 0:
			d = q.cfg.JobTimeout
		case d < 0:
			return 0, fmt.Errorf("jobs: %s has no timeout (its worker's Timeout is %s): every job needs a bound, or one whose process died could never be rescued", kt.kind, d)
		}
		if d >= q.cfg.RescueAfter {
			return 0, fmt.Errorf("jobs: RescueAfter %s must be longer than the timeout of %s (%s): raise RescueAfter or shorten the job", q.cfg.RescueAfter, kt.kind, d)
		}
		longest = max(longest, d)
	}
	return longest, nil
}

// fetchCooldown is the shortest pause between two fetches of a worker,
// and between two of River's insert notifications of a queue: an insert
// within it of the previous one sends none, counting on the fetch the
// previous one triggered, so a job enqueued alone soon after another one
// that already started waits for the next poll. 2 ms on PostgreSQL, where
// the notification is a NOTIFY and a fetch a cheap indexed read; 10 ms on
// SQLite, where every fetch takes the writer's lock.
func fetchCooldown(d store.Dialect) time.Duration {
	if d == store.Postgres {
		return 2 * time.Millisecond
	}
	return 10 * time.Millisecond
}

// riverConfig is the River client configuration of q: workers on the
// project's queues (queues.go) when Config.Work, an insert-only client
// otherwise.
func (q *Queue) riverConfig() *river.Config {
	rc := &river.Config{
		Logger:               q.log.With("component", "jobs"),
		Schema:               q.schema,
		Workers:              q.workers,
		JobTimeout:           q.cfg.JobTimeout,
		RescueStuckJobsAfter: q.cfg.RescueAfter,
		Middleware:           q.middleware(),
	}
	if q.cfg.Work && q.cfg.leaderless {
		rc.LeaderElectionDisabled = true
	}
	if q.cfg.Work {
		rc.Queues = map[string]river.QueueConfig{}
		for name, n := range q.queueWorkers {
			if q.cfg.onlyQueues == nil || slices.Contains(q.cfg.onlyQueues, name) {
				rc.Queues[name] = river.QueueConfig{MaxWorkers: n}
			}
		}
		rc.FetchPollInterval = q.cfg.PollInterval
		// The pause between two fetches, which also spaces River's insert
		// notifications (fetchCooldown; River's default of 100 ms made the
		// median enqueue-to-start wait 100 ms, BenchmarkEnqueueToStart).
		// River refuses a poll interval shorter than it.
		engine := store.SQLite
		if q.db != nil {
			engine = q.db.Dialect()
		}
		rc.FetchCooldown = min(fetchCooldown(engine), q.cfg.PollInterval)
	}
	return rc
}
