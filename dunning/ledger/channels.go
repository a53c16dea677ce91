package ledger

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/platform/mail"
	"github.com/kobana/kobana-mcp/platform/messaging"
	"github.com/kobana/kobana-mcp/platform/ratelimit"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/rest"
)

// The providers a channel can be served by. Which one serves a channel is
// each organization's choice (dunning_settings.channels), among those the
// deployment configured; outbox is always there.
const (
	// ProviderOutbox keeps the message in the notification log and marks
	// it sent: the embedded default, which needs nothing installed, so a
	// newcomer reads exactly what a debtor would have received.
	ProviderOutbox = "outbox"
	// ProviderSMTP sends e-mail through the deployment's relay
	// (platform/mail).
	ProviderSMTP = "smtp"
	// ProviderTwilio sends SMS and WhatsApp through Twilio's Messages API
	// (platform/messaging).
	ProviderTwilio = "twilio"
)

// ChannelConfig is the deployment's providers for the messages Dunning
// sends, from the --dunning-smtp-* and --dunning-twilio-* settings. A
// provider left unset is not offered: every channel then stays in the
// outbox, which is the default of every organization anyway.
type ChannelConfig struct {
	// SMTP is the relay e-mail is submitted to; nil: no e-mail leaves the
	// process.
	SMTP *mail.Config
	// Twilio sends SMS and WhatsApp; nil: neither leaves the process. Its
	// StatusCallback is set per message (the notification's own callback
	// URL under the product's public URL), so status callbacks name the
	// row they are about.
	Twilio *messaging.TwilioConfig

	// BureauURL is where the credit bureaus and the notary are reached
	// (the protocol of package bureau, a gateway serving all of them);
	// empty serves the embedded provider on a loopback listener of this
	// process, where nothing leaves the machine. BureauSecret verifies
	// their callbacks.
	BureauURL, BureauSecret string

	// LinkBase replaces the product's public URL in the links Dunning
	// hands out (unsubscribe, status callbacks). Tests set an https base,
	// which List-Unsubscribe requires, while serving plain http on
	// loopback.
	LinkBase string

	// SendRates is each paced provider's own rate as the time between two
	// of its messages (smtp, twilio), from --dunning-send-rates: every
	// worker process together keeps to it (dunning/notify's pace.go).
	SendRates map[string]time.Duration

	// PixWebhook is the mutual-TLS listener of the Pix webhook
	// (pix_webhook_tls.go), from the --dunning-pix-mtls-* settings.
	PixWebhook PixWebhookConfig
}

// Settings declares the product's own settings on s (docs/operating.md
// "Configuration"), bound to c: the check validates them and fills c once
// they are parsed.
func (c *ChannelConfig) Settings(s *productkit.Settings) func() error {
	host := s.Add("dunning-smtp-host", "KOBANA_DUNNING_SMTP_HOST", "", "SMTP relay Dunning sends e-mail through; empty keeps e-mail in the outbox (the notification log)")
	port := s.Add("dunning-smtp-port", "KOBANA_DUNNING_SMTP_PORT", "", "port of the relay (default 587, or 465 with implicit-tls)")
	user := s.Add("dunning-smtp-username", "KOBANA_DUNNING_SMTP_USERNAME", "", "AUTH PLAIN user at the relay (empty: no authentication)")
	pass := s.Add("dunning-smtp-password", "KOBANA_DUNNING_SMTP_PASSWORD", "", "AUTH PLAIN password (prefer the environment variable)")
	tlsPolicy := s.Add("dunning-smtp-tls", "KOBANA_DUNNING_SMTP_TLS", "starttls-required", "starttls-required, starttls-opportunistic, implicit-tls or none (loopback relays only)")
	from := s.Add("dunning-smtp-from", "KOBANA_DUNNING_SMTP_FROM", "", `From of Dunning's e-mail ("Cobrança <cobranca@example.com>"); required with the host`)
	sid := s.Add("dunning-twilio-account-sid", "KOBANA_DUNNING_TWILIO_ACCOUNT_SID", "", "Twilio account (AC…) for SMS and WhatsApp; empty keeps them in the outbox")
	token := s.Add("dunning-twilio-auth-token", "KOBANA_DUNNING_TWILIO_AUTH_TOKEN", "", "Twilio auth token: authenticates requests and verifies status callbacks (prefer the environment variable)")
	smsFrom := s.Add("dunning-twilio-from", "KOBANA_DUNNING_TWILIO_FROM", "", "SMS sender: an E.164 number of the account or an alphanumeric sender id")
	waFrom := s.Add("dunning-twilio-whatsapp-from", "KOBANA_DUNNING_TWILIO_WHATSAPP_FROM", "", "WhatsApp sender, an E.164 number")
	bureauURL := s.Add("dunning-bureau-url", "KOBANA_DUNNING_BUREAU_URL", "", "gateway to the credit bureaus and the notary (docs/decisions.md \"Dunning: credit bureaus, protest and agreements\"); empty serves the embedded test provider on loopback")
	bureauSecret := s.Add("dunning-bureau-secret", "KOBANA_DUNNING_BUREAU_SECRET", "", "shared secret the gateway signs its callbacks with (required with the URL)")
	baseURL := s.Add("dunning-twilio-base-url", "KOBANA_DUNNING_TWILIO_BASE_URL", messaging.TwilioBaseURL, "Twilio's API (https; http only on loopback, for tests)")
	rates := s.Add("dunning-send-rates", "KOBANA_DUNNING_SEND_RATES", "", `each provider's own send rate, held across every worker process ("twilio=10-S,smtp=50-S": messages per S, M or H); empty: no pacing`)
	pixCheck := c.PixWebhook.settings(s)
	return func() error {
		if err := pixCheck(); err != nil {
			return err
		}
		var err error
		if c.SendRates, err = ParseSendRates(*rates); err != nil {
			return fmt.Errorf("--dunning-send-rates: %w", err)
		}
		c.SMTP, c.Twilio = nil, nil
		c.BureauURL, c.BureauSecret = *bureauURL, *bureauSecret
		if c.BureauURL != "" && c.BureauSecret == "" {
			return errors.New("--dunning-bureau-secret is required with --dunning-bureau-url")
		}
		if *host != "" {
			policy, err := mail.ParseTLSPolicy(*tlsPolicy)
			if err != nil {
				return fmt.Errorf("--dunning-smtp-tls: %w", err)
			}
			cfg := mail.Config{Host: *host, Username: *user, Password: *pass, TLS: policy, From: *from}
			if *port != "" {
				if cfg.Port, err = strconv.Atoi(*port); err != nil {
					return fmt.Errorf("--dunning-smtp-port must be a number, not %q", *port)
				}
			}
			if *from == "" {
				return errors.New("--dunning-smtp-from is required with --dunning-smtp-host")
			}
			// New checks everything it can without connecting.
			if _, err := mail.New(cfg); err != nil {
				return fmt.Errorf("--dunning-smtp-*: %w", err)
			}
			c.SMTP = &cfg
		} else if *user != "" || *from != "" || *port != "" {
			return errors.New("--dunning-smtp-port, -username and -from need --dunning-smtp-host")
		}
		if *sid != "" {
			cfg := messaging.TwilioConfig{AccountSID: *sid, AuthToken: *token, From: *smsFrom, WhatsAppFrom: *waFrom, BaseURL: *baseURL}
			if *token == "" {
				// Callbacks are verified with the auth token, so an API key
				// alone would leave them unverifiable.
				return errors.New("--dunning-twilio-auth-token is required with --dunning-twilio-account-sid")
			}
			if _, err := messaging.NewTwilio(cfg); err != nil {
				return fmt.Errorf("--dunning-twilio-*: %w", err)
			}
			c.Twilio = &cfg
		} else if *token != "" || *smsFrom != "" || *waFrom != "" {
			return errors.New("--dunning-twilio-auth-token, -from and -whatsapp-from need --dunning-twilio-account-sid")
		}
		return nil
	}
}

// ParseSendRates reads "provider=<count>-<S|M|H>,…" (the providers smtp
// and twilio, the rate as --rate-limits writes it) into the time between
// two messages of each.
func ParseSendRates(spec string) (map[string]time.Duration, error) {
	out := map[string]time.Duration{}
	for _, part := range strings.Split(spec, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		k = strings.TrimSpace(k)
		if !ok || (k != ProviderSMTP && k != ProviderTwilio) {
			return nil, fmt.Errorf("%q: want smtp=<rate> or twilio=<rate>, like twilio=10-S", part)
		}
		r, err := ratelimit.ParseRate(v)
		if err != nil {
			return nil, err
		}
		out[k] = r.Period / time.Duration(r.Limit)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// ChannelSenders are the senders of one deployment, by provider, and what each
// channel may be served by. Built once per listener from ChannelConfig.
type ChannelSenders struct {
	Senders map[string]messaging.Sender
	// TwilioToken verifies status callbacks ("" without Twilio).
	TwilioToken string
	// smsFrom and whatsAppFrom say which Twilio channels have a sender.
	smsFrom, whatsAppFrom bool
}

// NewChannels builds the deployment's senders. A configuration that
// passed settings' check builds; one that does not (a test's) is an error.
func NewChannels(cfg ChannelConfig) (*ChannelSenders, error) {
	ch := &ChannelSenders{Senders: map[string]messaging.Sender{ProviderOutbox: outboxSender{}}}
	if cfg.SMTP != nil {
		client, err := mail.New(*cfg.SMTP)
		if err != nil {
			return nil, fmt.Errorf("dunning: smtp: %w", err)
		}
		ch.Senders[ProviderSMTP] = client.Sender()
	}
	if cfg.Twilio != nil {
		tw, err := messaging.NewTwilio(*cfg.Twilio)
		if err != nil {
			return nil, fmt.Errorf("dunning: twilio: %w", err)
		}
		ch.Senders[ProviderTwilio] = tw
		ch.TwilioToken = cfg.Twilio.AuthToken
		ch.smsFrom = cfg.Twilio.From != "" || cfg.Twilio.MessagingServiceSID != ""
		ch.whatsAppFrom = cfg.Twilio.WhatsAppFrom != "" || cfg.Twilio.MessagingServiceSID != ""
	}
	return ch, nil
}

// Offers reports whether the deployment can serve channel with provider:
// the outbox serves every channel; smtp serves e-mail when a relay is
// configured; twilio serves SMS and WhatsApp when the account has a
// sender for it. PATCH /v1/settings accepts only what this allows.
func (c *ChannelSenders) Offers(channel, provider string) bool {
	if _, ok := c.Senders[provider]; !ok {
		return false
	}
	switch provider {
	case ProviderOutbox:
		return messaging.Channel(channel).Valid()
	case ProviderSMTP:
		return channel == string(messaging.Email)
	case ProviderTwilio:
		return (channel == string(messaging.SMS) && c.smsFrom) || (channel == string(messaging.WhatsApp) && c.whatsAppFrom)
	}
	return false
}

// Providers are the providers the deployment offers for channel, outbox
// first.
func (c *ChannelSenders) Providers(channel string) []string {
	var out []string
	for _, p := range []string{ProviderOutbox, ProviderSMTP, ProviderTwilio} {
		if c.Offers(channel, p) {
			out = append(out, p)
		}
	}
	return out
}

// Resolve is the provider that serves channel for an organization whose
// settings are st, and whether the channel is enabled. A provider the
// organization chose but the deployment no longer offers (its settings
// were removed) falls back to the outbox: the message is kept, readable
// in the log and resendable, rather than lost or sent somewhere else.
func (c *ChannelSenders) Resolve(st Settings, channel string) (provider string, enabled bool) {
	s, ok := st.Channels[channel]
	if !ok {
		return ProviderOutbox, false
	}
	if !c.Offers(channel, s.Provider) {
		return ProviderOutbox, s.Enabled
	}
	return s.Provider, s.Enabled
}

// outboxSender is the outbox provider: the message is already in its
// dunning_notifications row, so sending it is recording that it was
// "sent" there. It never fails.
type outboxSender struct{}

// Send answers a receipt whose id names the row.
func (outboxSender) Send(_ context.Context, m messaging.Message) (messaging.Receipt, error) {
	return messaging.Receipt{Channel: m.Channel, ID: "outbox-" + m.ID, Status: messaging.StatusSent, Detail: "kept in the outbox"}, nil
}

// checkProviders refuses settings whose channels name a provider the
// deployment does not serve (smtp without --dunning-smtp-host, twilio
// without --dunning-twilio-account-sid or without a sender for the
// channel): an organization chooses among what is configured. changed
// says the request touched the channels; settings stored before a
// deployment dropped a provider keep loading (resolve falls back to the
// outbox).
func (s *Service) checkProviders(st Settings, changed bool) error {
	if !changed || s.Offers == nil {
		return nil
	}
	for _, ch := range Channels {
		if p := st.Channels[ch].Provider; !s.Offers(ch, p) {
			return rest.Validation("the request is invalid", rest.FieldError{Field: "channels." + ch + ".provider",
				Message: fmt.Sprintf("%s is not configured in this deployment for %s (it offers %s)", p, ch, strings.Join(s.offered(ch), ", "))})
		}
	}
	return nil
}

// offered are the providers s.offers accepts for channel, outbox first.
func (s *Service) offered(channel string) []string {
	var out []string
	for _, p := range []string{ProviderOutbox, ProviderSMTP, ProviderTwilio} {
		if s.Offers(channel, p) {
			out = append(out, p)
		}
	}
	return out
}
