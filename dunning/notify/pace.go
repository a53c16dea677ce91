package notify

import (
	"context"
	"errors"
	"time"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/platform/store"
)

// A channel provider's own send rate (an SMS gateway's messages per
// second, a relay's), honoured by every worker process together
// (docs/decisions.md "The step runner at scale"): the provider's row in
// dunning_provider_pace holds the instant its next message may start, and
// a send reserves its slot by moving that instant one interval on, in one
// UPDATE (the generic cell rate algorithm without a burst). Slots are an
// interval apart whichever process takes them, so the provider never
// sees more than its rate in any second, give or take the network's
// jitter, and a million messages queued at once leave at the rate.
//
// A send whose slot would be more than MaxWait away takes none: its job
// snoozes until about then (River does not count a snooze as an
// attempt), leaving the worker free, and the row stays queued.

// Pacer reserves send slots of the paced providers.
type Pacer struct {
	db *store.DB
	// intervals is the time between two messages of each paced
	// provider.
	intervals map[string]time.Duration
	// MaxWait is how long a send may wait for its slot in its job.
	MaxWait time.Duration
	now     func() time.Time
}

// defaultMaxWait bounds a send's wait for its slot in its job.
const defaultMaxWait = 2 * time.Second

// NewPacer paces each provider of intervals (the time between two of its
// messages) over db; nil when intervals is empty: nothing is paced.
func NewPacer(db *store.DB, intervals map[string]time.Duration) *Pacer {
	if db == nil || len(intervals) == 0 {
		return nil
	}
	return &Pacer{db: db, intervals: intervals, MaxWait: defaultMaxWait, now: time.Now}
}

// reserve takes provider's next slot when it is at most MaxWait away and
// says how long to wait for it (ok); otherwise it takes nothing and says
// how long until a slot is about to come within reach (!ok).
func (p *Pacer) reserve(ctx context.Context, provider string) (time.Duration, bool, error) {
	step, paced := p.intervals[provider]
	if !paced {
		return 0, true, nil
	}
	now := p.now().UnixMicro()
	next, ok, err := reserveSlot(ctx, p.db, provider, now, step.Microseconds(), p.MaxWait.Microseconds())
	if err != nil {
		return 0, false, err
	}
	if !ok {
		// No slot within reach: snooze until one is about to be.
		return time.Duration(next-now)*time.Microsecond - p.MaxWait/2, false, nil
	}
	return time.Duration(next-step.Microseconds()-now) * time.Microsecond, true, nil
}

// pace waits for the slot of notification id's provider when that
// provider is paced: it returns once the send may start, or a snooze of
// the job when its slot is further than MaxWait (river.JobSnooze).
func (n *Notifier) pace(ctx context.Context, orgID, id string) error {
	if n.Pace == nil {
		return nil
	}
	row, err := getNotification(ctx, n.DB, orgID, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil // the claim finds it gone
	}
	if err != nil {
		return err
	}
	if row.Status != NotificationQueued && row.Status != NotificationSending {
		return nil // already decided: the claim stops there
	}
	wait, ok, err := n.Pace.reserve(ctx, row.Provider)
	if err != nil {
		return err
	}
	if !ok {
		return river.JobSnooze(max(wait, 0))
	}
	if wait <= 0 {
		return nil
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
