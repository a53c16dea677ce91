package notify

import (
	"context"
	"errors"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
)

// A channel provider's own send rate (an SMS gateway's messages per
// second, a relay's), honoured by every worker process together
// (docs/decisions.md "The step runner at scale"): the provider's row in
// dunning_provider_pace holds the instant its next message may start, and
// a send reserves its slot by moving that instant one interval on, the
// row locked (the generic cell rate algorithm without a burst). Slots are an
// interval apart whichever process takes them, so the provider never
// sees more than its rate in any second, give or take the network's
// jitter, and a million messages queued at once leave at the rate.
//
// The slot is taken right before the provider is called, inside the
// call (after the claim's transaction and the call's record, whose time
// varies), so what the provider sees is the slots plus the request's own
// jitter. A send whose provider's next slot is more than MaxWait away
// does not claim its row: its job snoozes until about then (River does
// not count a snooze as an attempt), leaving the worker free, and the row
// stays queued.

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

// within says how long until provider's next slot is within MaxWait of
// now: 0 when it is (or the provider is not paced).
func (p *Pacer) within(ctx context.Context, provider string) (time.Duration, error) {
	if _, paced := p.intervals[provider]; !paced {
		return 0, nil
	}
	next, err := paceNext(ctx, p.db, provider)
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return max(time.Duration(next-p.now().UnixMicro())*time.Microsecond-p.MaxWait, 0), nil
}

// wait reserves provider's next slot and sleeps until it, right before
// the provider is called: nothing but the sleep and the request lies
// between the slot and the message's arrival. A send that wakes more than
// an interval after its slot (the process was not scheduled: a loaded
// host) takes a new slot rather than going late, where it would land in
// the next ones' time; after lateTries it goes.
func (p *Pacer) wait(ctx context.Context, provider string) error {
	step, paced := p.intervals[provider]
	if !paced {
		return nil
	}
	for try := 0; try < lateTries; try++ {
		slot, err := reserveSlot(ctx, p.db, provider, p.now, step.Microseconds())
		if err != nil {
			return err
		}
		at := time.UnixMicro(slot)
		if err := sleepUntil(ctx, at); err != nil {
			return err
		}
		if p.now().Sub(at) <= step {
			return nil
		}
	}
	return nil
}

// lateTries bounds how many slots a send takes when it keeps waking late.
const lateTries = 3

// sleepUntil sleeps until at, or until ctx ends.
func sleepUntil(ctx context.Context, at time.Time) error {
	d := time.Until(at)
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
