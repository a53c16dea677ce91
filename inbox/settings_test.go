package inbox

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/productkit"
)

// TestInboxSettings reads the Inbox's own flags into its configuration and
// refuses what cannot work, naming the flag.
func TestInboxSettings(t *testing.T) {
	t.Parallel()
	parse := func(args ...string) (Config, error) {
		t.Helper()
		var cfg Config
		var s productkit.Settings
		check := cfg.settings(&s)
		if err := s.Parse("serve", args, io.Discard); err != nil {
			t.Fatal(err)
		}
		return cfg, check()
	}
	cfg, err := parse("--inbox-provider", "openai", "--inbox-retention", "48h")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Provider != "openai" || cfg.Retention != 48*time.Hour || cfg.SMTPAddr != "127.0.0.1:2525" || cfg.MaxMessageBytes != 25<<20 {
		t.Fatalf("config: %+v", cfg)
	}
	for _, bad := range [][]string{
		{"--inbox-provider", "claude"},
		{"--inbox-retention", "5m"},
		{"--inbox-max-message-bytes", "12"},
		{"--inbox-smtp-tls-cert", "cert.pem"},
		{"--inbox-smtp-require-tls", "true"},
	} {
		if _, err := parse(bad...); err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(bad[0], "--")) {
			t.Errorf("%v: %v", bad, err)
		}
	}
}
