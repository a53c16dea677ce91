package main

import (
	"io"
	"strings"
	"testing"
	"time"
)

// TestInboxSettings reads the Inbox's flags into its configuration and
// refuses what cannot work, naming the flag.
func TestInboxSettings(t *testing.T) {
	parse := func(args ...string) (inboxFlags, jobFlags) {
		t.Helper()
		var s settings
		inf, jf := addInboxFlags(&s), addJobFlags(&s)
		if err := s.parse("serve", args, io.Discard); err != nil {
			t.Fatal(err)
		}
		return inf, jf
	}
	inf, _ := parse("--inbox-provider", "openai", "--webhook-retries", "10s,1m", "--inbox-retention", "48h", "--webhook-allow-private-targets", "true")
	cfg, err := inf.config()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Provider != "openai" || len(cfg.WebhookRetries) != 2 || cfg.WebhookRetries[1] != time.Minute || cfg.Retention != 48*time.Hour || !cfg.WebhookAllowPrivateTargets || cfg.SMTPAddr == "" {
		t.Fatalf("config: %+v", cfg)
	}
	for _, bad := range [][]string{
		{"--inbox-provider", "claude"},
		{"--webhook-retries", "1m,soon"},
		{"--inbox-retention", "5m"},
		{"--inbox-max-message-bytes", "12"},
	} {
		inf, _ := parse(bad...)
		if _, err := inf.config(); err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(bad[0], "--")) {
			t.Errorf("%v: %v", bad, err)
		}
	}
	_, jf := parse("--jobs", "sometimes")
	if _, err := jf.open(t.Context(), nil, false, nil); err == nil || !strings.Contains(err.Error(), "--jobs") {
		t.Errorf("--jobs sometimes: %v", err)
	}
}
