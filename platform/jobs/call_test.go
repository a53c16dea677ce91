package jobs

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// hang, in a target's script, holds the request until its client goes
// away (its context is cancelled, or its process dies).
const hang = -1

// target is a local HTTP receiver of outbound calls. Each token has a
// script of statuses answered in turn (200 once it runs out); it records
// the attempt number of every request it gets, per token.
type target struct {
	*httptest.Server
	mu      sync.Mutex
	scripts map[string][]int
	got     map[string][]int
	arrived chan string // the token of each request, as it arrives
	closing chan struct{}
}

func newTarget(t *testing.T) *target {
	t.Helper()
	tg := &target{scripts: map[string][]int{}, got: map[string][]int{}, arrived: make(chan string, 100), closing: make(chan struct{})}
	tg.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token := r.URL.Query().Get("token")
		attempt, _ := strconv.Atoi(r.URL.Query().Get("attempt"))
		tg.mu.Lock()
		tg.got[token] = append(tg.got[token], attempt)
		status := http.StatusOK
		if s := tg.scripts[token]; len(s) > 0 {
			status, tg.scripts[token] = s[0], s[1:]
		}
		tg.mu.Unlock()
		tg.arrived <- token
		if status == hang {
			select {
			case <-r.Context().Done():
			case <-tg.closing:
			}
			return
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(func() {
		close(tg.closing)
		tg.Close()
	})
	return tg
}

// script sets what the target answers token's requests.
func (tg *target) script(token string, statuses ...int) {
	tg.mu.Lock()
	defer tg.mu.Unlock()
	tg.scripts[token] = statuses
}

// attempts are the attempt numbers of the requests token got, in order.
func (tg *target) attempts(token string) []int {
	tg.mu.Lock()
	defer tg.mu.Unlock()
	return append([]int(nil), tg.got[token]...)
}

// post is an outbound call as a real worker makes one: a 2xx did it, a
// 4xx certainly did nothing, anything else (a 5xx, a cut connection, a
// cancelled context) leaves the outcome unknown.
func post(ctx context.Context, base, token string, attempt int) error {
	u := base + "/?" + url.Values{"token": {token}, "attempt": {strconv.Itoa(attempt)}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, nil)
	if err != nil {
		return NotPerformed(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	_ = resp.Body.Close()
	switch {
	case resp.StatusCode < 300:
		return nil
	case resp.StatusCode < 500:
		return NotPerformed(fmt.Errorf("the target answered %d", resp.StatusCode))
	}
	return fmt.Errorf("the target answered %d", resp.StatusCode)
}

// callArgs is a job making one outbound call, "notify", to the target
// under its token.
type callArgs struct {
	Token  string     `json:"token"`
	Policy CallPolicy `json:"policy"`
	// FailRuns makes the job's first runs fail after the call, so River
	// runs it again.
	FailRuns int `json:"fail_runs"`
}

func (callArgs) Kind() string { return "jobs_test.call" }

// callWorker makes the call through Queue.Call and reports each run that
// ends the job; a run whose context was cancelled returns, so the job
// goes back to the queue.
type callWorker struct {
	river.WorkerDefaults[callArgs]
	q      *Queue
	target string
	ended  chan int64 // the job's id, when a run ends it
}

func newCallWorker(target string) *callWorker {
	return &callWorker{target: target, ended: make(chan int64, 100)}
}

// NextRetry retries at once: the tests wait for retries, not delays.
func (*callWorker) NextRetry(*river.Job[callArgs]) time.Time { return time.Now() }

func (w *callWorker) Work(ctx context.Context, job *river.Job[callArgs]) error {
	_, err := w.q.Call(ctx, job.JobRow, "notify", job.Args.Policy, func(ctx context.Context, attempt int) error {
		return post(ctx, w.target, job.Args.Token, attempt)
	})
	switch {
	case ctx.Err() != nil:
		return err // stopped: back to the queue
	case errors.Is(err, ErrOutcomeUnknown) && job.Args.Policy == NeverResendUnknown:
		// A real worker marks its message "delivery unknown" here, for a
		// person to decide; the job is over.
		w.ended <- job.ID
		return nil
	case err != nil:
		return err
	case job.Attempt <= job.Args.FailRuns:
		return errors.New("fails after the call")
	}
	w.ended <- job.ID
	return nil
}

// callRecord reads the "notify" record of a job from the database.
func callRecord(t *testing.T, q *Queue, id int64) (CallRecord, *rivertype.JobRow) {
	t.Helper()
	job, err := q.client.JobGet(context.Background(), id)
	if err != nil {
		t.Fatalf("get job %d: %v", id, err)
	}
	rec, ok := CallOf(job, "notify")
	if !ok {
		t.Fatalf("job %d has no call record; metadata %s", id, job.Metadata)
	}
	return rec, job
}

// waitEnded waits until the worker has ended every job of ids.
func waitEnded(t *testing.T, w *callWorker, ids ...int64) {
	t.Helper()
	pending := map[int64]bool{}
	for _, id := range ids {
		pending[id] = true
	}
	for len(pending) > 0 {
		delete(pending, recv(t, w.ended, "a call job to end"))
	}
}

func sameInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// What each policy does with each outcome, when the job runs again.
func TestCallOutcomesAcrossRuns(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		tg := newTarget(t)
		q := newQueue(t, db, true)
		w := newCallWorker(tg.URL)
		w.q = q
		AddWorker(q, w)
		start(t, q)

		cases := []struct {
			name     string
			args     callArgs
			script   []int
			attempts []int // the requests the target gets
			want     CallRecord
		}{
			// A call that succeeded is not made again by a later run of
			// its job, whatever the policy.
			{"succeeded then retried", callArgs{Policy: ResendUnknown, FailRuns: 1}, nil, []int{1}, CallRecord{State: CallSucceeded, Attempts: 1}},
			// A call that certainly did nothing is made again.
			{"not performed", callArgs{Policy: NeverResendUnknown}, []int{422}, []int{1, 2}, CallRecord{State: CallSucceeded, Attempts: 2}},
			// An unknown outcome: sent again under ResendUnknown ...
			{"unknown, resend", callArgs{Policy: ResendUnknown}, []int{503}, []int{1, 2}, CallRecord{State: CallSucceeded, Attempts: 2, Unknown: 1}},
			// ... and never under NeverResendUnknown.
			{"unknown, never resend", callArgs{Policy: NeverResendUnknown}, []int{503}, []int{1}, CallRecord{State: CallUnknown, Attempts: 1, Unknown: 1}},
		}
		ids := make([]int64, len(cases))
		for i, c := range cases {
			c.args.Token = c.name
			tg.script(c.name, c.script...)
			id, err := q.Enqueue(ctx, c.args, nil)
			if err != nil {
				t.Fatal(err)
			}
			ids[i] = id
		}
		waitEnded(t, w, ids...)
		for i, c := range cases {
			if got := tg.attempts(c.name); !sameInts(got, c.attempts) {
				t.Errorf("%s: the target got attempts %v, want %v", c.name, got, c.attempts)
			}
			rec, _ := callRecord(t, q, ids[i])
			if rec.State != c.want.State || rec.Attempts != c.want.Attempts || rec.Unknown != c.want.Unknown {
				t.Errorf("%s: record %+v, want state %s, %d attempts, %d unknown", c.name, rec, c.want.State, c.want.Attempts, c.want.Unknown)
			}
			if rec.FinishedAt == nil || rec.StartedAt.IsZero() {
				t.Errorf("%s: record %+v lacks its times", c.name, rec)
			}
		}
		if n, _ := metric(t, q.Collector(), "kobana_jobs_calls_unknown_total", map[string]string{"kind": "jobs_test.call"}); n != 2 {
			t.Errorf("unknown calls counted %v, want 2", n)
		}
	})
}

// A hard stop cuts off calls in flight: each is recorded as unknown by the
// run that was cut off, the jobs go back to the queue, and another queue
// finishes them — sending the at-least-once call again, never the
// at-most-once one.
func TestHardStopLeavesCallsInFlightUnknown(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		tg := newTarget(t)
		first := newQueue(t, db, true)
		w1 := newCallWorker(tg.URL)
		w1.q = first
		AddWorker(first, w1)
		start(t, first)

		tg.script("resend", hang)
		tg.script("never", hang)
		resend, err := first.Enqueue(ctx, callArgs{Token: "resend", Policy: ResendUnknown}, nil)
		if err != nil {
			t.Fatal(err)
		}
		never, err := first.Enqueue(ctx, callArgs{Token: "never", Policy: NeverResendUnknown}, nil)
		if err != nil {
			t.Fatal(err)
		}
		recv(t, tg.arrived, "the first call")
		recv(t, tg.arrived, "the second call")

		sctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		if err := first.Stop(sctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Stop = %v, want the grace to run out", err)
		}
		for _, id := range []int64{resend, never} {
			rec, job := callRecord(t, first, id)
			if rec.State != CallUnknown || rec.Attempts != 1 || rec.Unknown != 1 {
				t.Errorf("job %d after the hard stop: record %+v, want unknown after 1 attempt", id, rec)
			}
			if job.State != rivertype.JobStateAvailable {
				t.Errorf("job %d is %s after the hard stop, want available for another worker", id, job.State)
			}
		}

		second := newQueue(t, db, true)
		w2 := newCallWorker(tg.URL)
		w2.q = second
		AddWorker(second, w2)
		start(t, second)
		waitEnded(t, w2, resend, never)
		if got := tg.attempts("resend"); !sameInts(got, []int{1, 2}) {
			t.Errorf("the at-least-once call got attempts %v, want 1 then 2", got)
		}
		if got := tg.attempts("never"); !sameInts(got, []int{1}) {
			t.Errorf("the at-most-once call got attempts %v, want only 1", got)
		}
		if rec, _ := callRecord(t, second, resend); rec.State != CallSucceeded || rec.Attempts != 2 || rec.Unknown != 1 {
			t.Errorf("at-least-once record %+v", rec)
		}
		if rec, _ := callRecord(t, second, never); rec.State != CallUnknown || rec.Attempts != 1 {
			t.Errorf("at-most-once record %+v", rec)
		}
	})
}

func TestCallRefusesMisuse(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		q := newQueue(t, db, false)
		called := false
		fn := func(context.Context, int) error { called = true; return nil }
		job := &rivertype.JobRow{ID: 1, Kind: "x", Metadata: []byte(`{}`)}
		for name, try := range map[string]func() error{
			"no job":    func() error { _, err := q.Call(context.Background(), nil, "k", ResendUnknown, fn); return err },
			"empty key": func() error { _, err := q.Call(context.Background(), job, "", ResendUnknown, fn); return err },
			"no policy": func() error { _, err := q.Call(context.Background(), job, "k", 0, fn); return err },
			"long key": func() error {
				_, err := q.Call(context.Background(), job, string(make([]byte, 201)), ResendUnknown, fn)
				return err
			},
			"no such id": func() error { _, err := q.Call(context.Background(), job, "k", ResendUnknown, fn); return err },
		} {
			if err := try(); err == nil {
				t.Errorf("%s: no error", name)
			}
		}
		if called {
			t.Error("a refused Call ran its function (recording the start failed, so nothing may be sent)")
		}
	})
}
