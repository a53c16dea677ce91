package kadu

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/kobana/kobana-mcp/platform/mail"
	"github.com/kobana/kobana-mcp/productkit"
)

// DeliveryMail is the SMTP relay results are e-mailed through, from the
// --kadu-smtp-* settings; nil SMTP: e-mail destinations are skipped (and
// logged).
type DeliveryMail struct {
	SMTP *mail.Config
}

func (c *DeliveryMail) settings(s *productkit.Settings) func() error {
	host := s.Add("kadu-smtp-host", "KOBANA_KADU_SMTP_HOST", "", "SMTP relay Kadu e-mails execution results through; empty: e-mail destinations receive nothing")
	port := s.Add("kadu-smtp-port", "KOBANA_KADU_SMTP_PORT", "", "port of the relay (default 587, or 465 with implicit-tls)")
	user := s.Add("kadu-smtp-username", "KOBANA_KADU_SMTP_USERNAME", "", "AUTH PLAIN user at the relay (empty: no authentication)")
	pass := s.Add("kadu-smtp-password", "KOBANA_KADU_SMTP_PASSWORD", "", "AUTH PLAIN password (prefer the environment variable)")
	tlsPolicy := s.Add("kadu-smtp-tls", "KOBANA_KADU_SMTP_TLS", "starttls-required", "starttls-required, starttls-opportunistic, implicit-tls or none (loopback relays only)")
	from := s.Add("kadu-smtp-from", "KOBANA_KADU_SMTP_FROM", "", `From of Kadu's e-mail ("Kadu <kadu@example.com>"); required with the host`)
	return func() error {
		c.SMTP = nil
		if *host == "" {
			if *user != "" || *from != "" || *port != "" {
				return errors.New("--kadu-smtp-port, -username and -from need --kadu-smtp-host")
			}
			return nil
		}
		policy, err := mail.ParseTLSPolicy(*tlsPolicy)
		if err != nil {
			return fmt.Errorf("--kadu-smtp-tls: %w", err)
		}
		cfg := mail.Config{Host: *host, Username: *user, Password: *pass, TLS: policy, From: *from}
		if *port != "" {
			if cfg.Port, err = strconv.Atoi(*port); err != nil {
				return fmt.Errorf("--kadu-smtp-port must be a number, not %q", *port)
			}
		}
		if *from == "" {
			return errors.New("--kadu-smtp-from is required with --kadu-smtp-host")
		}
		if _, err := mail.New(cfg); err != nil {
			return fmt.Errorf("--kadu-smtp-*: %w", err)
		}
		c.SMTP = &cfg
		return nil
	}
}

// mailer sends result e-mails; nil without a relay.
type mailer struct{ client *mail.Client }

func newMailer(c DeliveryMail) *mailer {
	if c.SMTP == nil {
		return nil
	}
	client, err := mail.New(*c.SMTP)
	if err != nil {
		return nil // settings checked it; a test's bad config sends nothing
	}
	return &mailer{client: client}
}
