package observe

import (
	"bytes"
	"io"
	"sync"
	"time"
)

// LogWriter batches log lines into fewer writes: one write per request
// (the access line) was a system call on every request, a tenth of what a
// signed-in read costs above the bare HTTP floor (docs/decisions.md,
// "Identity read cache"). Lines are kept in memory for at
// most the flush interval, or until 64 KiB wait, and LogHandler flushes at
// once after a line at Warn or above, so an error is never held back. The
// price: on a crash (kill -9) the last interval's informational lines can
// be lost — the access log is an account of traffic, not a record anything
// depends on; what must survive lives in the database.
type LogWriter struct {
	mu    sync.Mutex
	out   io.Writer
	buf   []byte
	err   error
	stop  chan struct{}
	done  chan struct{}
	limit int

	// While probe is set, the line holding it is kept in probed instead
	// of being written (capture). probeMu lets one capture run at a time.
	probeMu       sync.Mutex
	probe, probed []byte
}

// logWriterLimit is how much waits before it is written without waiting
// for the interval.
const logWriterLimit = 64 << 10

// NewLogWriter writes to out at least every interval (≤ 0: 100 ms). Close
// it to write what is left.
func NewLogWriter(out io.Writer, interval time.Duration) *LogWriter {
	if interval <= 0 {
		interval = 100 * time.Millisecond
	}
	w := &LogWriter{out: out, stop: make(chan struct{}), done: make(chan struct{}), limit: logWriterLimit}
	go w.loop(interval)
	return w
}

func (w *LogWriter) loop(interval time.Duration) {
	defer close(w.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			_ = w.Flush()
		}
	}
}

// Write keeps p to be written with the next flush. Each call is one log
// line (slog handlers write a record in one call), so lines are never cut.
func (w *LogWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.probe != nil && bytes.Contains(p, w.probe) {
		w.probed = append(w.probed[:0], p...)
		return len(p), nil
	}
	w.buf = append(w.buf, p...)
	if len(w.buf) >= w.limit {
		w.flushLocked()
	}
	return len(p), nil
}

// Flush writes what waits. It reports the first write error seen since the
// last Flush.
func (w *LogWriter) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.flushLocked()
	err := w.err
	w.err = nil
	return err
}

func (w *LogWriter) flushLocked() {
	if len(w.buf) == 0 {
		return
	}
	if _, err := w.out.Write(w.buf); err != nil && w.err == nil {
		w.err = err
	}
	// A burst that grew the buffer far past the limit is not kept.
	if cap(w.buf) > 4*w.limit {
		w.buf = nil
	} else {
		w.buf = w.buf[:0]
	}
}

// capture runs write and returns the line it wrote holding marker, which
// is kept from the output; nil when no such line came. Other lines written
// meanwhile are written as always. lineOut checks a handler's encoding
// with it (accessline.go).
func (w *LogWriter) capture(marker []byte, write func()) []byte {
	w.probeMu.Lock()
	defer w.probeMu.Unlock()
	w.mu.Lock()
	w.probe, w.probed = marker, nil
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		w.probe, w.probed = nil, nil
		w.mu.Unlock()
	}()
	write()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.probed
}

// Close stops the timer and writes what is left.
func (w *LogWriter) Close() error {
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	<-w.done
	return w.Flush()
}
