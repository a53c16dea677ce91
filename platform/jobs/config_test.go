package jobs

import (
	"context"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

func TestConfigDefaultsAndLimits(t *testing.T) {
	t.Parallel()
	c, err := Config{}.withDefaults()
	if err != nil || c.Concurrency != DefaultConcurrency || c.PollInterval != DefaultPollInterval || c.Logger == nil ||
		c.JobTimeout != DefaultJobTimeout || c.RescueAfter != DefaultRescueAfter {
		t.Errorf("zero Config = %+v, %v; want the defaults", c, err)
	}
	if DefaultRescueAfter >= time.Hour || DefaultRescueAfter <= DefaultJobTimeout {
		t.Errorf("DefaultRescueAfter %s: want minutes, longer than the default job timeout", DefaultRescueAfter)
	}
	if c, _ := (Config{PollInterval: time.Nanosecond}).withDefaults(); c.PollInterval != MinPollInterval {
		t.Errorf("a poll interval under River's floor became %s, want %s", c.PollInterval, MinPollInterval)
	}
	for _, bad := range []Config{
		{Concurrency: -1}, {Concurrency: 10_001}, {PollInterval: -time.Second},
		{JobTimeout: -1}, // River's "no timeout": such a job could never be rescued
		{RescueAfter: -time.Second},
		{RescueAfter: time.Minute},                              // not longer than the default job timeout
		{JobTimeout: 10 * time.Minute},                          // longer than the default rescue
		{JobTimeout: time.Second, RescueAfter: time.Second},     // equal
		{JobTimeout: 2 * time.Second, RescueAfter: time.Second}, // shorter
	} {
		if _, err := bad.withDefaults(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	// River refuses a poll interval shorter than its fetch cooldown: a
	// short poll must shorten the cooldown with it.
	q := &Queue{cfg: Config{Work: true, Concurrency: 10, PollInterval: 10 * time.Millisecond}, log: c.Logger, queueWorkers: queueWorkers(10, nil)}
	rc := q.riverConfig()
	if rc.FetchCooldown > rc.FetchPollInterval || rc.Queues["default"].MaxWorkers != 4 || rc.Queues[QueueDocuments].MaxWorkers != 2 {
		t.Errorf("river config: cooldown %s, poll %s, queues %+v", rc.FetchCooldown, rc.FetchPollInterval, rc.Queues)
	}
	// The rescue time and the default timeout reach River.
	q.cfg.JobTimeout, q.cfg.RescueAfter = 2*time.Second, 3*time.Second
	if rc := q.riverConfig(); rc.JobTimeout != 2*time.Second || rc.RescueStuckJobsAfter != 3*time.Second || rc.LeaderElectionDisabled {
		t.Errorf("river config: job timeout %s, rescue after %s, leader election disabled %v", rc.JobTimeout, rc.RescueStuckJobsAfter, rc.LeaderElectionDisabled)
	}
	if rc := (&Queue{cfg: Config{}, log: c.Logger}).riverConfig(); len(rc.Queues) != 0 {
		t.Errorf("an insert-only queue has queues %+v", rc.Queues)
	}
}

// TestPollIntervalPerEngine: without a poll interval, a queue polls every
// 100 ms on PostgreSQL (a job that no notification announced waits no
// longer) and every second on SQLite, where a fetch takes the writer's
// lock; one given is kept on both, and reaches River.
func TestPollIntervalPerEngine(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		q, err := New(context.Background(), db, Config{Work: true, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		want := DefaultPollInterval
		if db.Dialect() == store.Postgres {
			want = DefaultPollIntervalPostgres
		}
		if q.cfg.PollInterval != want || q.riverConfig().FetchPollInterval != want {
			t.Errorf("poll interval %s (River %s), want %s", q.cfg.PollInterval, q.riverConfig().FetchPollInterval, want)
		}
		q, err = New(context.Background(), db, Config{Work: true, PollInterval: 3 * time.Second, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		if q.cfg.PollInterval != 3*time.Second {
			t.Errorf("a given poll interval became %s", q.cfg.PollInterval)
		}
	})
}
