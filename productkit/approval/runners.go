package approval

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
)

// Runners is the one worker of RunKind on a job queue, shared by every
// product's policy on that queue. A queue has one worker per job kind, and
// `kobana-mcp serve` and `kobana-mcp worker` give every product the same
// queue: the Inbox's, Dunning's and Kadu's approved calls all arrive as
// approval.run jobs, and the worker hands each to the policy that owns it
// — the one whose catalog holds its tool, or, for an approval a product
// asked for itself, the one that registered its owner. Create one per
// process and queue (NewRunners) and give it to every policy
// (Options.Runners); a policy with a queue and no Runners makes its own,
// which is only right when it is the queue's only policy (tests).
type Runners struct {
	store *Store
	// maxRun is the longest run of an approved call the queue can hold
	// without rescuing it mid-call: its RescueAfter less the room to
	// record the outcome (recordRoom) and a second.
	maxRun time.Duration

	mu     sync.RWMutex
	tools  map[string]*Policy
	owners map[string]*Policy
	all    []*Policy
}

// NewRunners registers the worker of RunKind on q (before q starts) and
// returns the dispatcher the policies on q add themselves to. db holds
// the approvals.
func NewRunners(db *store.DB, q *jobs.Queue) *Runners {
	r := &Runners{store: NewStore(db, nil), tools: map[string]*Policy{}, owners: map[string]*Policy{}}
	if ra := q.RescueAfter(); ra > recordRoom+time.Second {
		r.maxRun = ra - recordRoom - time.Second
	}
	jobs.AddWorker(q, &runWorker{r: r})
	return r
}

// add makes p the runner of its catalog's tools and of its owners'
// approvals. Two policies claiming one tool or owner name is a wiring
// mistake (tool names are unique across a deployment).
func (r *Runners) add(p *Policy) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for name := range p.tools {
		if other, ok := r.tools[name]; ok && other != p {
			return fmt.Errorf("approval: tool %s already has a runner (%s)", name, other.opts.ProductName)
		}
	}
	for name := range p.opts.Owners {
		if other, ok := r.owners[name]; ok && other != p {
			return fmt.Errorf("approval: owner %s already has a runner (%s)", name, other.opts.ProductName)
		}
	}
	// A run longer than the queue's rescue time would be taken over
	// mid-call (platform/jobs refuses such a kind): the policy's runs are
	// bounded by what the deployment's --job-rescue-after allows.
	if r.maxRun > 0 && p.opts.RunTimeout > r.maxRun {
		p.opts.RunTimeout = r.maxRun
	}
	for name := range p.tools {
		r.tools[name] = p
	}
	for name := range p.opts.Owners {
		r.owners[name] = p
	}
	r.all = append(r.all, p)
	return nil
}

// policyOf is the policy an approval belongs to, or nil when no policy
// on this queue knows its tool or owner (a product this process does not
// run).
func (r *Runners) policyOf(a *Approval) *Policy {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if a.Owner != "" {
		return r.owners[a.Owner]
	}
	return r.tools[a.Tool]
}

// timeout is the longest RunTimeout of the policies, with room to record
// the outcome: one per kind, as platform/jobs requires.
func (r *Runners) timeout() time.Duration {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var longest time.Duration
	for _, p := range r.all {
		longest = max(longest, p.opts.RunTimeout)
	}
	if longest == 0 {
		longest = DefaultRunTimeout
		if r.maxRun > 0 {
			longest = min(longest, r.maxRun)
		}
	}
	return longest + recordRoom
}

// recordRoom is the time a run's job keeps after RunTimeout to record the
// outcome.
const recordRoom = 30 * time.Second

// runWorker runs approved calls from the queue, each with the policy that
// owns it (Policy.RunApproved).
type runWorker struct {
	river.WorkerDefaults[runArgs]
	r *Runners
}

// Timeout is the longest RunTimeout of the queue's policies, with room to
// record the outcome.
func (w *runWorker) Timeout(*river.Job[runArgs]) time.Duration { return w.r.timeout() }

// Work hands the approval to its policy, which claims and runs the call,
// once. A job that runs again (a retry, or River's rescue of the job of a
// process that died mid-call) finds the approval already running or
// finished, so the call is never made twice; a run abandoned by a dead
// process is marked failed, its outcome unknown, once twice RunTimeout
// has passed (settle). An approval no policy here owns fails the job, so
// River retries it, in a process that runs its product.
func (w *runWorker) Work(ctx context.Context, job *river.Job[runArgs]) error {
	id := job.Args.ApprovalID
	a, err := w.r.store.Get(ctx, id)
	if err != nil {
		return err
	}
	p := w.r.policyOf(a)
	if p == nil {
		return fmt.Errorf("approval: no product of this process runs tool %s (approval %s)", a.Tool, id)
	}
	if err := p.RunApproved(ctx, id); err != nil {
		return err
	}
	if a, err = p.store.Get(ctx, id); err != nil {
		return err
	}
	if a.Status == StatusRunning && a.StartedAt != nil && p.store.clock().Sub(*a.StartedAt) > 2*p.opts.RunTimeout {
		_, err = p.settle(ctx, a)
	}
	return err
}
