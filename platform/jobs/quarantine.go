package jobs

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// DefaultMaxRescues is how many times a job may be rescued — each attempt
// died with its process, or outlived RescueAfter — before the queue stops
// it instead of running it again: two crashes are a pattern, and a third
// run would kill a third process (issue 22: a Kadu expression that
// exhausted memory killed every process that picked its job up).
const DefaultMaxRescues = 2

// QuarantineReason is the reason a quarantined job's product object is
// failed with (Quarantiner) and the prefix of the error the job is
// cancelled with.
const QuarantineReason = "worker_crashed"

// Quarantiner is implemented by a kind's worker whose jobs are about a
// product object (an execution, a document, an export) that must end
// failed when its job is quarantined, rather than stay "running" for
// ever. Quarantined runs instead of Work on the attempt that follows the
// last allowed rescue, with the job's context; reason is QuarantineReason.
// An error leaves the job to be retried (and quarantined again) later; it
// must be idempotent like Work.
type Quarantiner[T river.JobArgs] interface {
	Quarantined(ctx context.Context, job *river.Job[T], reason string) error
}

// quarantineHook is a registered kind's Quarantiner, over the job's row.
type quarantineHook func(ctx context.Context, row *rivertype.JobRow, reason string) error

// newQuarantineHook returns w's hook, nil when w has none.
func newQuarantineHook[T river.JobArgs](w river.Worker[T]) quarantineHook {
	qr, ok := any(w).(Quarantiner[T])
	if !ok {
		return nil
	}
	return func(ctx context.Context, row *rivertype.JobRow, reason string) error {
		var args T
		if err := json.Unmarshal(row.EncodedArgs, &args); err != nil {
			return fmt.Errorf("jobs: quarantine %s: decode args: %w", row.Kind, err)
		}
		return qr.Quarantined(ctx, &river.Job[T]{JobRow: row, Args: args}, reason)
	}
}

// rescues counts the times River's rescuer took job back from a worker
// that never finished it: the errors it appended (rescuerError). They are
// in the job's row, so every process counts the same, whichever ran or
// rescued the attempts before.
func rescues(job *rivertype.JobRow) int {
	n := 0
	for _, e := range job.Errors {
		if e.Error == rescuerError {
			n++
		}
	}
	return n
}

// quarantine stops job, if it was rescued MaxRescues times, before its
// worker runs: the kind's Quarantiner fails the object it is about, the
// job is cancelled (river.JobCancel: never retried, kept for a week like
// the discarded ones) with the reason in its errors, and the queue counts
// and logs it. It reports whether the job was stopped, and the error the
// attempt returns then.
func (q *Queue) quarantine(ctx context.Context, job *rivertype.JobRow) (bool, error) {
	n := rescues(job)
	if q.cfg.MaxRescues < 0 || n < q.cfg.MaxRescues {
		return false, nil
	}
	q.mu.Lock()
	hook := q.hooks[job.Kind]
	q.mu.Unlock()
	if hook != nil {
		if err := hook(ctx, job, QuarantineReason); err != nil {
			q.log.Error("jobs: quarantining a job: its worker's hook failed, retrying later", "kind", job.Kind, "job_id", job.ID, "err", err)
			return true, err
		}
	}
	q.stats.quarantined.WithLabelValues(job.Kind).Inc()
	q.log.Error("jobs: job quarantined: its attempts keep dying with their process, it is not run again",
		"kind", job.Kind, "job_id", job.ID, "attempt", job.Attempt, "rescues", n, "hook", hook != nil)
	return true, river.JobCancel(fmt.Errorf("%s: quarantined after %d attempts that never finished (their process died, or they outlived RescueAfter)", QuarantineReason, n))
}
