package approval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/platform/identity"
)

// Running an approved call.
//
// With a job queue (Options.Jobs, as the binary gives Kadu), Continuar
// moves the approval to approved and enqueues a job of kind RunKind in the
// same transaction (job.go); the queue's worker, in any process on the
// database, claims it (approved → running, one conditional UPDATE) and
// runs it. Without a queue (tests) a goroutine of the process that
// approved does the same. A 2026 client's retry may claim it first and
// run it itself. Whoever wins the claim runs the tool's handler once, as
// the person (the identity stored with the approval, with the role read
// again now), and records the outcome (running → succeeded | failed),
// within RunTimeout.
//
// A process that dies between Continuar and the claim leaves a job that
// another worker runs. One that dies mid-run leaves the approval running
// and its job running: River rescues the job (platform/jobs), whose next
// run finds the call claimed and, once twice RunTimeout has passed, marks
// it failed, saying the outcome is unknown (settle) — never running a
// destructive call twice. A reading does the same, and gives an approval
// left approved without a runner for a while (an old process's) to the
// queue again.

// staleApproved is how long an approved call may wait for its runner
// before a reading starts another (the first one's process died).
const staleApproved = 30 * time.Second

// start runs an approved call in the background, unless the policy is
// closed (then the next reading of the approval starts it).
func (p *Policy) start(id string) {
	if p.opts.Jobs != nil {
		p.enqueue(id)
		return
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.runs.Add(1)
	p.mu.Unlock()
	go func() {
		defer p.runs.Done()
		ctx, cancel := context.WithTimeout(context.Background(), p.opts.RunTimeout)
		defer cancel()
		if err := p.RunApproved(ctx, id); err != nil {
			p.log.Error("approval: running an approved call", "approval", id, "error", err)
		}
	}()
}

// RunApproved claims an approved call and runs it, recording the outcome;
// it does nothing when the approval is not approved (another runner
// claimed it). It is what the queue's worker calls (job.go).
func (p *Policy) RunApproved(ctx context.Context, id string) error {
	a, err := p.store.Get(ctx, id)
	if err != nil || a.Owner != "" {
		// An owned approval's call is its owner's to make.
		return err
	}
	claimed, err := p.store.Claim(ctx, id)
	if err != nil || !claimed {
		return err
	}
	a, err = p.store.Get(ctx, id)
	if err != nil {
		return err
	}
	_, err = p.execute(ctx, a)
	return err
}

// execute runs a claimed (running) approval and records its outcome. It
// returns what the tool answered, for a retry that ran it.
func (p *Policy) execute(ctx context.Context, a *Approval) (*mcp.CallToolResult, error) {
	started := time.Now()
	res, runErr := p.call(ctx, a)
	status, content := StatusSucceeded, []mcp.Content(nil)
	switch {
	case runErr != nil:
		status = StatusFailed
		content = []mcp.Content{mcp.TextContent("The tool failed with an internal error; it may not have finished. Check before trying again.")}
	case res == nil:
		status = StatusFailed
		content = []mcp.Content{mcp.TextContent("The tool returned no result.")}
	default:
		content = res.Content
		if res.IsError {
			status = StatusFailed
		}
	}
	// The outcome is written even when ctx has run out.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	recorded, err := p.store.Finish(wctx, a.ID, status, content)
	switch {
	case err != nil:
		p.log.Error("approval: recording an outcome", "approval", a.ID, "status", status, "error", err)
	case !recorded:
		p.log.Warn("approval: the run finished after it was given up as interrupted", "approval", a.ID, "status", status)
	default:
		p.log.Info("approval: ran", "approval", a.ID, "tool", a.Tool, "status", status, "duration", time.Since(started).Round(time.Millisecond))
	}
	if runErr != nil {
		p.log.Error("approval: the tool failed", "approval", a.ID, "tool", a.Tool, "error", runErr)
	}
	return res, runErr
}

// call runs the stored call's handler as the person who made it.
func (p *Policy) call(ctx context.Context, a *Approval) (res *mcp.CallToolResult, err error) {
	tool := p.tools[a.Tool]
	if tool == nil || tool.Handler == nil {
		return mcp.ErrorResult(fmt.Sprintf("Nothing was done: the tool %s no longer exists.", a.Tool)), nil
	}
	id := a.Identity()
	if p.opts.Roles != nil {
		role, err := p.opts.Roles(ctx, id)
		if errors.Is(err, oauth.ErrNoMembership) {
			return mcp.ErrorResult(fmt.Sprintf("Nothing was done: %s no longer belongs to the organization.", a.Email)), nil
		}
		if err != nil {
			return nil, fmt.Errorf("looking the role up: %w", err)
		}
		id.Role = role
	}
	ctx = identity.With(ctx, id)
	if p.opts.Access != nil && p.opts.Access(ctx, tool.Requires) != mcp.Allowed {
		return mcp.ErrorResult("Nothing was done: the person's role, or the access granted to the application, no longer allows this tool."), nil
	}
	// The person's confirmation, as the framework hands it to a confirmed
	// call: a tool that consumes confirmations in its own transaction
	// (mcp.Tool.ConsumesConfirmation) consumes this one, keyed by the
	// approval, so even a second run would find it used.
	ctx = mcp.WithConfirmation(ctx, &mcp.Confirmation{
		Nonce: "approval:" + a.ID, Expires: time.Now().Add(2*p.opts.RunTimeout + time.Hour), Message: a.Message,
	})
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("panic: %v", r)
		}
	}()
	return tool.Handler(ctx, &mcp.CallToolRequest{Name: a.Tool, Arguments: json.RawMessage(a.Arguments)})
}

// settle brings an approval read from the database up to date: a run
// abandoned by a dead process is marked failed; an approved call nobody
// claimed for a while is started again.
func (p *Policy) settle(ctx context.Context, a *Approval) (*Approval, error) {
	now := p.store.clock()
	switch {
	case a.Status == StatusRunning && a.StartedAt != nil && now.Sub(*a.StartedAt) > 2*p.opts.RunTimeout:
		done, err := p.store.Abandon(ctx, a.ID, now.Add(-2*p.opts.RunTimeout), []mcp.Content{mcp.TextContent(
			"The run was interrupted before it recorded an outcome (the server stopped?): it may or may not have taken effect. Check before trying again.")})
		if err != nil {
			return nil, err
		}
		if done {
			p.log.Warn("approval: gave up an interrupted run", "approval", a.ID)
		}
		return p.store.Get(ctx, a.ID)
	case a.Status == StatusApproved && a.DecidedAt != nil && now.Sub(*a.DecidedAt) > staleApproved:
		if a.Owner != "" {
			p.notify(a)
		} else {
			p.start(a.ID)
		}
	}
	return a, nil
}
