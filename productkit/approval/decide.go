package approval

import (
	"context"
	"errors"
	"fmt"

	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/platform/store"
)

// Deciding an approval: the page's Continuar and Cancelar (pages.go) and
// `kobana-mcp approvals continue|cancel` (docs/operating.md "Approvals
// from the terminal") go through ForPerson and Decide, so both find the
// same approvals for the same person and record a decision the same way:
// one conditional UPDATE, and the run as a job committed with it.

// Decision is the person's answer on an approval.
type Decision string

// The two decisions.
const (
	// Continue is Continuar: the call runs, once, as the person.
	Continue Decision = "continuar"
	// Cancel is Cancelar: nothing runs.
	Cancel Decision = "cancelar"
)

// ForPerson returns the approval id if userID may see and decide it: the
// person it was asked of, still a member of its organization, on this
// product. Anyone else's, another product's and one that does not exist
// are all store.ErrNotFound, alike. The approval is settled first (an
// abandoned run marked failed, an approved call without a runner given to
// the queue again).
func (p *Policy) ForPerson(ctx context.Context, id, userID string) (*Approval, error) {
	a, err := p.store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if a.UserID != userID || !p.owns(a) {
		return nil, store.ErrNotFound
	}
	if p.opts.Roles != nil {
		// Still a member of the organization the call is for?
		if _, err := p.opts.Roles(ctx, a.Identity()); errors.Is(err, oauth.ErrNoMembership) {
			return nil, store.ErrNotFound
		} else if err != nil {
			return nil, fmt.Errorf("approval: looking a role up: %w", err)
		}
	}
	return p.settle(ctx, a)
}

// Decide records the decision of the person userID (found by ForPerson) on
// a: Continue moves it to approved and has the call run once — as a job
// committed with the approval when the policy has a queue, else in a
// goroutine — or, for an approval a product asked for itself, tells its
// owner; Cancel ends it with nothing run. decided is false when the
// approval was not pending any more (decided before, or expired): nothing
// changed, and a reading says where it stands.
func (p *Policy) Decide(ctx context.Context, a *Approval, userID string, d Decision) (decided bool, err error) {
	switch d {
	case Continue:
		if p.opts.Jobs != nil && a.Owner == "" {
			// The run is a job, committed with the approval.
			decided, err = p.approveAndEnqueue(ctx, a.ID, userID)
		} else {
			decided, err = p.store.Approve(ctx, a.ID, userID)
		}
		if err != nil || !decided {
			return false, err
		}
		p.log.InfoContext(ctx, "approval: approved", "approval", a.ID, "tool", a.Tool, "user", userID)
		if a.Owner != "" {
			// The product that asked makes the call itself.
			p.notify(a)
		} else if p.opts.Jobs == nil {
			p.start(a.ID)
		}
		return true, nil
	case Cancel:
		decided, err = p.store.Cancel(ctx, a.ID)
		if err != nil || !decided {
			return false, err
		}
		p.log.InfoContext(ctx, "approval: cancelled", "approval", a.ID, "tool", a.Tool, "user", userID)
		if a.Owner != "" {
			p.notify(a)
		}
		return true, nil
	}
	return false, fmt.Errorf("approval: no decision %q (continuar or cancelar)", d)
}
