package producttest

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// failureLogLines bounds what FailureLog keeps: the last lines are the
// ones that explain a failure at the end of a long test.
const failureLogLines = 400

// FailureLog is a logger for the queues and servers a test starts: it
// keeps their warnings and errors (the last failureLogLines of them) and
// prints them only if the test fails. A failure that depends on the host's
// load (a write lock held past a timeout, a job retried) then shows what
// the workers saw, without a passing test's output being flooded, and
// nothing is written to t after the test has ended (a queue's goroutines
// may outlive it by a moment).
func FailureLog(t testing.TB) *slog.Logger {
	t.Helper()
	log, fl := newFailureLog()
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		fl.mu.Lock()
		lines := append([]string(nil), fl.lines...)
		fl.mu.Unlock()
		if len(lines) > 0 {
			t.Logf("warnings and errors logged during the test (last %d):\n%s", len(lines), strings.Join(lines, ""))
		}
	})
	return log
}

// newFailureLog is a Warn-level logger over a new buffer.
func newFailureLog() (*slog.Logger, *failureLog) {
	fl := &failureLog{}
	return slog.New(slog.NewTextHandler(fl, &slog.HandlerOptions{Level: slog.LevelWarn})), fl
}

// failureLog is the bounded line buffer behind FailureLog.
type failureLog struct {
	mu    sync.Mutex
	lines []string
}

func (f *failureLog) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, l := range bytes.SplitAfter(p, []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		f.lines = append(f.lines, string(l))
	}
	if over := len(f.lines) - failureLogLines; over > 0 {
		f.lines = append(f.lines[:0], f.lines[over:]...)
	}
	return len(p), nil
}
