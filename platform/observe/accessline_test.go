package observe

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
)

// hostile are strings the access line may carry in its path (a decoded
// URL path can hold any byte) or in other values.
var hostile = []string{
	"", "/mcp", `/a"b\c/d`, "<script>&amp;</script>",
	"\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x7f",
	"\xff", "\xc3", "a\xe2\x82", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc0\xaf",
	"\u2028\u2029", "\ufffd", "é€😀 ação", "x\" level=ERROR msg=forged\n{\"time\":0}",
	"/" + strings.Repeat("long/path/é/\x01/", 2000),
}

// slogLine is what slog's JSONHandler, made as serve makes it, writes.
func slogLine(t *testing.T, tm time.Time, level slog.Level, msg string, attrs []slog.Attr) []byte {
	t.Helper()
	return handlerLine(t, func(w io.Writer) slog.Handler { return slog.NewJSONHandler(w, nil) }, tm, level, msg, attrs)
}

// handlerLine is what the handler newHandler makes writes for the record.
func handlerLine(t *testing.T, newHandler func(io.Writer) slog.Handler, tm time.Time, level slog.Level, msg string, attrs []slog.Attr) []byte {
	t.Helper()
	var out bytes.Buffer
	r := slog.NewRecord(tm, level, msg, 0)
	r.AddAttrs(attrs...)
	if err := newHandler(&out).Handle(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestAppendJSONLineMatchesSlog(t *testing.T) {
	t.Parallel()
	zones := []*time.Location{time.UTC, time.Local, time.FixedZone("", -3*3600), time.FixedZone("", 5*3600+45*60)}
	times := []time.Time{
		time.Date(2026, 7, 28, 12, 34, 56, 789_000_000, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 100, time.UTC),
		time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999_999_999, time.UTC),
		time.Now(), // with a monotonic reading
	}
	floats := []float64{0, 0.001, 1.5, 12.345, 999.999, 1e-6, 1e-7, 5e-324, 123456789.123, 1e20, 1e21, 1.5e300, -2.25, -1e-9}
	levels := []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError, slog.LevelError + 2}
	n := 0
	check := func(tm time.Time, level slog.Level, msg string, attrs []slog.Attr) {
		t.Helper()
		got, ok := appendJSONLine(nil, tm, level, msg, attrs)
		want := slogLine(t, tm, level, msg, attrs)
		if !ok {
			if !bytes.Contains(want, []byte("!ERROR")) {
				t.Fatalf("appendJSONLine refused %v at %v, which slog writes as %q", attrs, tm, want)
			}
			return
		}
		if !bytes.Equal(got, want) {
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
	for i, s := range hostile {
		f := floats[i%len(floats)]
		check(times[i%len(times)], levels[i%len(levels)], s, []slog.Attr{
			slog.String("product", "inbox"), slog.String("method", s), slog.String("path", s),
			slog.Int("status", 200+i), slog.Float64("duration_ms", f),
			slog.String(s, "key"), slog.Int("rpc_error", -32600-i), slog.Uint64("u", uint64(i)<<60),
			slog.Bool("b", i%2 == 0), slog.String("request_id", s),
		})
	}
	for _, f := range floats {
		check(times[0], slog.LevelInfo, "request", []slog.Attr{slog.Float64("duration_ms", f)})
	}
	// The access line's own duration values: microseconds over 1000.
	for us := int64(0); us < 200_000; us += 7 {
		check(times[0], slog.LevelInfo, "request", []slog.Attr{slog.Float64("duration_ms", float64(us)/1000)})
	}
	t.Logf("%d lines compared", n)
}

func TestAppendJSONLineRefusesWhatSlogWritesAnErrorFor(t *testing.T) {
	t.Parallel()
	now := time.Now()
	for _, attrs := range [][]slog.Attr{
		{slog.Any("any", struct{}{})},
		{slog.Duration("d", time.Second)},
		{slog.Float64("nan", nanValue())},
		{slog.Group("g", slog.String("a", "b"))},
	} {
		if _, ok := appendJSONLine(nil, now, slog.LevelInfo, "m", attrs); ok {
			t.Errorf("appendJSONLine wrote %v", attrs)
		}
	}
	if _, ok := appendJSONLine(nil, time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), slog.LevelInfo, "m", nil); ok {
		t.Error("appendJSONLine wrote a year slog writes an error for")
	}
}

func nanValue() float64 {
	zero := 0.0
	return zero / zero
}

func FuzzAppendJSONStringMatchesSlog(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	tm := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		attrs := []slog.Attr{slog.String("path", s), slog.String(s, s)}
		got, ok := appendJSONLine(nil, tm, slog.LevelInfo, s, attrs)
		if want := slogLine(t, tm, slog.LevelInfo, s, attrs); !ok || !bytes.Equal(got, want) {
			t.Fatalf("line differs from slog's\n got %q\nwant %q", got, want)
		}
	})
}

// serveLogger is the logger serve builds for --log-format json
// (cmd/kobana-mcp/serve.go), writing to out through a LogWriter.
func serveLogger(out io.Writer) (*slog.Logger, *LogWriter) {
	lw := NewLogWriter(out, time.Hour)
	return slog.New(LogHandler{Handler: slog.NewJSONHandler(lw, nil), Buffer: lw}), lw
}

func TestJSONLineOutTakesOnlyTheHandlerItCanMatch(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	log, lw := serveLogger(&out)
	if d := lineOut(log); d == nil || d.out != lw {
		t.Fatal("serve's JSON logger does not get the direct access line")
	}
	text := slog.New(LogHandler{Handler: slog.NewTextHandler(lw, nil), Buffer: lw})
	if d := lineOut(text); d == nil || d.out != lw {
		t.Fatal("serve's text logger does not get the direct access line")
	}
	if err := lw.Close(); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 {
		t.Fatalf("the check line reached the log: %q", out.String())
	}

	other := NewLogWriter(io.Discard, time.Hour)
	defer other.Close()
	var elsewhere bytes.Buffer
	for name, log := range map[string]*slog.Logger{
		"no buffer":       slog.New(LogHandler{Handler: slog.NewJSONHandler(lw, nil)}),
		"text, no buffer": slog.New(LogHandler{Handler: slog.NewTextHandler(lw, nil)}),
		"text source":     slog.New(LogHandler{Handler: slog.NewTextHandler(lw, &slog.HandlerOptions{AddSource: true}), Buffer: lw}),
		"text replace": slog.New(LogHandler{Handler: slog.NewTextHandler(lw, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				a.Value = slog.StringValue(a.Value.Time().Format(time.RFC3339))
			}
			return a
		}}), Buffer: lw}),
		"text with attrs":     slog.New(LogHandler{Handler: slog.NewTextHandler(lw, nil), Buffer: lw}).With("a", 1),
		"text with group":     slog.New(LogHandler{Handler: slog.NewTextHandler(lw, nil), Buffer: lw}).WithGroup("g"),
		"text another buffer": slog.New(LogHandler{Handler: slog.NewTextHandler(&elsewhere, nil), Buffer: other}),
		"not a LogHandler":    slog.New(slog.NewJSONHandler(lw, nil)),
		"source":              slog.New(LogHandler{Handler: slog.NewJSONHandler(lw, &slog.HandlerOptions{AddSource: true}), Buffer: lw}),
		"replace": slog.New(LogHandler{Handler: slog.NewJSONHandler(lw, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == "path" {
				a.Value = slog.StringValue("redacted")
			}
			return a
		}}), Buffer: lw}),
		"with attrs":     slog.New(LogHandler{Handler: slog.NewJSONHandler(lw, nil), Buffer: lw}).With("product", "inbox"),
		"with group":     slog.New(LogHandler{Handler: slog.NewJSONHandler(lw, nil), Buffer: lw}).WithGroup("g"),
		"another buffer": slog.New(LogHandler{Handler: slog.NewJSONHandler(&elsewhere, nil), Buffer: other}),
	} {
		if lineOut(log) != nil {
			t.Errorf("%s: the direct access line is taken for a handler that writes another line", name)
		}
	}
}

func TestLogWriterCaptureKeepsOnlyTheMarkedLine(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	w := NewLogWriter(&out, time.Hour)
	got := w.capture([]byte("MARK"), func() {
		_, _ = w.Write([]byte("before\n"))
		_, _ = w.Write([]byte("the MARK line\n"))
		_, _ = w.Write([]byte("after\n"))
	})
	_, _ = w.Write([]byte("MARK later\n"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if string(got) != "the MARK line\n" {
		t.Fatalf("captured %q", got)
	}
	if out.String() != "before\nafter\nMARK later\n" {
		t.Fatalf("written %q", out.String())
	}
}

// accessLines runs requests through Instrument with log and returns the
// lines written, each as its keys in order and its values.
func accessLines(t *testing.T, log *slog.Logger, flush func() string, paths []string, status int) []orderedLine {
	t.Helper()
	runAccess(t, log, paths, status)
	var lines []orderedLine
	for _, l := range strings.SplitAfter(flush(), "\n") {
		if l != "" {
			lines = append(lines, parseOrdered(t, l))
		}
	}
	return lines
}

// runAccess sends one request per path through Instrument with log, the
// even ones with a request id of their own.
func runAccess(t *testing.T, log *slog.Logger, paths []string, status int) {
	t.Helper()
	h := Instrument("inbox", NewMetrics(), log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := mcp.ObservationFrom(r.Context()); o != nil {
			o.Method, o.Era, o.Tool, o.ErrorCode = "tools/call", "2026", "emails_\"list\x00", -32603
		}
		w.WriteHeader(status)
	}))
	for i, p := range paths {
		r := httptest.NewRequest("POST", "/", nil)
		r.URL.Path = p
		if i%2 == 0 {
			r.Header.Set(RequestIDHeader, "req-"+string(rune('a'+i%26)))
		}
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
}

type orderedLine struct {
	keys   []string
	values map[string]json.RawMessage
}

func parseOrdered(t *testing.T, line string) orderedLine {
	t.Helper()
	if !strings.HasSuffix(line, "\n") {
		t.Fatalf("line without its newline: %q", line)
	}
	dec := json.NewDecoder(strings.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %q", line)
	}
	o := orderedLine{values: map[string]json.RawMessage{}}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		o.keys = append(o.keys, k.(string))
		o.values[k.(string)] = v
	}
	return o
}

func TestInstrumentDirectLineIsSlogsLine(t *testing.T) {
	t.Parallel()
	paths := append([]string{"/mcp", "/mcp", "/healthz", "/api/x"}, hostile...)
	for _, status := range []int{200, 404, 503} {
		var viaSlog bytes.Buffer
		slow := accessLines(t, slog.New(LogHandler{Handler: slog.NewJSONHandler(&viaSlog, nil)}),
			func() string { return viaSlog.String() }, paths, status)

		var direct bytes.Buffer
		log, lw := serveLogger(&direct)
		if lineOut(log) == nil {
			t.Fatal("serve's JSON logger does not get the direct access line")
		}
		fast := accessLines(t, log, func() string {
			if status >= 500 {
				// Written at once, like every line at Warn or above.
				return direct.String()
			}
			_ = lw.Close()
			return direct.String()
		}, paths, status)
		_ = lw.Close()

		if len(slow) != len(paths) || len(fast) != len(paths) {
			t.Fatalf("status %d: %d lines through slog, %d direct, for %d requests", status, len(slow), len(fast), len(paths))
		}
		for i := range slow {
			s, f := slow[i], fast[i]
			if strings.Join(s.keys, ",") != strings.Join(f.keys, ",") {
				t.Fatalf("status %d, path %q: keys\n slog   %v\n direct %v", status, paths[i], s.keys, f.keys)
			}
			for _, k := range s.keys {
				switch k {
				case "time", "duration_ms":
					continue
				case "request_id":
					if i%2 == 1 {
						continue // made, so different in each run
					}
				}
				if !bytes.Equal(s.values[k], f.values[k]) {
					t.Fatalf("status %d, path %q: %s is %s through slog, %s direct", status, paths[i], k, s.values[k], f.values[k])
				}
			}
			if _, err := time.Parse(time.RFC3339Nano, strings.Trim(string(f.values["time"]), `"`)); err != nil {
				t.Fatalf("time %s: %v", f.values["time"], err)
			}
		}
	}
}

func TestRequestStateIsTheRequestsContext(t *testing.T) {
	t.Parallel()
	type key struct{}
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, "kept"))
	var seen context.Context
	h := Instrument("inbox", nil, slog.New(slog.DiscardHandler), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = r.Context()
	}))
	r := httptest.NewRequest("POST", "/mcp", nil).WithContext(parent)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if id := RequestID(seen); id == "" || id != w.Header().Get(RequestIDHeader) {
		t.Fatalf("request id %q, header %q", id, w.Header().Get(RequestIDHeader))
	}
	if mcp.ObservationFrom(seen) == nil || seen.Value(key{}) != "kept" {
		t.Fatal("the request's context values are lost")
	}
	child, stop := context.WithCancel(seen)
	defer stop()
	cancel()
	select {
	case <-child.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("cancelling the request does not reach its handler's context")
	}
	if seen.Err() != context.Canceled || RequestID(child) == "" {
		t.Fatalf("err %v", seen.Err())
	}
}
