package jobs

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/kobana/kobana-mcp/platform/store"
)

// Organizational is implemented by the args of a kind whose jobs belong
// to one organization. Such a job does not start while its organization
// already runs its share of the kind's workers (Config.OrganizationShare)
// and another organization's job of the kind waits: it is snoozed briefly
// instead, so one organization's burst of a kind (thirty statement PDFs)
// leaves workers to the others' jobs of the kind. With nobody else
// waiting it runs: the share never leaves a worker idle (share_waiting.go).
type Organizational interface {
	OrganizationKey() string
}

// shareSnooze is how long a job over its organization's share waits
// before it is fetched again, plus up to as much again at random, so a
// burst of snoozed jobs does not come back at one instant. A snooze does
// not spend an attempt (river.JobSnooze), and one this short leaves the
// job available with a later scheduled_at, so jobs enqueued meanwhile by
// other organizations are fetched first.
const shareSnooze = time.Second

// orgKeyFunc reads a job's organization from its encoded args.
type orgKeyFunc func(encoded []byte) (string, error)

// newOrgKeyFunc returns the decoder of T's organization, nil when T
// declares none.
func newOrgKeyFunc[T river.JobArgs]() orgKeyFunc {
	var zero T
	if _, ok := any(zero).(Organizational); !ok {
		return nil
	}
	return func(encoded []byte) (string, error) {
		var args T
		if err := json.Unmarshal(encoded, &args); err != nil {
			return "", err
		}
		return any(args).(Organizational).OrganizationKey(), nil
	}
}

// share is how many jobs of kind one organization may run at once, across
// all replicas: Config.OrganizationShare, else half of this process's
// workers of the kind's queue, at least 1. (Counted across replicas
// against one process's workers: with several working replicas an
// organization gets less than half of the whole, never more.)
func (q *Queue) share(job *rivertype.JobRow) int {
	if q.cfg.OrganizationShare > 0 {
		return q.cfg.OrganizationShare
	}
	return max(1, q.queueWorkers[job.Queue]/2)
}

// overShare reports whether job's organization already runs its share of
// job's kind, and which other organizations do (busy). The count is
// River's own: for job's organization, the running rows of the kind that
// started before this one (by attempted_at, then id, so that of two jobs
// fetched together one runs); for the others, all their running rows of
// the kind; read from the shared database — the same on every replica.
// An error counts as not over: fairness is not worth failing a job.
func (q *Queue) overShare(ctx context.Context, job *rivertype.JobRow) (org string, over bool, busy []string) {
	q.mu.Lock()
	keyOf := q.orgKeys[job.Kind]
	q.mu.Unlock()
	if keyOf == nil {
		return "", false, nil
	}
	org, err := keyOf(job.EncodedArgs)
	if err != nil || org == "" {
		return "", false, nil
	}
	var running []struct {
		Args   []byte `db:"args"`
		Before bool   `db:"before"`
	}
	err = q.db.Select(ctx, &running, q.runningQuery(), job.ID, job.Queue, job.Kind)
	if err != nil {
		q.log.Warn("jobs: counting an organization's running jobs", "kind", job.Kind, "job_id", job.ID, "err", err)
		return "", false, nil
	}
	share := q.share(job)
	mine, others := 0, map[string]int{}
	for _, r := range running {
		other, err := keyOf(r.Args)
		switch {
		case err != nil || other == "":
		case other == org && r.Before:
			mine++
		case other != org:
			if others[other]++; others[other] == share {
				busy = append(busy, other)
			}
		}
	}
	return org, mine >= share, busy
}

// runningQuery reads the running jobs of a kind beside one of them (its
// id, queue and kind the parameters): their args, and whether each
// started before it. The queue is there for the index: River's
// (state, queue, …) fetching index then finds the few running rows. On
// kind alone SQLite chose River's kind index, which holds every job of
// the kind River keeps (completed ones for a day): the count grew with
// the day's volume and was a third of the Inbox intake's CPU in a burst
// of 4 000 e-mails (docs/performance.md, "A work-conserving organization
// share (issue 28)").
func (q *Queue) runningQuery() string {
	t := q.table("river_job")
	// River's SQLite driver stores args as binary JSONB: json() makes it
	// text again.
	args := "o.args"
	if q.db.Dialect() == store.SQLite {
		args = "json(o.args)"
	}
	return "SELECT " + args + " AS args, COALESCE(o.attempted_at < me.attempted_at OR (o.attempted_at = me.attempted_at AND o.id < me.id), false) AS before" +
		" FROM " + t + " o, " + t + " me WHERE me.id = ? AND o.state = 'running' AND o.queue = ? AND o.kind = ? AND o.id <> me.id"
}

// snoozeOverShare is the share check of an attempt: the snooze error when
// job must wait for its organization's running jobs, nil to run it. The
// share is work-conserving (docs/decisions.md, "A work-conserving
// organization share"): a job over its organization's share still runs
// when no other organization within its own share has a job of the kind
// waiting (othersWaiting; an organization over its share could not take
// the worker either), so a lone organization's burst uses every worker of
// the queue instead of being snoozed over and over.
func (q *Queue) snoozeOverShare(ctx context.Context, job *rivertype.JobRow) error {
	org, over, busy := q.overShare(ctx, job)
	if !over || !q.othersWaiting(ctx, job.Kind, append(busy, org)) {
		return nil
	}
	q.stats.snoozed.WithLabelValues(job.Kind).Inc()
	return river.JobSnooze(shareSnooze + rand.N(shareSnooze))
}
