package observe

import (
	"bytes"
	"context"
	"log/slog"
	"math"
	"runtime"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// The access line is written without slog's generic path when the logger
// is one serve builds (--log-format json or text): a LogHandler around
// slog's JSONHandler or TextHandler (no options) writing to the
// LogHandler's Buffer. Going through slog cost the request more than
// everything else Instrument does (the record's attribute slice, the
// generic encoder, floats through encoding/json; docs/decisions.md, "Request id and access line without
// slog's generic path"). appendJSONLine and appendTextLine (textline.go)
// write the same bytes; lineOut proves it, once per Instrument, before the
// fast path is taken.

// appendJSONLine appends the line slog's JSONHandler, made with no
// options, writes for a record of t, level, msg and attrs. It handles the
// kinds the access line uses (strings, integers, floats, booleans) and
// reports false for anything else, or for a value slog would write an
// error for (a NaN, a year outside 0–9999): the caller then logs through
// slog.
func appendJSONLine(b []byte, t time.Time, level slog.Level, msg string, attrs []slog.Attr) ([]byte, bool) {
	if y := t.Year(); y < 0 || y > 9999 {
		return b, false
	}
	b = append(b, `{"time":"`...)
	b = t.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":`...)
	b = appendJSONString(b, level.String())
	b = append(b, `,"msg":`...)
	b = appendJSONString(b, msg)
	for _, a := range attrs {
		b = append(b, ',')
		b = appendJSONString(b, a.Key)
		b = append(b, ':')
		v := a.Value
		switch v.Kind() {
		case slog.KindString:
			b = appendJSONString(b, v.String())
		case slog.KindInt64:
			b = strconv.AppendInt(b, v.Int64(), 10)
		case slog.KindUint64:
			b = strconv.AppendUint(b, v.Uint64(), 10)
		case slog.KindBool:
			b = strconv.AppendBool(b, v.Bool())
		case slog.KindFloat64:
			var ok bool
			if b, ok = appendJSONFloat(b, v.Float64()); !ok {
				return b, false
			}
		default:
			return b, false
		}
	}
	return append(b, "}\n"...), true
}

// appendJSONFloat writes f as encoding/json does, which is what slog's
// JSONHandler calls for floats: the shortest decimal that reads back as f,
// in exponent form only below 1e-6 or from 1e21 on, the exponent without a
// leading zero.
func appendJSONFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// strconv writes "1e-07"; encoding/json "1e-7".
		if i := bytes.LastIndexByte(b[start:], 'e'); i >= 0 {
			e := start + i
			if len(b)-e == 4 && b[e+1] == '-' && b[e+2] == '0' {
				b[e+2] = b[e+3]
				b = b[:len(b)-1]
			}
		}
	}
	return b, true
}

// appendJSONString writes s quoted as slog's JSONHandler does: quote,
// backslash and control characters escaped (\n, \r, \t by name, the others
// as \u00XX), invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped, and
// nothing else (no HTML escaping).
func appendJSONString(b []byte, s string) []byte {
	// Most values (keys, methods, tools, ids, paths) are plain ASCII:
	// they are copied in one piece.
	i := 0
	for i < len(s) && plainJSON[s[i]] {
		i++
	}
	b = append(b, '"')
	b = append(b, s[:i]...)
	if i == len(s) {
		return append(b, '"')
	}
	const hexDigits = "0123456789abcdef"
	start := i
	for i < len(s) {
		c := s[i]
		if plainJSON[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// plainJSON holds the bytes written as they are inside a JSON string:
// ASCII from the space on, but the quote and the backslash. Bytes from
// 0x80 on start a UTF-8 sequence, which is checked.
var plainJSON = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// linePool holds the buffers access lines are encoded into before the
// LogWriter copies them.
var linePool = sync.Pool{New: func() any {
	b := make([]byte, 0, 512)
	return &b
}}

// maxPooledLine keeps a line made huge by a long path from staying pooled.
const maxPooledLine = 16 << 10

// directLine is where and how Instrument writes the access line itself.
type directLine struct {
	out  *LogWriter
	text bool // appendTextLine, else appendJSONLine
}

// encode appends the line with d's encoder. The encoders are called, not
// held in a func value: through one, the compiler could no longer see
// that the attributes do not escape, and Instrument's array of them would
// move to the heap.
func (d *directLine) encode(b []byte, t time.Time, level slog.Level, msg string, attrs []slog.Attr) ([]byte, bool) {
	if d.text {
		return appendTextLine(b, t, level, msg, attrs)
	}
	return appendJSONLine(b, t, level, msg, attrs)
}

// write encodes the line into a pooled buffer and writes it to d.out;
// false when the encoder cannot write it (nothing was written).
func (d *directLine) write(t time.Time, level slog.Level, msg string, attrs []slog.Attr) bool {
	bp := linePool.Get().(*[]byte)
	line, ok := d.encode((*bp)[:0], t, level, msg, attrs)
	if ok {
		_, _ = d.out.Write(line)
	}
	if cap(line) <= maxPooledLine {
		*bp = line
		linePool.Put(bp)
	}
	return ok
}

// lineOut returns how the access line can be written directly, or nil
// when lines must go through log's handler. The handler must be a
// LogHandler (the value serve builds) with a Buffer, around a
// *slog.JSONHandler (encoded by appendJSONLine) or a *slog.TextHandler
// (appendTextLine). A handler's options and attributes cannot be read, so
// one record is encoded by both: the handler's line, caught in the Buffer
// before it is written, must equal the encoder's byte for byte. A handler
// with options that change the line (AddSource, ReplaceAttr), with
// attributes or groups added, or writing somewhere else fails the check
// and keeps slog's path. (A handler writing somewhere else than its Buffer,
// against LogHandler's documentation, gets the one check line, at Debug.)
func lineOut(log *slog.Logger) *directLine {
	h, ok := log.Handler().(LogHandler)
	if !ok || h.Buffer == nil {
		return nil
	}
	d := &directLine{out: h.Buffer}
	switch h.Handler.(type) {
	case *slog.JSONHandler:
	case *slog.TextHandler:
		d.text = true
	default:
		return nil
	}
	marker := "observe-check-" + newRequestID()
	// The access line's keys, in its order, with values of each kind it
	// writes and every character class the encoders treat apart.
	attrs := []slog.Attr{
		slog.String("product", marker), slog.String("method", "POST"),
		slog.String("path", "/\"\\/<>&=\x00\x01\x1f\x7f\t\r\n\u00a0\u2028\u2029\ufffd\u0301\xff\xe2\x82 é€😀"),
		slog.Int("status", 200), slog.Float64("duration_ms", 12.345),
		slog.String("mcp_method", "tools/call"), slog.String("mcp_era", "2026"), slog.String("outcome", "ok"),
		slog.String("tool", "t\\u"), slog.Int("rpc_error", -32601), slog.Float64("small", 1e-7),
		slog.String("empty", ""), slog.String("request_id", "a"),
	}
	// With a caller, so a handler adding the source writes it.
	var pcs [1]uintptr
	runtime.Callers(1, pcs[:])
	t := time.Now()
	r := slog.NewRecord(t, slog.LevelDebug, "observe: access line check", pcs[0])
	r.AddAttrs(attrs...)
	got := h.Buffer.capture([]byte(marker), func() { _ = h.Handler.Handle(context.Background(), r) })
	want, ok := d.encode(nil, t, r.Level, r.Message, attrs)
	if !ok || !bytes.Equal(got, want) {
		return nil
	}
	return d
}
