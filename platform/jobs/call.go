package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
)

// Outbound calls of jobs.
//
// A job runs at least once: after a crash, a rescue or a stop that cut it
// off, it runs again from the start. Work on the database is made safe by
// checking what was already done; a call to the outside world (an SMS, an
// e-mail, a payment order) cannot be checked that way, and a worker that
// died in the middle of one cannot say whether it happened. Queue.Call
// makes such calls in three steps — record the call as started, committed,
// before making it; make it; record its outcome — so the next run of the
// job knows the difference between a call that never started, one that
// finished, and one that started and never finished: its outcome is
// unknown. What happens to an unknown call is the caller's policy
// (CallPolicy), never a blind repeat.
//
// The record lives in the job's own row (River's metadata, one key per
// call), written through River's driver, so it needs no table of its own
// and lasts exactly as long as the job can run again. It is the job's
// memory, not the product's: a worker that must show the outcome to
// someone (a message marked "delivery unknown") records that in its own
// tables as well.

// CallPolicy says what Queue.Call does when the call's last attempt has an
// unknown outcome.
type CallPolicy int

const (
	// ResendUnknown makes the call again: at least once, for receivers
	// that recognise a repeat (a webhook carrying its delivery id). The
	// unknown attempt stays counted in the record.
	ResendUnknown CallPolicy = iota + 1
	// NeverResendUnknown never repeats a call whose outcome is unknown:
	// at most once, for what reaches a person (an SMS, an e-mail), where a
	// duplicate does more harm than a gap. Call returns ErrOutcomeUnknown
	// instead, and the worker records the unknown outcome where someone
	// can decide (resending is then a new call, under a new key).
	NeverResendUnknown
)

// String names the policy in logs.
func (p CallPolicy) String() string {
	switch p {
	case ResendUnknown:
		return "resend-unknown"
	case NeverResendUnknown:
		return "never-resend-unknown"
	}
	return fmt.Sprintf("CallPolicy(%d)", int(p))
}

// CallState is where an outbound call stands.
type CallState string

// States of a call.
const (
	// CallStarted: an attempt was recorded as started and has no outcome
	// yet. Seen by a later run, it means the run making it stopped in the
	// middle (a process that died, a job cut off at shutdown): the next
	// Call records it as unknown.
	CallStarted CallState = "started"
	// CallSucceeded: the call did what it was for. Call never makes it
	// again, whatever the policy.
	CallSucceeded CallState = "succeeded"
	// CallFailed: the last attempt certainly had no effect (its function
	// returned an error wrapped by NotPerformed), so the call may be made
	// again.
	CallFailed CallState = "failed"
	// CallUnknown: the last attempt may or may not have taken effect.
	CallUnknown CallState = "unknown"
)

// CallRecord is what the job remembers of one outbound call.
type CallRecord struct {
	// State is the outcome of the latest attempt, or CallStarted while it
	// has none.
	State CallState `json:"state"`
	// Attempts counts the attempts started, Unknown those of them whose
	// outcome is unknown.
	Attempts int `json:"attempts"`
	Unknown  int `json:"unknown"`
	// StartedAt is when the latest attempt started; FinishedAt when its
	// outcome was recorded (nil while CallStarted).
	StartedAt  time.Time  `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at"`
	// Error is the latest attempt's error ("" when it succeeded), or why
	// its outcome is unknown.
	Error string `json:"error"`
}

// ErrOutcomeUnknown is wrapped by Call's error when the call's outcome is
// unknown: under NeverResendUnknown when it was not made again for that
// reason, and under either policy when the attempt just made ended in an
// error that does not say the call had no effect.
var ErrOutcomeUnknown = errors.New("jobs: the outbound call's outcome is unknown")

// NotPerformed marks a call function's error as certain to have had no
// effect: the request never left (refused before sending, an invalid
// address) or the other side answered that it did nothing (a 4xx that
// means "not accepted"). Call records such an attempt as CallFailed, and
// a later Call makes it again. Any other error leaves the outcome
// unknown, because the other side may have acted before the error.
func NotPerformed(err error) error {
	if err == nil {
		return nil
	}
	return notPerformed{err}
}

type notPerformed struct{ err error }

func (e notPerformed) Error() string { return e.err.Error() }
func (e notPerformed) Unwrap() error { return e.err }

// callKeyPrefix marks the job metadata keys that hold call records (River
// reserves "river:" for its own).
const callKeyPrefix = "kobana:call:"

// maxCallKey bounds a call key: it is a metadata key, not data.
const maxCallKey = 200

// CallOf returns the record of call key kept in job's row, and whether the
// job has one.
func CallOf(job *rivertype.JobRow, key string) (CallRecord, bool) {
	var meta map[string]json.RawMessage
	if job == nil || json.Unmarshal(job.Metadata, &meta) != nil {
		return CallRecord{}, false
	}
	raw, ok := meta[callKeyPrefix+key]
	if !ok {
		return CallRecord{}, false
	}
	var rec CallRecord
	if json.Unmarshal(raw, &rec) != nil {
		return CallRecord{}, false
	}
	return rec, true
}

// Call makes the outbound call named key on behalf of the running job,
// recording it in the job's row so a later run of the job — after a
// crash, a rescue, a stop that cut it off, a retry — never repeats it
// blindly. Call it from a worker of this queue with the job River gave
// the worker (job.JobRow); key names the call within the job ("sms",
// "notify:<recipient>"). call receives its attempt number (1 for the
// first) and returns nil when the call did what it was for,
// NotPerformed(err) when it certainly did nothing, or any other error
// when the outcome is unknown.
//
// What Call does depends on the record an earlier run left:
//
//   - none, or CallFailed: record the attempt as started (committed before
//     call runs; if that fails, call does not run), run call, record its
//     outcome;
//   - CallSucceeded: nothing; it returns the record;
//   - CallStarted (the earlier run stopped in the middle): record that
//     attempt as unknown, then as for CallUnknown;
//   - CallUnknown: under ResendUnknown make the call again, as above;
//     under NeverResendUnknown do nothing and return ErrOutcomeUnknown.
//
// The outcome is recorded even when ctx has been cancelled meanwhile (a
// stop cut the job off), so a call cut off in flight is unknown from the
// start. Call's error is call's own (wrapped with ErrOutcomeUnknown when
// the outcome is unknown), a database error recording the call, or
// ErrOutcomeUnknown alone when the policy kept Call from trying. Call
// keeps job.Metadata current, so a second Call with the same key in the
// same run sees the first.
//
// Two runs of one job at once (a job that outlived Config.RescueAfter
// while ignoring its context) are not told apart: keep jobs within their
// timeout, and calls within the job's context.
func (q *Queue) Call(ctx context.Context, job *rivertype.JobRow, key string, policy CallPolicy, call func(ctx context.Context, attempt int) error) (CallRecord, error) {
	switch {
	case job == nil:
		return CallRecord{}, errors.New("jobs: Call without a job")
	case key == "" || len(key) > maxCallKey:
		return CallRecord{}, fmt.Errorf("jobs: Call key %q: want 1 to %d bytes", key, maxCallKey)
	case policy != ResendUnknown && policy != NeverResendUnknown:
		return CallRecord{}, fmt.Errorf("jobs: Call %s: unknown policy %s", key, policy)
	}
	rec, _ := CallOf(job, key)
	switch rec.State {
	case CallSucceeded:
		return rec, nil
	case CallStarted:
		// The run that started this attempt stopped before recording its
		// outcome: whether the other side acted is unknown.
		now := time.Now().UTC()
		rec.State, rec.Unknown, rec.FinishedAt = CallUnknown, rec.Unknown+1, &now
		rec.Error = fmt.Sprintf("attempt %d was started at %s and never recorded an outcome: the run making it stopped in the middle (a process that died, or a job cut off at shutdown), so whether it took effect is unknown",
			rec.Attempts, rec.StartedAt.Format(time.RFC3339))
		if err := q.writeCall(ctx, job, key, rec); err != nil {
			return rec, err
		}
		q.stats.unknown.WithLabelValues(job.Kind).Inc()
		q.log.Warn("jobs: an outbound call has an unknown outcome", "kind", job.Kind, "job_id", job.ID, "call", key,
			"attempt", rec.Attempts, "policy", policy.String())
	}
	if rec.State == CallUnknown && policy == NeverResendUnknown {
		return rec, ErrOutcomeUnknown
	}

	rec.State, rec.Attempts, rec.StartedAt, rec.FinishedAt, rec.Error = CallStarted, rec.Attempts+1, time.Now().UTC(), nil, ""
	if err := q.writeCall(ctx, job, key, rec); err != nil {
		return rec, err
	}
	callErr := call(ctx, rec.Attempts)
	now := time.Now().UTC()
	rec.FinishedAt = &now
	var np notPerformed
	switch {
	case callErr == nil:
		rec.State = CallSucceeded
	case errors.As(callErr, &np):
		rec.State, rec.Error = CallFailed, callErr.Error()
	default:
		rec.State, rec.Unknown, rec.Error = CallUnknown, rec.Unknown+1, callErr.Error()
		callErr = fmt.Errorf("%w: %w", ErrOutcomeUnknown, callErr)
	}
	// Recorded even when ctx was cancelled during the call (a stop that
	// cut the job off): the next run must know this attempt's outcome.
	if err := q.recordOutcome(ctx, job, key, rec); err != nil {
		// The record still says started: the next run finds the outcome
		// unknown, which is the safe reading.
		return rec, errors.Join(callErr, err)
	}
	if rec.State == CallUnknown {
		q.stats.unknown.WithLabelValues(job.Kind).Inc()
	}
	return rec, callErr
}

// callRecordTimeout bounds recording a call's outcome once its job's
// context may have ended. It is well past SQLite's 5 s busy timeout
// (platform/store's URL defaults) and well under the rescue delay
// (Config.RescueAfter): an outcome not recorded turns a call that
// happened into one whose outcome is unknown, which a person must then
// settle, so the write is worth waiting for.
const callRecordTimeout = 30 * time.Second

// recordOutcome writes a finished call's record, trying again while
// callRecordTimeout lasts: a write lock held longer than the busy
// timeout (a long transaction of another worker, on SQLite) or a
// dropped connection fails one write, not the record.
func (q *Queue) recordOutcome(ctx context.Context, job *rivertype.JobRow, key string, rec CallRecord) error {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), callRecordTimeout)
	defer cancel()
	wait := 50 * time.Millisecond
	for {
		err := q.writeCall(wctx, job, key, rec)
		if err == nil {
			return nil
		}
		q.log.Warn("jobs: recording an outbound call's outcome failed; trying again", "kind", job.Kind, "job_id", job.ID, "call", key, "error", err)
		select {
		case <-wctx.Done():
			return err
		case <-time.After(wait):
		}
		wait = min(2*wait, time.Second)
	}
}

// writeCall stores rec as the record of call key in job's row, committed
// at once, and keeps job.Metadata up to date. River merges metadata by
// top-level key on both engines, so each call's record is one key,
// written whole.
func (q *Queue) writeCall(ctx context.Context, job *rivertype.JobRow, key string, rec CallRecord) error {
	b, err := json.Marshal(map[string]CallRecord{callKeyPrefix + key: rec})
	if err != nil {
		return fmt.Errorf("jobs: record call %s of job %d: %w", key, job.ID, err)
	}
	row, err := q.client.Driver().GetExecutor().JobUpdate(ctx, &riverdriver.JobUpdateParams{
		ID: job.ID, MetadataDoMerge: true, Metadata: b, Schema: q.schema,
	})
	if err != nil {
		return fmt.Errorf("jobs: record call %s of job %d: %w", key, job.ID, err)
	}
	job.Metadata = row.Metadata
	return nil
}
