package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit"
)

// jobFlags say where background jobs run: in the serving process (the
// embedded default), or only in `kobana-mcp worker` processes when
// deployed at scale (serve --jobs=off on the API replicas).
type jobFlags struct{ mode, concurrency, rescueAfter *string }

func addJobFlags(s *settings) jobFlags {
	return jobFlags{
		mode:        s.Add("jobs", "KOBANA_JOBS", "in-process", "where background jobs run: in-process (this process works them) or off (this process only enqueues; run `kobana-mcp worker` beside it)"),
		concurrency: s.Add("job-concurrency", "KOBANA_JOB_CONCURRENCY", "10", "how many jobs one process runs at once"),
		rescueAfter: s.Add("job-rescue-after", "KOBANA_JOB_RESCUE_AFTER", jobs.DefaultRescueAfter.String(), "how long a job may stay running before another process takes it over (its process died); longer than every job kind's timeout"),
	}
}

// open builds the process's queue; work forces working (the worker
// command).
func (f jobFlags) open(ctx context.Context, db *store.DB, work bool, tp trace.TracerProvider, log *slog.Logger) (*jobs.Queue, error) {
	switch *f.mode {
	case "in-process":
		work = true
	case "off":
	default:
		return nil, fmt.Errorf("--jobs must be in-process or off, not %q", *f.mode)
	}
	var n int
	if _, err := fmt.Sscan(*f.concurrency, &n); err != nil || n < 1 {
		return nil, fmt.Errorf("--job-concurrency must be a positive number")
	}
	rescue, err := time.ParseDuration(*f.rescueAfter)
	if err != nil || rescue <= 0 {
		return nil, fmt.Errorf("--job-rescue-after must be a positive duration")
	}
	return jobs.New(ctx, db, jobs.Config{Work: work, Concurrency: n, RescueAfter: rescue, Tracer: tp, Logger: log.With("component", "jobs")})
}

// webhookFlags are how every product's webhooks are delivered
// (productkit.WebhookSettings).
type webhookFlags struct{ allowPrivate, retries *string }

func addWebhookFlags(s *settings) webhookFlags {
	return webhookFlags{
		allowPrivate: s.Add("webhook-allow-private-targets", "KOBANA_WEBHOOK_ALLOW_PRIVATE_TARGETS", "false", "development only: let webhooks reach loopback, private and link-local addresses, over http too"),
		retries:      s.Add("webhook-retries", "KOBANA_WEBHOOK_RETRIES", "1m,5m,30m,1h,3h,4h", "delays between webhook delivery attempts (comma-separated durations; 6 delays = 7 attempts)"),
	}
}

func (f webhookFlags) settings() (productkit.WebhookSettings, error) {
	var retries []time.Duration
	for _, d := range splitList(*f.retries) {
		v, err := time.ParseDuration(d)
		if err != nil || v <= 0 {
			return productkit.WebhookSettings{}, fmt.Errorf("--webhook-retries: %q is not a positive duration", d)
		}
		retries = append(retries, v)
	}
	return productkit.WebhookSettings{AllowPrivateTargets: *f.allowPrivate == "true" || *f.allowPrivate == "1", Retries: retries}, nil
}
