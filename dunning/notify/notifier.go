package notify

import (
	"context"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/dunning/collection"
	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/rest"
)

// Notifier is the part of Dunning that talks to debtors: it composes
// messages, writes them to the notification log with their send job in
// one transaction, sends them through the organization's provider, turns
// provider callbacks into states and runs the scheduler. It shares the
// service (database, clock, webhooks) with every other part.
type Notifier struct {
	*Service
	ch *ledger.ChannelSenders
	// linkBase is the product's public URL, for the links handed out
	// (unsubscribe, Twilio status callbacks).
	linkBase string
	// unsubscribeKey signs unsubscribe links (unsubscribe.go).
	unsubscribeKey []byte
	// RetryBase is the first retry delay of a send that failed for a
	// reason that may pass; tests shorten it.
	RetryBase time.Duration
	// RunnerBatch bounds how many due enrollments one query of the step
	// runner takes.
	RunnerBatch int
	// RunnerSlices is how many slice jobs a run that finds a full batch
	// due is split into (dunning/regua's runner_slices.go): 1, 2, 4, 8 or
	// 16; anything else is 8.
	RunnerSlices int
	// Pace holds each paced provider to its send rate across every
	// worker process (pace.go); nil paces nothing.
	Pace *Pacer
	// Periodic adds the scheduler's periodic jobs (the step runner every
	// minute, the sweep every hour) to the queue; tests that drive the
	// clock run them themselves instead.
	Periodic bool
}

// defaultRetryBase is the first retry delay of a temporary send failure;
// each retry waits four times longer, up to an hour.
const defaultRetryBase = 15 * time.Second

// NewNotifier builds the notifier over svc for the deployment's channels.
// secret is the deployment secret (nil in tests of the transport: then a
// key of this process signs the links, valid until it stops).
func NewNotifier(svc *Service, ch *ledger.ChannelSenders, linkBase string, secret []byte) *Notifier {
	key := unsubscribeKey(secret)
	if key == nil {
		key = make([]byte, 32)
		_, _ = rand.Read(key)
	}
	return &Notifier{Service: svc, ch: ch, linkBase: strings.TrimRight(linkBase, "/"), unsubscribeKey: key,
		RetryBase: defaultRetryBase, RunnerBatch: defaultRunnerBatch, Periodic: true}
}

// WithTx runs fn in a transaction that consumes the MCP confirmation of
// the request, if any (confirm.Nonces.WithTx): a destructive operation
// commits together with the use of its confirmation.
func (n *Notifier) WithTx(ctx context.Context, fn func(tx *store.Tx) error) error {
	if n.Nonces != nil {
		return n.Nonces.WithTx(ctx, fn)
	}
	return n.DB.WithTx(ctx, fn)
}

// Draft is what a caller asks to send: to whom, on which channel, about
// which charge, with which templates. Composing it checks everything a
// person would want refused before a message exists.
type Draft struct {
	Debtor  ledger.Debtor
	Charge  *ledger.Charge
	Channel string
	// To is one of the debtor's addresses on the channel; empty picks the
	// first.
	To string
	// Subject and Body are templates (dunning/msgtemplate); Subject is
	// for e-mail only.
	Subject, Body string
	Kind          string
	CreatedBy     string
	// EnrollmentID and StepID mark a plan step's row.
	EnrollmentID, StepID *string
	ResendOf             *string
}

// Refusal is why a message cannot go: the debtor opted out, has no
// address on the channel, the channel is off, the charge is closed. The
// API answers it as UNPROCESSABLE; the scheduler records it as a skipped
// notification.
type Refusal struct {
	Code, Msg string
}

func (r *Refusal) Error() string { return r.Msg }

// skipDebtorArchived is the skip reason of a message to an archived
// debtor; the others are the preview's (dunning/collection's preview.go),
// so the preview and the log give one reason the same name.
const skipDebtorArchived = "debtor_archived"

// skipEnrollmentStopped is the skip reason of a step's message whose
// enrollment stopped between its queueing and its send.
const skipEnrollmentStopped = "enrollment_stopped"

// deliverable checks that the debtor may be contacted on channel about
// charge now: not archived, not opted out, the channel on, the charge
// still collected. It is the check the API, the step runner and the send
// job all make (the last in the transaction that marks a message sending).
func deliverable(st ledger.Settings, d ledger.Debtor, c *ledger.Charge, channel string) *Refusal {
	if d.Status == ledger.DebtorArchived {
		return &Refusal{skipDebtorArchived, "the debtor is archived: archived debtors are not contacted"}
	}
	for _, o := range d.OptOuts {
		if o.Channel == channel {
			return &Refusal{collection.SkipOptedOut, fmt.Sprintf("the debtor opted out of %s on %s (%s): they are never contacted on it",
				channel, o.CreatedAt.Format("2006-01-02"), o.Reason)}
		}
	}
	if !st.ChannelEnabled(channel) {
		return &Refusal{collection.SkipChannelDisabled, fmt.Sprintf("the organization has the %s channel disabled (PATCH /v1/settings enables it)", channel)}
	}
	if c != nil {
		if c.ArchivedAt != nil {
			return &Refusal{collection.SkipChargeNotCollectible, "the charge is archived: nothing is sent about it"}
		}
		if !c.Status.Collectible() {
			return &Refusal{collection.SkipChargeNotCollectible, fmt.Sprintf("the charge is %s: nothing is sent about a charge out of collection", c.Status)}
		}
	}
	return nil
}

// AsAPIError is err as the API answers it: a refusal is UNPROCESSABLE.
func AsAPIError(err error) error {
	var r *Refusal
	if errors.As(err, &r) {
		return rest.Unprocessable(r.Msg)
	}
	return err
}

// callbackURL is where Twilio posts the statuses of notification id.
func (n *Notifier) callbackURL(id string) string {
	return n.linkBase + ledger.APIBase + "/callbacks/twilio/" + url.PathEscape(id)
}

// defaultRunnerBatch is how many due enrollments one query of the runner
// takes.
const defaultRunnerBatch = 200

// unsubscribeKey derives the link-signing key from the deployment secret
// (nil without one).
func unsubscribeKey(secret []byte) []byte {
	if len(secret) == 0 {
		return nil
	}
	key, err := hkdf.Key(sha256.New, secret, nil, "kobana-mcp dunning unsubscribe v1", 32)
	if err != nil {
		panic(err) // only for lengths hkdf cannot produce; 32 it always can
	}
	return key
}
