package notify

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/messaging"
	"github.com/kobana/kobana-mcp/platform/store"
)

// SendArgs is the job that sends one notification, enqueued in the
// transaction that writes its row. It carries ids only: the job reads the
// row, the debtor and the charge as they are when it runs.
type SendArgs struct {
	OrganizationID string `json:"organization_id"`
	NotificationID string `json:"notification_id"`
}

// Kind names the job in the queue.
func (SendArgs) Kind() string { return "dunning.send_notification" }

// SendAttempts bounds the tries of a send that keeps failing for reasons
// that may pass (the relay or Twilio unreachable, a 4xx reply, a rate
// limit): about a day of retries, then the notification is failed.
const SendAttempts = 10

// InsertOpts gives the job its attempts.
func (SendArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: SendAttempts} }

// sendCall is the name of the provider call in the job's record
// (jobs.Queue.Call).
const sendCall = "send"

// SendWorker sends notifications through the queue it is registered on,
// whose Call records each provider call before making it.
type SendWorker struct {
	river.WorkerDefaults[SendArgs]
	Notifier *Notifier
	Queue    *jobs.Queue
	// SendTimeout replaces sendTimeout when set: the kill test's worker
	// process runs with a queue whose rescue time is seconds.
	SendTimeout time.Duration
}

// sendTimeout bounds one run of a send job.
const sendTimeout = 3 * time.Minute

// Timeout bounds one run: an SMTP send is bounded by two minutes
// (platform/mail), a Twilio request by fifteen seconds, plus the
// bookkeeping; below the queue's rescue time (five minutes), so a run
// still working is never taken for a dead one.
func (w *SendWorker) Timeout(*river.Job[SendArgs]) time.Duration {
	if w.SendTimeout > 0 {
		return w.SendTimeout
	}
	return sendTimeout
}

// NextRetry waits retryBase, then four times longer each time, up to an
// hour.
func (w *SendWorker) NextRetry(job *river.Job[SendArgs]) time.Time {
	d := w.Notifier.RetryBase
	for i := 1; i < job.Attempt && d < time.Hour; i++ {
		d *= 4
	}
	return time.Now().Add(min(d, time.Hour))
}

// Work sends the notification.
func (w *SendWorker) Work(ctx context.Context, job *river.Job[SendArgs]) error {
	return w.Notifier.send(ctx, w.Queue, job)
}

// send is one run of a notification's send job. River runs a job at
// least once, so it reads where the row stands first:
//
//   - queued: check again, in the transaction that marks it sending, that
//     the debtor may still be contacted (not opted out, the charge not paid
//     meanwhile: else it is skipped), commit sending, then call the
//     provider through Queue.Call with NeverResendUnknown, which records
//     the call as started before making it;
//   - sending: an earlier run stopped after committing sending. Queue.Call
//     knows whether it had started the call: if not, the call is made now;
//     if it had, the outcome is unknown and the row becomes unknown,
//     never sent again by itself;
//   - anything else: already decided, nothing to do.
//
// The provider's answer decides the rest: accepted → sent (with its
// message id), a permanent refusal → failed, a failure that certainly sent
// nothing → queued again and retried, a failure after which the provider
// may have the message → unknown.
func (n *Notifier) send(ctx context.Context, q *jobs.Queue, job *river.Job[SendArgs]) error {
	// The provider's own rate (pace.go): a send whose provider's next slot
	// is far snoozes with its row still queued.
	if err := n.pace(ctx, job.Args.OrganizationID, job.Args.NotificationID); err != nil {
		return err
	}
	row, proceed, err := n.claim(ctx, job.Args.OrganizationID, job.Args.NotificationID)
	if err != nil || !proceed {
		return err
	}
	sender, ok := n.ch.Senders[row.Provider]
	if !ok {
		return n.markFailed(ctx, row, fmt.Sprintf("provider %s is no longer configured in this deployment: resend the notification to use the current one", row.Provider))
	}
	msg := n.message(row)
	var receipt messaging.Receipt
	rec, err := q.Call(ctx, job.JobRow, sendCall, jobs.NeverResendUnknown, func(ctx context.Context, _ int) error {
		// The provider's own rate (pace.go): its slot, then the request.
		if err := n.paceWait(ctx, row.Provider); err != nil {
			return jobs.NotPerformed(err)
		}
		r, err := sender.Send(ctx, msg)
		if err == nil {
			receipt = r
			return nil
		}
		var me *messaging.Error
		if errors.As(err, &me) && (me.Permanent || !me.MaybeSent) {
			// The provider refused it, or it never left: certainly not
			// sent, so it may be tried again.
			return jobs.NotPerformed(err)
		}
		return err
	})
	var me *messaging.Error
	switch {
	case err == nil:
		return n.markSent(ctx, row, receipt)
	case errors.Is(err, jobs.ErrOutcomeUnknown):
		why := rec.Error
		if why == "" {
			why = err.Error()
		}
		return n.markUnknown(ctx, row, why)
	case errors.As(err, &me) && me.Permanent:
		return n.markFailed(ctx, row, err.Error())
	case errors.As(err, &me):
		if ctx.Err() != nil {
			// Cut off before anything left (a stop): back to the queue,
			// without spending an attempt.
			return errors.Join(n.requeue(context.WithoutCancel(ctx), row, err.Error()), ctx.Err())
		}
		if job.Attempt >= job.MaxAttempts {
			return n.markFailed(ctx, row, fmt.Sprintf("gave up after %d attempts: %s", job.Attempt, err))
		}
		if rerr := n.requeue(ctx, row, err.Error()); rerr != nil {
			return rerr
		}
		return err
	}
	// Recording the call failed (the database): the row stays sending and
	// the next run asks Queue.Call again, which knows.
	return err
}

// claim moves a queued (or interrupted sending) notification to sending,
// committed, after checking again that its debtor may be contacted: an
// opt-out or a payment committed since the row was queued skips it here.
// It reports whether the send goes ahead.
func (n *Notifier) claim(ctx context.Context, orgID, id string) (Notification, bool, error) {
	var row Notification
	proceed := false
	err := n.DB.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		row, err = getNotification(ctx, tx, orgID, id)
		if errors.Is(err, store.ErrNotFound) {
			return nil // gone (the debtor's organization was deleted)
		}
		if err != nil {
			return err
		}
		if row.Status != NotificationQueued && row.Status != NotificationSending {
			return nil // already decided
		}
		if row.Status == NotificationQueued {
			if r, err := n.stillDeliverable(ctx, tx, row); err != nil {
				return err
			} else if r != nil {
				return n.finishTx(ctx, tx, &row, NotificationFailed, "skipped: "+r.Code+": "+r.Msg, "")
			}
		}
		now := n.Clock()
		if err := markNotificationSending(ctx, tx, row.ID, now); err != nil {
			return err
		}
		row.Status, proceed = NotificationSending, true
		return nil
	})
	return row, proceed, err
}

// stillDeliverable reads the debtor, the charge and the settings in tx
// and says why the row may no longer be sent, or nil.
func (n *Notifier) stillDeliverable(ctx context.Context, tx *store.Tx, row Notification) (*Refusal, error) {
	d, err := ledger.GetDebtor(ctx, tx, row.OrganizationID, row.DebtorID)
	if err != nil {
		return nil, err
	}
	st, err := ledger.LoadSettings(ctx, tx, row.OrganizationID)
	if err != nil {
		return nil, err
	}
	var c *ledger.Charge
	if row.ChargeID != nil {
		ch, err := ledger.GetCharge(ctx, tx, row.OrganizationID, *row.ChargeID)
		if err != nil {
			return nil, err
		}
		c = &ch
	}
	if r := deliverable(st, d, c, row.Channel); r != nil {
		return r, nil
	}
	// A plan step's message whose enrollment was stopped meanwhile (the
	// charge unenrolled, the plan archived) is not sent; one whose
	// enrollment completed is its last step, and goes.
	if row.EnrollmentID != nil {
		status, err := enrollmentStatus(ctx, tx, *row.EnrollmentID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		if status == string(lifecycle.EnrollmentStopped) || errors.Is(err, store.ErrNotFound) {
			return &Refusal{skipEnrollmentStopped, "the charge's run through the collection plan stopped before the message left"}, nil
		}
	}
	return nil, nil
}

// message is the row as its provider sends it: the row's id is the
// e-mail's Message-ID (the same on every attempt), e-mail carries the
// one-click List-Unsubscribe when the product's public URL is https
// (RFC 8058 wants https), and SMS and WhatsApp ask Twilio to post their
// statuses to the row's own callback URL.
func (n *Notifier) message(row Notification) messaging.Message {
	m := messaging.Message{Channel: messaging.Channel(row.Channel), To: row.ToAddress, Text: row.Body, ID: row.ID}
	if row.Subject != nil {
		m.Subject = *row.Subject
	}
	switch row.Channel {
	case ledger.ChannelEmail:
		if u := n.unsubscribeURL(row.OrganizationID, row.DebtorID, ledger.ChannelEmail); strings.HasPrefix(u, "https://") {
			m.ListUnsubscribe = u
		}
		if row.PixPayload != nil {
			withPixQR(&m, *row.PixPayload)
		}
	default:
		if row.Provider == ledger.ProviderTwilio {
			if u, err := url.Parse(n.callbackURL(row.ID)); err == nil && (u.Scheme == "https" || u.Scheme == "http") {
				m.StatusCallback = u.String()
			}
		}
	}
	return m
}

// markSent records the provider's acceptance and emits
// dunning.notification.sent. A status callback that already moved the
// row further (Twilio can be faster than our commit) keeps its status;
// the message id is recorded either way.
func (n *Notifier) markSent(ctx context.Context, row Notification, r messaging.Receipt) error {
	ctx, cancel := outcomeContext(ctx)
	defer cancel()
	return n.DB.WithTx(ctx, func(tx *store.Tx) error {
		now := n.Clock()
		var pid *string
		if r.ID != "" {
			pid = &r.ID
		}
		changed, err := markNotificationSent(ctx, tx, row.ID, pid, now)
		if err != nil {
			return err
		}
		if !changed {
			return recordSentReceipt(ctx, tx, row.ID, pid, now)
		}
		if row.ChargeID != nil {
			if err := markChargeNotified(ctx, tx, row.OrganizationID, *row.ChargeID, now); err != nil {
				return err
			}
		}
		fresh, err := getNotification(ctx, tx, row.OrganizationID, row.ID)
		if err != nil {
			return err
		}
		return n.emitNotificationEvent(ctx, tx, EventNotificationSent, fresh)
	})
}

// markFailed records a send that will not happen and emits
// dunning.notification.failed.
func (n *Notifier) markFailed(ctx context.Context, row Notification, why string) error {
	ctx, cancel := outcomeContext(ctx)
	defer cancel()
	return n.DB.WithTx(ctx, func(tx *store.Tx) error {
		return n.finishTx(ctx, tx, &row, NotificationFailed, why, EventNotificationFailed)
	})
}

// markUnknown records a send whose outcome is unknown: the provider may
// have the message. It is never sent again by itself; a person decides
// (resend writes a new notification). No event: nothing is known yet, and
// a later status callback can still say what happened.
func (n *Notifier) markUnknown(ctx context.Context, row Notification, why string) error {
	ctx, cancel := outcomeContext(ctx)
	defer cancel()
	return n.DB.WithTx(ctx, func(tx *store.Tx) error {
		return n.finishTx(ctx, tx, &row, NotificationUnknown, "outcome unknown, not sent again: "+why, "")
	})
}

// requeue puts a send that certainly did not happen back to queued, with
// its error, for the job's next attempt.
func (n *Notifier) requeue(ctx context.Context, row Notification, why string) error {
	return requeueNotification(ctx, n.DB, row.ID, why, n.Clock())
}

// finishTx moves row to a final status (failed or unknown) in tx,
// recording why, and emits slug when it is not empty. A row already past
// sending is left alone.
func (n *Notifier) finishTx(ctx context.Context, tx *store.Tx, row *Notification, status, why, slug string) error {
	now := n.Clock()
	var failedAt *time.Time
	if status == NotificationFailed {
		failedAt = &now
	}
	changed, err := finishNotification(ctx, tx, row.ID, status, why, failedAt, now)
	if err != nil {
		return err
	}
	if !changed || slug == "" {
		return nil
	}
	fresh, err := getNotification(ctx, tx, row.OrganizationID, row.ID)
	if err != nil {
		return err
	}
	*row = fresh
	return n.emitNotificationEvent(ctx, tx, slug, fresh)
}

// outcomeContext is the context an outcome is recorded with: the job's
// values without its cancellation (a stop that cut the call off must not
// also lose what is known of it), bounded.
func outcomeContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
}

// pace snoozes the send job of notification id while its provider's next
// slot is further than MaxWait away (river.JobSnooze), before the row is
// claimed: the row stays queued and the worker free. The slot itself is
// taken by wait, in the call.
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
	if row.Status != NotificationQueued {
		return nil // decided, or sending: the claim and the call go on
	}
	d, err := n.Pace.within(ctx, row.Provider)
	if err != nil || d == 0 {
		return err
	}
	return river.JobSnooze(d)
}

// paceWait is Pacer.wait when n paces.
func (n *Notifier) paceWait(ctx context.Context, provider string) error {
	if n.Pace == nil {
		return nil
	}
	return n.Pace.wait(ctx, provider)
}
