package main

import (
	"io"
	"strings"
	"testing"
	"time"
)

// TestSharedJobAndWebhookSettings reads the binary's own job and webhook
// settings and refuses what cannot work, naming the flag.
func TestSharedJobAndWebhookSettings(t *testing.T) {
	t.Parallel()
	parse := func(args ...string) (webhookFlags, jobFlags) {
		t.Helper()
		var s settings
		wf, jf := addWebhookFlags(&s), addJobFlags(&s)
		if err := s.Parse("serve", args, io.Discard); err != nil {
			t.Fatal(err)
		}
		return wf, jf
	}
	wf, _ := parse("--webhook-retries", "10s,1m", "--webhook-allow-private-targets", "true")
	w, err := wf.settings()
	if err != nil || len(w.Retries) != 2 || w.Retries[1] != time.Minute || !w.AllowPrivateTargets {
		t.Fatalf("webhooks: %+v %v", w, err)
	}
	wf, _ = parse("--webhook-retries", "1m,soon")
	if _, err := wf.settings(); err == nil || !strings.Contains(err.Error(), "webhook-retries") {
		t.Errorf("bad retries: %v", err)
	}
	_, jf := parse("--jobs", "sometimes")
	if _, err := jf.open(t.Context(), nil, false, nil, nil); err == nil || !strings.Contains(err.Error(), "--jobs") {
		t.Errorf("--jobs sometimes: %v", err)
	}
}
