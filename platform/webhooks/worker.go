package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
)

// deliveryArgs are a delivery job's arguments: ids only (and the product,
// which picks the Service). Everything else is read when the job runs, so
// an attempt always uses the webhook as configured then.
type deliveryArgs struct {
	DeliveryID     string `json:"delivery_id"`
	OrganizationID string `json:"organization_id"`
	Product        string `json:"product"`
}

// Kind implements river.JobArgs.
func (deliveryArgs) Kind() string { return "webhook_delivery" }

// enqueue inserts a delivery's job in tx; without a queue it does nothing
// and the delivery stays pending.
func (s *Service) enqueue(ctx context.Context, tx *store.Tx, orgID, deliveryID string) error {
	if s.q == nil {
		return nil
	}
	_, err := s.q.EnqueueTx(ctx, tx, deliveryArgs{DeliveryID: deliveryID, OrganizationID: orgID, Product: s.cfg.Product}, nil)
	return err
}

// registries holds, per job queue, the Services its one delivery worker
// serves: River accepts one worker per job kind, and every product's
// Service shares the process's queue.
var registries sync.Map // *jobs.Queue → *registry

type registry struct {
	mu       sync.RWMutex
	services map[string]*Service // by product
}

// register makes q's delivery worker run s's deliveries, adding the worker
// to q the first time. The first Service of a product on a queue runs that
// product's deliveries; a later one (a second Service in a test) only
// enqueues.
func register(q *jobs.Queue, s *Service) {
	v, loaded := registries.LoadOrStore(q, &registry{services: map[string]*Service{}})
	reg := v.(*registry)
	reg.mu.Lock()
	if reg.services[s.cfg.Product] == nil {
		reg.services[s.cfg.Product] = s
	}
	reg.mu.Unlock()
	if !loaded {
		jobs.AddWorker(q, &deliveryWorker{reg: reg})
	}
}

func (r *registry) get(product string) *Service {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.services[product]
}

// longestTimeout is the longest attempt timeout of the registered
// services (zero when there is none).
func (r *registry) longestTimeout() time.Duration {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var d time.Duration
	for _, s := range r.services {
		d = max(d, s.cfg.Timeout)
	}
	return d
}

// deliveryWorker runs delivery jobs: one attempt per run, snoozing the job
// until the delivery's next retry.
type deliveryWorker struct {
	river.WorkerDefaults[deliveryArgs]
	reg *registry
}

// Work implements river.Worker.
func (w *deliveryWorker) Work(ctx context.Context, job *river.Job[deliveryArgs]) error {
	s := w.reg.get(job.Args.Product)
	if s == nil {
		return fmt.Errorf("webhooks: no service for product %q in this process", job.Args.Product)
	}
	res, err := s.attempt(ctx, job.Args)
	if err != nil {
		return err
	}
	if res.Wait > 0 {
		return river.JobSnooze(res.Wait)
	}
	return nil
}

// Timeout implements river.Worker: an attempt is bounded by Config.Timeout
// (the longest of the services on the queue, since the job queue reads
// one timeout per kind when it starts); the 20 s more are for reading and
// writing a few rows. With the default 10 s request timeout an attempt is
// bounded at 30 s, below the default job timeout, so the job queue may
// rescue a dead process's jobs after a little more than a minute.
func (w *deliveryWorker) Timeout(*river.Job[deliveryArgs]) time.Duration {
	return w.reg.longestTimeout() + 20*time.Second
}

// Outcomes of an attempt, as counted by the metrics.
const (
	outcomeSuccess = "success"
	outcomeRetry   = "retry"
	outcomeFailed  = "failed"
	// outcomeUnknown: the attempt's request was started and its answer
	// never recorded (the worker stopped while it was in flight). It is
	// retried like a failure, or fails the delivery when it was the last.
	outcomeUnknown = "unknown"
)

// unknownFound and unknownCutOff say why an attempt's outcome is unknown,
// as the delivery's error shows it: the target may have received the
// request, and a retry sends it again with the same X-Kobana-Delivery-Id,
// by which receivers recognise a repeat.
const (
	unknownFound = "the outcome of attempt %d is unknown: its request was started and its answer never recorded " +
		"(the worker sending it stopped: a process that died or was stopped); the target may have received it " +
		"(a retry carries the same X-Kobana-Delivery-Id)"
	unknownCutOff = "the outcome of attempt %d is unknown: the worker was stopped while its request was in flight; " +
		"the target may have received it (a retry carries the same X-Kobana-Delivery-Id)"
)

// unknownRecordTimeout bounds recording an attempt cut off in flight, once
// the job's context has ended.
const unknownRecordTimeout = 5 * time.Second

// attemptResult is what a job run did.
type attemptResult struct {
	// Outcome is one of the outcome constants, or "" when the run had
	// nothing to do (the delivery was done, gone, not yet due, or another
	// run recorded the same attempt first).
	Outcome string
	// Wait, when positive, is how long until the delivery is due again.
	Wait time.Duration
}

// attempt runs one delivery job: it sends the delivery's next attempt when
// the delivery is pending and due, and records what happened. It is safe
// to run more than once for the same attempt: a run that finds the
// delivery finished or not yet due sends nothing, and of two runs racing
// on the same attempt only the one that records it as started sends it.
//
// An attempt is recorded as started — committed, with its request — before
// the request leaves, and its outcome after. A run that finds an attempt
// started and without an outcome (the run sending it died, or was stopped
// hard, in the middle) records that attempt's outcome as unknown and
// retries it on the schedule like a failed one: webhooks are delivered at
// least once, and receivers recognise a repeat by X-Kobana-Delivery-Id.
func (s *Service) attempt(ctx context.Context, a deliveryArgs) (attemptResult, error) {
	d, err := s.loadDelivery(ctx, s.db, a.OrganizationID, a.DeliveryID)
	if errors.Is(err, store.ErrNotFound) {
		s.log.Warn("webhooks: delivery job for a missing delivery", "delivery_id", a.DeliveryID)
		return attemptResult{}, nil
	}
	if err != nil {
		return attemptResult{}, err
	}
	if d.Status != DeliveryPending {
		return attemptResult{}, nil
	}
	if d.inFlight() {
		return s.recordUnknown(ctx, d, fmt.Sprintf(unknownFound, d.Attempt))
	}
	if now := store.Now(); d.NextRetryAt != nil && now.Before(*d.NextRetryAt) {
		return attemptResult{Wait: d.NextRetryAt.Sub(now)}, nil
	}
	var w webhookRow
	err = s.db.Get(ctx, &w, `SELECT `+webhookColumns+` FROM webhooks WHERE id = ? AND organization_id = ? AND product = ?`,
		d.WebhookID, a.OrganizationID, s.cfg.Product)
	switch {
	case errors.Is(err, store.ErrNotFound) || (err == nil && w.DeletedAt != nil):
		return s.abandon(ctx, d, "the webhook was deleted before this delivery was sent; nothing was sent")
	case err != nil:
		return attemptResult{}, err
	case w.Status != StatusActive:
		return s.abandon(ctx, d, "the webhook is inactive; nothing was sent")
	}
	ev, err := s.getEvent(ctx, s.db, a.OrganizationID, d.WorkspaceID, d.SystemEventID)
	if errors.Is(err, store.ErrNotFound) {
		return s.abandon(ctx, d, "the event no longer exists; nothing was sent")
	}
	if err != nil {
		return attemptResult{}, err
	}
	creds, err := s.credentials(&w)
	if err != nil {
		return attemptResult{}, err
	}
	plain, err := s.unseal(w.SealedSecret, secretContext(w.ID))
	if err != nil {
		return attemptResult{}, err
	}
	n := d.Attempt + 1
	at := store.Now()
	secret, previous := parseSecrets(plain, at)
	body, err := deliveryBody(ev.Payload, d.ID, n, at)
	if err != nil {
		return attemptResult{}, err
	}
	if u, perr := url.Parse(w.URL); perr == nil && u.Scheme != "https" && !s.cfg.AllowPrivateTargets {
		return s.record(ctx, d, n, at, sendResult{Body: body, RequestHeaders: map[string]string{},
			Err: "the target URL must use https (plain http is allowed only in development); nothing was sent"})
	}
	req, res := s.prepare(ctx, sendRequest{URL: w.URL, Auth: w.Auth, Secret: secret, Previous: previous, Credentials: creds,
		DeliveryID: d.ID, Slug: d.EventSlug, Body: body, At: at})
	if req == nil {
		return s.record(ctx, d, n, at, res) // nothing can be sent
	}
	claimed, err := s.markStarted(ctx, d, n, res)
	if err != nil || !claimed {
		return attemptResult{}, err
	}
	d.Attempt, d.NextRetryAt = n, nil // the row as markStarted left it
	d.RequestBody, d.RequestHeaders = string(res.Body), encodeHeaders(res.RequestHeaders)
	res, err = s.do(ctx, req, res)
	if err != nil {
		// Cut off in flight (a hard stop, or the job's own timeout): the
		// request may have arrived. Recorded at once, even though ctx has
		// ended, so the delivery shows it; if this fails, the next run
		// finds the attempt started and records the same.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), unknownRecordTimeout)
		defer cancel()
		if _, rerr := s.recordUnknown(rctx, d, fmt.Sprintf(unknownCutOff, n)); rerr != nil {
			s.log.Warn("webhooks: recording an attempt cut off in flight", "delivery_id", d.ID, "attempt", n, "err", rerr)
		}
		return attemptResult{}, err
	}
	return s.record(ctx, d, n, at, res)
}

// inFlight reports whether the row's last attempt was started and has no
// outcome: a pending delivery with attempts always has next_retry_at once
// an attempt's outcome is recorded (record), and none while one is in
// flight (markStarted).
func (d *deliveryRow) inFlight() bool {
	return d.Status == DeliveryPending && d.Attempt > 0 && d.NextRetryAt == nil
}

// markStarted records attempt n as started, committed before its request
// is sent: the attempt count, the request as it will be sent, no response,
// no error and no next retry. It reports false when another run of the
// job changed the delivery first (it sends the attempt; this run sends
// nothing).
func (s *Service) markStarted(ctx context.Context, d deliveryRow, n int, res sendResult) (bool, error) {
	err := store.ExpectOne(s.db.Exec(ctx, `UPDATE webhook_deliveries SET attempt = ?, request_headers = ?, request_body = ?,
			response_status = NULL, response_headers = NULL, response_body = NULL, error = NULL, duration_ms = NULL,
			delivered_at = NULL, next_retry_at = NULL, updated_at = ?
		WHERE id = ? AND organization_id = ? AND status = ? AND attempt = ?`,
		n, encodeHeaders(res.RequestHeaders), string(res.Body), store.Now(),
		d.ID, d.OrganizationID, DeliveryPending, n-1))
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// recordUnknown records that the delivery's in-flight attempt has an
// unknown outcome (why says how that came to be), keeping the request it
// started with: it is retried on the schedule, or fails the delivery when
// it was the last attempt.
func (s *Service) recordUnknown(ctx context.Context, d deliveryRow, why string) (attemptResult, error) {
	headers := map[string]string{}
	_ = json.Unmarshal([]byte(d.RequestHeaders), &headers)
	s.log.Warn("webhooks: a delivery attempt has an unknown outcome", "delivery_id", d.ID, "webhook_id", d.WebhookID, "attempt", d.Attempt)
	return s.record(ctx, d, d.Attempt, store.Now(), sendResult{RequestHeaders: headers, Body: []byte(d.RequestBody),
		Err: why, Retryable: true, Unknown: true})
}

// encodeHeaders is a captured header map as the delivery row stores it.
func encodeHeaders(h map[string]string) string {
	if h == nil {
		h = map[string]string{}
	}
	b, _ := json.Marshal(h)
	return string(b)
}

// record stores attempt n's outcome: success, a retry at the next delay of
// the schedule, or the final failure, and keeps the webhook's count of
// consecutive failed deliveries. d is the row as this run last saw it:
// either before attempt n (d.Attempt is n-1: an attempt that sent
// nothing) or with attempt n started (d.Attempt is n); the outcome counts
// only if the row is still so, so that of two runs only one records it.
func (s *Service) record(ctx context.Context, d deliveryRow, n int, at time.Time, res sendResult) (attemptResult, error) {
	out := attemptResult{Outcome: outcomeFailed}
	status := DeliveryFailed
	errText := res.Err
	var next *time.Time
	switch {
	case res.Success:
		out.Outcome, status = outcomeSuccess, DeliverySuccess
	case res.Retryable && n < s.maxAttempts():
		out.Outcome, status = outcomeRetry, DeliveryPending
		out.Wait = s.cfg.Retries[n-1]
		t := store.Now().Add(out.Wait)
		next = &t
	case res.Retryable:
		errText += fmt.Sprintf(" (gave up after %d attempts)", n)
	}
	if res.Unknown {
		out.Outcome = outcomeUnknown
	}
	reqHeaders := encodeHeaders(res.RequestHeaders)
	from := `attempt = ?`
	if d.Attempt == n {
		from = `attempt = ? AND next_retry_at IS NULL` // started by this run, or found in flight
	}
	var respHeaders *string
	if res.ResponseHeaders != nil {
		b, _ := json.Marshal(res.ResponseHeaders)
		text := string(b)
		respHeaders = &text
	}
	var durationMS *int64
	var deliveredAt *time.Time
	if res.Sent {
		ms := res.Duration.Milliseconds()
		durationMS, deliveredAt = &ms, &at
	}
	now := store.Now()
	err := s.db.WithTx(ctx, func(tx *store.Tx) error {
		if err := store.ExpectOne(tx.Exec(ctx, `UPDATE webhook_deliveries SET status = ?, attempt = ?,
				request_headers = ?, request_body = ?, response_status = ?, response_headers = ?, response_body = ?,
				error = ?, duration_ms = ?, delivered_at = ?, next_retry_at = ?, updated_at = ?
			WHERE id = ? AND organization_id = ? AND status = ? AND `+from,
			status, n, reqHeaders, string(res.Body), res.Status, respHeaders, res.ResponseBody,
			optional(errText), durationMS, deliveredAt, next, now,
			d.ID, d.OrganizationID, DeliveryPending, d.Attempt)); err != nil {
			return err
		}
		switch status {
		case DeliverySuccess:
			_, err := tx.Exec(ctx, `UPDATE webhooks SET consecutive_failures = 0 WHERE id = ? AND organization_id = ?`,
				d.WebhookID, d.OrganizationID)
			return err
		case DeliveryFailed:
			_, err := tx.Exec(ctx, `UPDATE webhooks SET consecutive_failures = consecutive_failures + 1 WHERE id = ? AND organization_id = ?`,
				d.WebhookID, d.OrganizationID)
			return err
		}
		return nil
	})
	if errors.Is(err, store.ErrNotFound) {
		return attemptResult{}, nil // another run of the job recorded this attempt first
	}
	if err != nil {
		return attemptResult{}, err
	}
	s.metrics.observe(out.Outcome, res.Duration, deliveredAt != nil)
	s.log.Debug("webhooks: delivery attempt", "delivery_id", d.ID, "webhook_id", d.WebhookID,
		"attempt", n, "outcome", out.Outcome, "error", errText)
	return out, nil
}

// abandon fails a delivery that cannot be sent any more (its webhook was
// deleted or deactivated), without an attempt.
func (s *Service) abandon(ctx context.Context, d deliveryRow, reason string) (attemptResult, error) {
	err := store.ExpectOne(s.db.Exec(ctx, `UPDATE webhook_deliveries SET status = ?, error = ?, next_retry_at = NULL, updated_at = ?
		WHERE id = ? AND organization_id = ? AND status = ? AND attempt = ?`,
		DeliveryFailed, reason, store.Now(), d.ID, d.OrganizationID, DeliveryPending, d.Attempt))
	if errors.Is(err, store.ErrNotFound) {
		return attemptResult{}, nil
	}
	if err != nil {
		return attemptResult{}, err
	}
	s.metrics.observe(outcomeFailed, 0, false)
	s.log.Info("webhooks: delivery abandoned", "delivery_id", d.ID, "webhook_id", d.WebhookID, "reason", reason)
	return attemptResult{Outcome: outcomeFailed}, nil
}
