package jobs

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
)

// Defaults of Config.
const (
	// DefaultConcurrency is how many jobs a working process runs at once.
	DefaultConcurrency = 10
	// DefaultPollInterval is how often a worker looks for jobs that no
	// notification announced (jobs enqueued by another process on
	// PostgreSQL, or inside a transaction).
	DefaultPollInterval = time.Second
	// MinPollInterval is River's floor for the poll interval; a shorter
	// one is raised to it.
	MinPollInterval = river.FetchPollIntervalMin
)

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
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c, nil
}

// riverConfig is the River client configuration of q: workers on the
// default queue when Config.Work, an insert-only client otherwise.
func (q *Queue) riverConfig() *river.Config {
	rc := &river.Config{
		Logger:  q.log.With("component", "jobs"),
		Schema:  q.schema,
		Workers: q.workers,
	}
	if q.cfg.Work {
		rc.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: q.cfg.Concurrency}}
		rc.FetchPollInterval = q.cfg.PollInterval
		// River refuses a poll interval shorter than the pause between
		// fetches (100 ms by default): a short poll shortens the pause.
		rc.FetchCooldown = min(river.FetchCooldownDefault, q.cfg.PollInterval)
	}
	return rc
}
