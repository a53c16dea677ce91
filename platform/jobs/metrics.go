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
	rescued     *prometheus.CounterVec
	unknown     *prometheus.CounterVec
	quarantined *prometheus.CounterVec
	snoozed     *prometheus.CounterVec
	depthErrors prometheus.Counter
}

func newCounters() *counters {
	vec := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, []string{"kind"})
	}
	return &counters{
		completed:   vec("kobana_jobs_completed_total", "Jobs this process worked to completion, by kind."),
		failed:      vec("kobana_jobs_failed_total", "Job attempts in this process that returned an error or panicked, by kind (each retry counts)."),
		discarded:   vec("kobana_jobs_discarded_total", "Jobs this process gave up on after their last attempt failed, by kind."),
		cancelled:   vec("kobana_jobs_cancelled_total", "Jobs whose worker cancelled them (river.JobCancel) in this process, by kind."),
		rescued:     vec("kobana_jobs_rescued_total", "Jobs this process ran again after the leader rescued them from a worker that never finished them (its process died, or the job ran past RescueAfter), by kind."),
		unknown:     vec("kobana_jobs_calls_unknown_total", "Outbound calls of jobs (Queue.Call) whose outcome became unknown in this process: found started without an outcome, or cut off in flight, by kind."),
		quarantined: vec("kobana_jobs_quarantined_total", "Jobs this process stopped instead of running again because Config.MaxRescues of their attempts died with their process (or outlived RescueAfter), by kind."),
		snoozed:     vec("kobana_jobs_share_snoozed_total", "Attempts this process snoozed because their organization already ran its share of the kind's workers, by kind."),
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
	c.rescued.WithLabelValues(kind)
	c.unknown.WithLabelValues(kind)
	c.quarantined.WithLabelValues(kind)
	c.snoozed.WithLabelValues(kind)
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
// kobana_jobs_{completed,failed,discarded,cancelled,rescued}_total and
// kobana_jobs_calls_unknown_total, kobana_jobs_quarantined_total and
// kobana_jobs_share_snoozed_total by kind, which count what this process
// ran. Register it once per process, e.g. on observe.Metrics.Registry().
//
// Rescues are counted where the rescued job runs again, from the error
// River's rescuer appends to it: River reports no event when it rescues,
// and the rescue itself happens in whichever process leads. A rescued job
// that had no attempt left is discarded by the rescuer and not counted.
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
	s.rescued.Describe(ch)
	s.unknown.Describe(ch)
	s.quarantined.Describe(ch)
	s.snoozed.Describe(ch)
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
	s.rescued.Collect(ch)
	s.unknown.Collect(ch)
	s.quarantined.Collect(ch)
	s.snoozed.Collect(ch)
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

// rescuerError is the error River's rescuer appends to a job it rescues
// (river internal/maintenance, JobRescuer). The rescue test pins it: a
// River upgrade that rewords it fails that test rather than silently
// zeroing kobana_jobs_rescued_total.
const rescuerError = "Stuck job rescued by JobRescuer"

// rescued reports whether this attempt of job follows a rescue: its last
// error is the rescuer's, written for the attempt before this one.
func rescued(job *rivertype.JobRow) bool {
	if len(job.Errors) == 0 {
		return false
	}
	last := job.Errors[len(job.Errors)-1]
	return last.Error == rescuerError && last.Attempt == job.Attempt-1
}

// observeAttempt is the queue's worker middleware: it counts, and logs,
// the attempts that follow a rescue, quarantines a job rescued too often
// (quarantine.go) and snoozes one over its organization's share
// (share.go), before the worker runs.
func (q *Queue) observeAttempt(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	if stopped, err := q.quarantine(ctx, job); stopped {
		return err
	}
	if rescued(job) {
		q.stats.rescued.WithLabelValues(job.Kind).Inc()
		q.log.Warn("jobs: running a job again that a worker never finished (its process died, or the job ran past RescueAfter)",
			"kind", job.Kind, "job_id", job.ID, "attempt", job.Attempt)
	}
	if err := q.snoozeOverShare(ctx, job); err != nil {
		return err
	}
	return doInner(ctx)
}
