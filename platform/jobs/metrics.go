package jobs

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// depthTimeout bounds the queue-depth query of a scrape: a slow database
// costs the scrape that metric, not the whole scrape.
const depthTimeout = 2 * time.Second

// depthStates are the states the depth gauge reports: work waiting or in
// progress. Finished jobs (completed, discarded, cancelled) are counted by
// the counters instead, and are deleted by River after a while.
var depthStates = []rivertype.JobState{
	rivertype.JobStateAvailable,
	rivertype.JobStateScheduled,
	rivertype.JobStateRetryable,
	rivertype.JobStateRunning,
}

var depthDesc = prometheus.NewDesc("kobana_jobs_depth",
	"Jobs in the database by state (available, scheduled, retryable, running) and kind, read at scrape time; all replicas report the same shared queue.",
	[]string{"state", "kind"}, nil)

// counters are the job outcomes this process observed, from River's
// event subscription (so only where jobs run).
type counters struct {
	completed   *prometheus.CounterVec
	failed      *prometheus.CounterVec
	discarded   *prometheus.CounterVec
	cancelled   *prometheus.CounterVec
	depthErrors prometheus.Counter
}

func newCounters() *counters {
	vec := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, []string{"kind"})
	}
	return &counters{
		completed: vec("kobana_jobs_completed_total", "Jobs this process worked to completion, by kind."),
		failed:    vec("kobana_jobs_failed_total", "Job attempts in this process that returned an error or panicked, by kind (each retry counts)."),
		discarded: vec("kobana_jobs_discarded_total", "Jobs this process gave up on after their last attempt failed, by kind."),
		cancelled: vec("kobana_jobs_cancelled_total", "Jobs whose worker cancelled them (river.JobCancel) in this process, by kind."),
		depthErrors: prometheus.NewCounter(prometheus.CounterOpts{Name: "kobana_jobs_depth_errors_total",
			Help: "Scrapes whose queue-depth query failed or timed out (kobana_jobs_depth is missing from them)."}),
	}
}

// init makes a kind's counters exist at zero, so rates and alerts see the
// kind before its first job ends.
func (c *counters) init(kind string) {
	c.completed.WithLabelValues(kind)
	c.failed.WithLabelValues(kind)
	c.discarded.WithLabelValues(kind)
	c.cancelled.WithLabelValues(kind)
}

// count consumes River's job events until River closes the channel.
func (c *counters) count(events <-chan *river.Event, done chan<- struct{}) {
	defer close(done)
	for ev := range events {
		if ev.Job == nil {
			continue
		}
		kind := ev.Job.Kind
		switch ev.Kind {
		case river.EventKindJobCompleted:
			c.completed.WithLabelValues(kind).Inc()
		case river.EventKindJobFailed:
			c.failed.WithLabelValues(kind).Inc()
			if ev.Job.State == rivertype.JobStateDiscarded {
				c.discarded.WithLabelValues(kind).Inc()
			}
		case river.EventKindJobCancelled:
			c.cancelled.WithLabelValues(kind).Inc()
		}
	}
}

// Collector exports the queue's metrics to Prometheus: kobana_jobs_depth
// (jobs by state and kind, read from the database with one GROUP BY at
// each scrape, bounded by a 2 s timeout) and the counters
// kobana_jobs_{completed,failed,discarded,cancelled}_total by kind, which
// count what this process ran. Register it once per process, e.g. on
// observe.Metrics.Registry().
//
// The counters come from River's event stream, which drops events (with
// a logged warning) if more than 10,000 finish faster than they are
// counted; they are for rates and alerts, not accounting.
func (q *Queue) Collector() prometheus.Collector { return collector{q} }

type collector struct{ q *Queue }

// Describe implements prometheus.Collector.
func (c collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- depthDesc
	s := c.q.stats
	s.completed.Describe(ch)
	s.failed.Describe(ch)
	s.discarded.Describe(ch)
	s.cancelled.Describe(ch)
	s.depthErrors.Describe(ch)
}

// Collect implements prometheus.Collector.
func (c collector) Collect(ch chan<- prometheus.Metric) {
	c.q.collectDepth(ch)
	s := c.q.stats
	s.completed.Collect(ch)
	s.failed.Collect(ch)
	s.discarded.Collect(ch)
	s.cancelled.Collect(ch)
	s.depthErrors.Collect(ch)
}

// collectDepth reports the depth gauge: every state of every registered
// kind (zero when it has no job, so the series do not come and go), plus
// any other kind found in the table.
func (q *Queue) collectDepth(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), depthTimeout)
	defer cancel()
	var rows []struct {
		State string `db:"state"`
		Kind  string `db:"kind"`
		N     int64  `db:"n"`
	}
	err := q.db.Select(ctx, &rows, "SELECT CAST(state AS TEXT) AS state, kind, COUNT(*) AS n FROM "+q.table("river_job")+
		" WHERE state IN ('available', 'scheduled', 'retryable', 'running') GROUP BY state, kind")
	if err != nil {
		q.stats.depthErrors.Inc()
		q.log.Warn("jobs: queue depth for metrics", "err", err)
		return
	}
	type key struct{ state, kind string }
	depth := map[key]int64{}
	q.mu.Lock()
	for _, kind := range q.kinds {
		for _, st := range depthStates {
			depth[key{string(st), kind}] = 0
		}
	}
	q.mu.Unlock()
	for _, r := range rows {
		depth[key{r.State, r.Kind}] = r.N
	}
	for k, n := range depth {
		ch <- prometheus.MustNewConstMetric(depthDesc, prometheus.GaugeValue, float64(n), k.state, k.kind)
	}
}
