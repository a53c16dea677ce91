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

// Timeout implements river.Worker: an attempt is bounded by Config.Timeout;
// the rest is reading and writing a few rows.
func (w *deliveryWorker) Timeout(job *river.Job[deliveryArgs]) time.Duration {
	if s := w.reg.get(job.Args.Product); s != nil {
		return s.cfg.Timeout + time.Minute
	}
	return 0
}

// Outcomes of an attempt, as counted by the metrics.
const (
	outcomeSuccess = "success"
	outcomeRetry   = "retry"
	outcomeFailed  = "failed"
)

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
// on the same attempt only the first to record it counts.
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
	secret, err := s.unseal(w.SealedSecret, secretContext(w.ID))
	if err != nil {
		return attemptResult{}, err
	}
	n := d.Attempt + 1
	at := store.Now()
	body, err := deliveryBody(ev.Payload, d.ID, n, at)
	if err != nil {
		return attemptResult{}, err
	}
	var res sendResult
	if u, perr := url.Parse(w.URL); perr == nil && u.Scheme != "https" && !s.cfg.AllowPrivateTargets {
		res = sendResult{Body: body, RequestHeaders: map[string]string{},
			Err: "the target URL must use https (plain http is allowed only in development); nothing was sent"}
	} else {
		res, err = s.send(ctx, sendRequest{URL: w.URL, Auth: w.Auth, Secret: secret, Credentials: creds,
			DeliveryID: d.ID, Slug: d.EventSlug, Body: body, At: at})
		if err != nil {
			return attemptResult{}, err
		}
	}
	return s.record(ctx, d, n, at, res)
}

// record stores attempt n's outcome: success, a retry at the next delay of
// the schedule, or the final failure, and keeps the webhook's count of
// consecutive failed deliveries.
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
	reqHeaders, _ := json.Marshal(res.RequestHeaders)
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
			WHERE id = ? AND organization_id = ? AND status = ? AND attempt = ?`,
			status, n, string(reqHeaders), string(res.Body), res.Status, respHeaders, res.ResponseBody,
			optional(errText), durationMS, deliveredAt, next, now,
			d.ID, d.OrganizationID, DeliveryPending, n-1)); err != nil {
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
