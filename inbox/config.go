package inbox

import "time"

// Config is the Inbox's own configuration, beyond what every product
// shares (app.Deps). Zero values mean the documented defaults.
type Config struct {
	// MailDomain is the domain of inbox addresses ("inbox.localhost").
	MailDomain string
	// SMTPAddr is where the SMTP intake listens ("127.0.0.1:2525"); "off"
	// disables it.
	SMTPAddr string
	// SMTPTLSCertFile and SMTPTLSKeyFile are a PEM certificate (chain,
	// leaf first) and its private key. With both set the SMTP intake
	// offers STARTTLS, so a relay or MX on another host can encrypt the
	// hop; the files are read again when they change (intake_tls.go), so a
	// renewed certificate needs no restart. Neither set: plain SMTP only.
	SMTPTLSCertFile, SMTPTLSKeyFile string
	// SMTPRequireTLS refuses mail over plain text from peers that are not
	// on loopback (MAIL answers 530 until STARTTLS), for an intake that
	// faces networks where nothing else encrypts. It needs the
	// certificate. Off, STARTTLS is offered and plain text still accepted
	// (relays that cannot encrypt keep working).
	SMTPRequireTLS bool
	// MaxMessageBytes caps one received message (default 25 MiB).
	MaxMessageBytes int64
	// Provider picks the processing agent's provider: "extractor" (the
	// built-in offline extractor, default) or "openai" (an
	// OpenAI-compatible chat-completions API).
	Provider string
	// OpenAIURL, OpenAIModel and OpenAIKey configure the "openai" provider.
	OpenAIURL, OpenAIModel, OpenAIKey string
	// WebhookAllowPrivateTargets lets webhooks reach loopback and private
	// addresses: development only.
	WebhookAllowPrivateTargets bool
	// WebhookRetries are the delays between delivery attempts.
	WebhookRetries []time.Duration
	// Retention is how long soft-deleted rows are kept before the purge
	// (default 30 days).
	Retention time.Duration
}

func (c Config) withDefaults() Config {
	if c.MailDomain == "" {
		c.MailDomain = "inbox.localhost"
	}
	if c.SMTPAddr == "" {
		c.SMTPAddr = "127.0.0.1:2525"
	}
	if c.MaxMessageBytes <= 0 {
		c.MaxMessageBytes = 25 << 20
	}
	if c.Provider == "" {
		c.Provider = "extractor"
	}
	if c.Retention <= 0 {
		c.Retention = 30 * 24 * time.Hour
	}
	return c
}
