package observe

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe to read while the writer's timer
// writes to it.
type lockedBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes++
	return l.b.Write(p)
}

func (l *lockedBuffer) read() (string, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String(), l.writes
}

// TestLogWriter: informational lines wait for the interval and go out in
// one write; a warning goes out at once with the lines before it, in
// order; Close writes what is left; a burst past the limit is written
// without waiting.
func TestLogWriter(t *testing.T) {
	t.Parallel()
	out := &lockedBuffer{}
	w := NewLogWriter(out, time.Hour) // the timer never fires in this test
	log := slog.New(LogHandler{Handler: slog.NewJSONHandler(w, nil), Buffer: w})
	log.Info("one")
	log.Info("two")
	if got, _ := out.read(); got != "" {
		t.Fatalf("informational lines were written before the interval: %q", got)
	}
	log.Warn("three")
	got, writes := out.read()
	if writes != 1 || strings.Count(got, "\n") != 3 || !(strings.Index(got, `"one"`) < strings.Index(got, `"two"`) && strings.Index(got, `"two"`) < strings.Index(got, `"three"`)) {
		t.Fatalf("a warning did not write the lines before it at once, in order (%d writes): %q", writes, got)
	}
	log.Info("four")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got, _ := out.read(); !strings.Contains(got, `"four"`) {
		t.Fatalf("Close left a line unwritten: %q", got)
	}

	burst := &lockedBuffer{}
	w = NewLogWriter(burst, time.Hour)
	defer w.Close()
	line := strings.Repeat("x", 1023) + "\n"
	for range logWriterLimit/len(line) + 1 {
		_, _ = w.Write([]byte(line))
	}
	if got, writes := burst.read(); writes != 1 || len(got) < logWriterLimit {
		t.Fatalf("a burst past the limit waited for the interval: %d writes, %d bytes", writes, len(got))
	}
}

// TestLogWriterInterval: without a warning, lines still go out within the
// interval.
func TestLogWriterInterval(t *testing.T) {
	t.Parallel()
	out := &lockedBuffer{}
	w := NewLogWriter(out, 10*time.Millisecond)
	defer w.Close()
	slog.New(LogHandler{Handler: slog.NewTextHandler(w, nil), Buffer: w}).Info("late")
	start := time.Now()
	for {
		if got, _ := out.read(); strings.Contains(got, "late") {
			return
		}
		if time.Since(start) > 5*time.Second {
			t.Fatal("the line was never written")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestAccessLineRequestIDOnce: the access line carries the request id once,
// though LogHandler adds it to every other line of the request.
func TestAccessLineRequestIDOnce(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	log := slog.New(LogHandler{Handler: slog.NewJSONHandler(&logs, nil)})
	st := &requestState{id: "abc"}
	ctx := context.WithValue(context.Background(), requestIDKey{}, st)
	log.InfoContext(ctx, "inside")
	log.LogAttrs(ctx, slog.LevelInfo, "request", slog.String("request_id", "abc"))
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if strings.Count(l, `"request_id":"abc"`) != 1 {
			t.Fatalf("a line without its request id exactly once: %s", l)
		}
	}
}
