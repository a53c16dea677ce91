package main

import (
	"os"
	"testing"
)

// TestMain gives every serve the tests start an SMTP intake on a port the
// kernel picks: several servers run at once (replicas sharing a database),
// and the default port would let only one of them start.
func TestMain(m *testing.M) {
	if os.Getenv("KOBANA_INBOX_SMTP_ADDR") == "" {
		os.Setenv("KOBANA_INBOX_SMTP_ADDR", "127.0.0.1:0")
	}
	os.Exit(m.Run())
}
