package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/kobana/kobana-mcp/inbox"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
)

// jobFlags say where background jobs run: in the serving process (the
// embedded default), or only in `kobana-mcp worker` processes when
// deployed at scale (serve --jobs=off on the API replicas).
type jobFlags struct{ mode, concurrency *string }

func addJobFlags(s *settings) jobFlags {
	return jobFlags{
		mode:        s.add("jobs", "KOBANA_JOBS", "in-process", "where background jobs run: in-process (this process works them) or off (this process only enqueues; run `kobana-mcp worker` beside it)"),
		concurrency: s.add("job-concurrency", "KOBANA_JOB_CONCURRENCY", "10", "how many jobs one process runs at once"),
	}
}

// open builds the process's queue; work forces working (the worker
// command).
func (f jobFlags) open(ctx context.Context, db *store.DB, work bool, log *slog.Logger) (*jobs.Queue, error) {
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
	return jobs.New(ctx, db, jobs.Config{Work: work, Concurrency: n, Logger: log.With("component", "jobs")})
}

// inboxFlags are the Inbox's own settings (inbox.Config).
type inboxFlags struct {
	mailDomain, smtpAddr, maxMessage, provider, openaiURL, openaiModel, openaiKey, allowPrivate, retries, retention *string
}

func addInboxFlags(s *settings) inboxFlags {
	return inboxFlags{
		mailDomain:   s.add("inbox-mail-domain", "KOBANA_INBOX_MAIL_DOMAIN", "inbox.localhost", "domain of the Inbox's receiving addresses"),
		smtpAddr:     s.add("inbox-smtp-addr", "KOBANA_INBOX_SMTP_ADDR", "127.0.0.1:2525", "listen address of the Inbox's SMTP intake; off disables it"),
		maxMessage:   s.add("inbox-max-message-bytes", "KOBANA_INBOX_MAX_MESSAGE_BYTES", "26214400", "largest e-mail the Inbox accepts, in bytes (SMTP and HTTP intake)"),
		provider:     s.add("inbox-provider", "KOBANA_INBOX_PROVIDER", "extractor", "the processing agent: extractor (built-in, offline) or openai (an OpenAI-compatible chat-completions API)"),
		openaiURL:    s.add("inbox-openai-url", "KOBANA_INBOX_OPENAI_URL", "https://api.openai.com/v1", "base URL of the OpenAI-compatible API (provider openai)"),
		openaiModel:  s.add("inbox-openai-model", "KOBANA_INBOX_OPENAI_MODEL", "gpt-4o-mini", "default model of the openai provider (an agent's llm_model wins)"),
		openaiKey:    s.add("inbox-openai-key", "KOBANA_INBOX_OPENAI_KEY", "", "API key of the openai provider (prefer the environment variable)"),
		allowPrivate: s.add("webhook-allow-private-targets", "KOBANA_WEBHOOK_ALLOW_PRIVATE_TARGETS", "false", "development only: let webhooks reach loopback, private and link-local addresses, over http too"),
		retries:      s.add("webhook-retries", "KOBANA_WEBHOOK_RETRIES", "1m,5m,30m,1h,3h,4h", "delays between webhook delivery attempts (comma-separated durations; 6 delays = 7 attempts)"),
		retention:    s.add("inbox-retention", "KOBANA_INBOX_RETENTION", "720h", "how long deleted inboxes (with their e-mails), agents and webhooks are kept before the daily purge removes them"),
	}
}

func (f inboxFlags) config() (inbox.Config, error) {
	var max int64
	if _, err := fmt.Sscan(*f.maxMessage, &max); err != nil || max < 1024 {
		return inbox.Config{}, fmt.Errorf("--inbox-max-message-bytes must be a number of bytes of at least 1024")
	}
	var retries []time.Duration
	for _, d := range splitList(*f.retries) {
		v, err := time.ParseDuration(d)
		if err != nil || v <= 0 {
			return inbox.Config{}, fmt.Errorf("--webhook-retries: %q is not a positive duration", d)
		}
		retries = append(retries, v)
	}
	retention, err := time.ParseDuration(*f.retention)
	if err != nil || retention < time.Hour {
		return inbox.Config{}, fmt.Errorf("--inbox-retention must be a duration of at least 1h")
	}
	switch *f.provider {
	case "extractor", "openai":
	default:
		return inbox.Config{}, fmt.Errorf("--inbox-provider must be extractor or openai, not %q", *f.provider)
	}
	return inbox.Config{
		MailDomain:                 *f.mailDomain,
		SMTPAddr:                   *f.smtpAddr,
		MaxMessageBytes:            max,
		Provider:                   *f.provider,
		OpenAIURL:                  *f.openaiURL,
		OpenAIModel:                *f.openaiModel,
		OpenAIKey:                  *f.openaiKey,
		WebhookAllowPrivateTargets: *f.allowPrivate == "true" || *f.allowPrivate == "1",
		WebhookRetries:             retries,
		Retention:                  retention,
	}, nil
}

// productConfig is the product-specific configuration of a product key.
func productConfig(key string, inboxCfg inbox.Config) any {
	if key == "inbox" {
		return inboxCfg
	}
	return nil
}
