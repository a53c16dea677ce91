package main

import (
	"os"
	"testing"
)

// TestMain gives every serve the tests start an SMTP intake on a port the
// kernel picks: several servers run at once (replicas sharing a database),
// and the default port would let only one of them start. It removes the
// binary the process tests shared (binary_test.go) once they have run.
func TestMain(m *testing.M) {
	if os.Getenv("KOBANA_INBOX_SMTP_ADDR") == "" {
		os.Setenv("KOBANA_INBOX_SMTP_ADDR", "127.0.0.1:0")
	}
	code := m.Run()
	removeBuiltBinary()
	os.Exit(code)
}
