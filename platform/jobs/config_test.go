package jobs

import (
	"testing"
	"time"
)

func TestConfigDefaultsAndLimits(t *testing.T) {
	c, err := Config{}.withDefaults()
	if err != nil || c.Concurrency != DefaultConcurrency || c.PollInterval != DefaultPollInterval || c.Logger == nil {
		t.Errorf("zero Config = %+v, %v; want the defaults", c, err)
	}
	if c, _ := (Config{PollInterval: time.Nanosecond}).withDefaults(); c.PollInterval != MinPollInterval {
		t.Errorf("a poll interval under River's floor became %s, want %s", c.PollInterval, MinPollInterval)
	}
	for _, bad := range []Config{{Concurrency: -1}, {Concurrency: 10_001}, {PollInterval: -time.Second}} {
		if _, err := bad.withDefaults(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	// River refuses a poll interval shorter than its fetch cooldown: a
	// short poll must shorten the cooldown with it.
	q := &Queue{cfg: Config{Work: true, Concurrency: 3, PollInterval: 10 * time.Millisecond}, log: c.Logger}
	rc := q.riverConfig()
	if rc.FetchCooldown > rc.FetchPollInterval || rc.Queues["default"].MaxWorkers != 3 {
		t.Errorf("river config: cooldown %s, poll %s, queues %+v", rc.FetchCooldown, rc.FetchPollInterval, rc.Queues)
	}
	if rc := (&Queue{cfg: Config{}, log: c.Logger}).riverConfig(); len(rc.Queues) != 0 {
		t.Errorf("an insert-only queue has queues %+v", rc.Queues)
	}
}
