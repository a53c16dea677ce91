package inbox

import (
	"fmt"
	"time"

	"github.com/kobana/kobana-mcp/productkit"
)

// settings declares the Inbox's own settings (docs/operating.md "Configuration"),
// bound to c: the check converts and validates them into c once parsed.
func (c *Config) settings(s *productkit.Settings) func() error {
	mailDomain := s.Add("inbox-mail-domain", "KOBANA_INBOX_MAIL_DOMAIN", "inbox.localhost", "domain of the Inbox's receiving addresses")
	smtpAddr := s.Add("inbox-smtp-addr", "KOBANA_INBOX_SMTP_ADDR", "127.0.0.1:2525", "listen address of the Inbox's SMTP intake; off disables it")
	maxMessage := s.Add("inbox-max-message-bytes", "KOBANA_INBOX_MAX_MESSAGE_BYTES", "26214400", "largest e-mail the Inbox accepts, in bytes (SMTP and HTTP intake)")
	provider := s.Add("inbox-provider", "KOBANA_INBOX_PROVIDER", "extractor", "the processing agent: extractor (built-in, offline) or openai (an OpenAI-compatible chat-completions API)")
	openaiURL := s.Add("inbox-openai-url", "KOBANA_INBOX_OPENAI_URL", "https://api.openai.com/v1", "base URL of the OpenAI-compatible API (provider openai)")
	openaiModel := s.Add("inbox-openai-model", "KOBANA_INBOX_OPENAI_MODEL", "gpt-4o-mini", "default model of the openai provider (an agent's llm_model wins)")
	openaiKey := s.Add("inbox-openai-key", "KOBANA_INBOX_OPENAI_KEY", "", "API key of the openai provider (prefer the environment variable)")
	tlsCert := s.Add("inbox-smtp-tls-cert", "KOBANA_INBOX_SMTP_TLS_CERT", "", "PEM certificate (chain) the SMTP intake offers with STARTTLS; reloaded when the file changes")
	tlsKey := s.Add("inbox-smtp-tls-key", "KOBANA_INBOX_SMTP_TLS_KEY", "", "PEM private key of --inbox-smtp-tls-cert")
	requireTLS := s.Add("inbox-smtp-require-tls", "KOBANA_INBOX_SMTP_REQUIRE_TLS", "false", "refuse MAIL before STARTTLS from peers other than loopback (needs the certificate)")
	retention := s.Add("inbox-retention", "KOBANA_INBOX_RETENTION", "720h", "how long deleted inboxes (with their e-mails), agents and webhooks are kept before the daily purge removes them")
	return func() error {
		var max int64
		if _, err := fmt.Sscan(*maxMessage, &max); err != nil || max < 1024 {
			return fmt.Errorf("--inbox-max-message-bytes must be a number of bytes of at least 1024")
		}
		ret, err := time.ParseDuration(*retention)
		if err != nil || ret < time.Hour {
			return fmt.Errorf("--inbox-retention must be a duration of at least 1h")
		}
		switch *provider {
		case "extractor", "openai":
		default:
			return fmt.Errorf("--inbox-provider must be extractor or openai, not %q", *provider)
		}
		c.MailDomain, c.SMTPAddr, c.MaxMessageBytes = *mailDomain, *smtpAddr, max
		c.Provider, c.OpenAIURL, c.OpenAIModel, c.OpenAIKey = *provider, *openaiURL, *openaiModel, *openaiKey
		c.Retention = ret
		c.SMTPTLSCertFile, c.SMTPTLSKeyFile = *tlsCert, *tlsKey
		c.SMTPRequireTLS = *requireTLS == "true" || *requireTLS == "1"
		if (c.SMTPTLSCertFile == "") != (c.SMTPTLSKeyFile == "") {
			return fmt.Errorf("--inbox-smtp-tls-cert and --inbox-smtp-tls-key go together")
		}
		if c.SMTPRequireTLS && c.SMTPTLSCertFile == "" {
			return fmt.Errorf("--inbox-smtp-require-tls needs --inbox-smtp-tls-cert and --inbox-smtp-tls-key")
		}
		return nil
	}
}
