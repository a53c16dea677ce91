package observe

import (
	"bytes"
	"io"
	"log/slog"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"
)

// textHostile adds to hostile what only the text handler treats apart:
// the characters that make it quote, and the ones that look as if they
// should but do not.
var textHostile = append([]string{
	" ", "a b", "=", "a=b", `"`, `\`, `a\b`, "\x7f", "a\x7fb", "tab\there", "nul\x00",
	"\u00a0", "\u0085", "\u2000", "\u3000", "\u200b", "\u0301", "\ufeff", "\U0001F600", "\U000E0001",
	"\ufffd", "x\ufffdy", "\xef\xbf\xbd", "\U0010FFFF", "日本語", "-", "!#$%&'()*+,-./:;<>?@[]^_`{|}~",
}, hostile...)

// slogTextLine is what slog's TextHandler, made as serve makes it, writes.
func slogTextLine(t *testing.T, tm time.Time, level slog.Level, msg string, attrs []slog.Attr) []byte {
	t.Helper()
	return handlerLine(t, func(w io.Writer) slog.Handler { return slog.NewTextHandler(w, nil) }, tm, level, msg, attrs)
}

func TestAppendTextLineMatchesSlog(t *testing.T) {
	t.Parallel()
	zones := []*time.Location{time.UTC, time.Local, time.FixedZone("", -3*3600), time.FixedZone("", 5*3600+45*60), time.FixedZone("", -30)}
	times := []time.Time{
		time.Date(2026, 7, 28, 12, 34, 56, 789_000_000, time.UTC),
		time.Date(2026, 7, 28, 12, 34, 56, 789_999_999, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 100, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 1_000_000, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 10_000_000, time.UTC),
		time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC),
		time.Date(1, 1, 1, 12, 0, 0, 999_999_999, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999_999_999, time.UTC),
		time.Now(), // with a monotonic reading
	}
	floats := []float64{0, math.Copysign(0, -1), 0.001, 1.5, 12.345, 999.999, 1e-4, 1e-5, 1e-7, 5e-324, 123456789.123,
		1e20, 1e21, 1.5e300, -2.25, -1e-9, math.NaN(), math.Inf(1), math.Inf(-1)}
	levels := []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError, slog.LevelError + 2, slog.LevelDebug - 3}
	n := 0
	check := func(tm time.Time, level slog.Level, msg string, attrs []slog.Attr) {
		t.Helper()
		got, ok := appendTextLine(nil, tm, level, msg, attrs)
		if !ok {
			if y := tm.Year(); y >= 0 && y <= 9999 {
				t.Fatalf("appendTextLine refused %v at %v", attrs, tm)
			}
			return // a five-digit year, left to slog
		}
		if want := slogTextLine(t, tm, level, msg, attrs); !bytes.Equal(got, want) {
			t.Fatalf("line differs from slog's\n got %q\nwant %q", got, want)
		}
		n++
	}
	for _, tm := range times {
		for _, z := range zones {
			for _, level := range levels {
				check(tm.In(z), level, "request", nil)
			}
		}
	}
	for i, s := range textHostile {
		key := s
		if key == "" {
			key = "empty"
		}
		check(times[i%len(times)], levels[i%len(levels)], s, []slog.Attr{
			slog.String("product", "inbox"), slog.String("method", s), slog.String("path", s),
			slog.Int("status", 200+i), slog.Float64("duration_ms", floats[i%len(floats)]),
			slog.String(key, "key"), slog.Int("rpc_error", -32600-i), slog.Uint64("u", uint64(i)<<60),
			slog.Bool("b", i%2 == 0), slog.String("empty", ""), slog.String("request_id", s),
		})
	}
	for _, f := range floats {
		check(times[0], slog.LevelInfo, "request", []slog.Attr{slog.Float64("duration_ms", f)})
	}
	// The access line's own duration values: microseconds over 1000.
	for us := int64(0); us < 200_000; us += 7 {
		check(times[0], slog.LevelInfo, "request", []slog.Attr{slog.Float64("duration_ms", float64(us)/1000)})
	}
	// Every millisecond of a second, in a zone with an offset.
	for ms := 0; ms < 1000; ms++ {
		check(time.Date(2026, 3, 4, 5, 6, 7, ms*1_000_000+999, zones[3]), slog.LevelInfo, "request", nil)
	}
	t.Logf("%d lines compared", n)
}

func TestAppendTextLineRefusesWhatItDoesNotWrite(t *testing.T) {
	t.Parallel()
	now := time.Now()
	for _, attrs := range [][]slog.Attr{
		{slog.Any("any", struct{}{})},
		{slog.Duration("d", time.Second)},
		{slog.Time("t", now)},
		{slog.Group("g", slog.String("a", "b"))},
		{slog.String("", "no key")},
	} {
		if _, ok := appendTextLine(nil, now, slog.LevelInfo, "m", attrs); ok {
			t.Errorf("appendTextLine wrote %v", attrs)
		}
	}
	for _, tm := range []time.Time{{}, time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)} {
		if _, ok := appendTextLine(nil, tm, slog.LevelInfo, "m", nil); ok {
			t.Errorf("appendTextLine wrote the time %v", tm)
		}
	}
}

func FuzzAppendTextStringMatchesSlog(f *testing.F) {
	for _, s := range textHostile {
		f.Add(s)
	}
	tm := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		attrs := []slog.Attr{slog.String("path", s), slog.String("k"+s, s)}
		got, ok := appendTextLine(nil, tm, slog.LevelInfo, s, attrs)
		if want := slogTextLine(t, tm, slog.LevelInfo, s, attrs); !ok || !bytes.Equal(got, want) {
			t.Fatalf("line differs from slog's\n got %q\nwant %q", got, want)
		}
	})
}

// textAccessLine splits a text access line into what must be equal and
// what differs from run to run: its time and its duration.
var textAccessLine = regexp.MustCompile(`^time=(\S+) (level=.* status=\d+ duration_ms=)(\S+)( .*\n)$`)

func TestInstrumentDirectTextLineIsSlogsLine(t *testing.T) {
	t.Parallel()
	paths := append([]string{"/mcp", "/mcp", "/healthz", "/api/x"}, textHostile...)
	madeID := regexp.MustCompile(` request_id=[0-9a-f]{24}\n$`)
	for _, status := range []int{200, 404, 503} {
		var viaSlog bytes.Buffer
		runAccess(t, slog.New(LogHandler{Handler: slog.NewTextHandler(&viaSlog, nil)}), paths, status)

		var direct bytes.Buffer
		lw := NewLogWriter(&direct, time.Hour)
		log := slog.New(LogHandler{Handler: slog.NewTextHandler(lw, nil), Buffer: lw})
		if d := lineOut(log); d == nil || d.out != lw {
			t.Fatal("serve's text logger does not get the direct access line")
		}
		runAccess(t, log, paths, status)
		if status >= 500 && direct.Len() == 0 {
			t.Fatalf("status %d: the lines wait in the buffer", status)
		}
		_ = lw.Close()

		slow, fast := strings.SplitAfter(viaSlog.String(), "\n"), strings.SplitAfter(direct.String(), "\n")
		if len(slow) != len(paths)+1 || len(fast) != len(paths)+1 {
			t.Fatalf("status %d: %d lines through slog, %d direct, for %d requests", status, len(slow)-1, len(fast)-1, len(paths))
		}
		for i, p := range paths {
			s, f := textAccessLine.FindStringSubmatch(slow[i]), textAccessLine.FindStringSubmatch(fast[i])
			if s == nil || f == nil {
				t.Fatalf("status %d, path %q: not an access line\n slog   %q\n direct %q", status, p, slow[i], fast[i])
			}
			if i%2 == 1 { // the id is made, so different in each run
				s[4], f[4] = madeID.ReplaceAllString(s[4], "\n"), madeID.ReplaceAllString(f[4], "\n")
			}
			if s[2] != f[2] || s[4] != f[4] {
				t.Fatalf("status %d, path %q: lines differ\n slog   %q\n direct %q", status, p, slow[i], fast[i])
			}
			if _, err := time.Parse("2006-01-02T15:04:05.000Z07:00", f[1]); err != nil {
				t.Fatalf("time %s: %v", f[1], err)
			}
		}
	}
}
