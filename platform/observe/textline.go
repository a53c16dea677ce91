package observe

import (
	"log/slog"
	"strconv"
	"time"
	"unicode"
	"unicode/utf8"
)

// appendTextLine appends the line slog's TextHandler, made with no
// options, writes for a record of t, level, msg and attrs: time=, level=,
// msg= and then key=value, separated by spaces, a key or a value quoted
// (as strconv quotes) exactly when the text handler quotes it. It handles
// the kinds the access line uses (strings, integers, floats, booleans)
// and reports false for anything else, an empty key (slog may drop such an
// attribute) or a time it does not write as four-digit years: the caller
// then logs through slog. lineOut proves it against the real handler once
// per Instrument before it is used (accessline.go).
func appendTextLine(b []byte, t time.Time, level slog.Level, msg string, attrs []slog.Attr) ([]byte, bool) {
	if y := t.Year(); y < 0 || y > 9999 || t.IsZero() {
		return b, false
	}
	b = append(b, "time="...)
	b = appendTextTime(b, t)
	b = append(b, " level="...)
	b = appendTextString(b, level.String())
	b = append(b, " msg="...)
	b = appendTextString(b, msg)
	for _, a := range attrs {
		if a.Key == "" {
			return b, false
		}
		b = append(b, ' ')
		b = appendTextString(b, a.Key)
		b = append(b, '=')
		v := a.Value
		switch v.Kind() {
		case slog.KindString:
			b = appendTextString(b, v.String())
		case slog.KindInt64:
			b = strconv.AppendInt(b, v.Int64(), 10)
		case slog.KindUint64:
			b = strconv.AppendUint(b, v.Uint64(), 10)
		case slog.KindBool:
			b = strconv.AppendBool(b, v.Bool())
		case slog.KindFloat64:
			// Shortest form, exponent as strconv writes it; NaN and
			// infinities as words, never quoted.
			b = strconv.AppendFloat(b, v.Float64(), 'g', -1, 64)
		default:
			return b, false
		}
	}
	return append(b, '\n'), true
}

// appendTextTime writes t as the text handler does: RFC 3339 in t's zone
// with exactly three fractional digits, truncated (not rounded) to the
// millisecond. The seconds form has the standard library's fast path; the
// milliseconds go in before the zone.
func appendTextTime(b []byte, t time.Time) []byte {
	const secLen = len("2006-01-02T15:04:05")
	start := len(b)
	b = t.AppendFormat(b, time.RFC3339)
	ms := t.Nanosecond() / 1e6
	// Make room for ".mmm" and move the zone ("Z" or "±hh:mm") right.
	b = append(b, "...."...)
	at := start + secLen
	copy(b[at+4:], b[at:len(b)-4])
	b[at] = '.'
	b[at+1] = byte('0' + ms/100)
	b[at+2] = byte('0' + ms/10%10)
	b[at+3] = byte('0' + ms%10)
	return b
}

// appendTextString writes s as the text handler writes a key or a string
// value: as it is when it needs no quoting, else quoted by
// strconv.AppendQuote.
func appendTextString(b []byte, s string) []byte {
	if textNeedsQuoting(s) {
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

// textNeedsQuoting is the text handler's rule for quoting: the empty
// string; an ASCII space, '=', quote or control character (a backslash or
// DEL alone does not quote); and, beyond ASCII, invalid UTF-8, U+FFFD
// itself, and any rune that is a space or not printable.
func textNeedsQuoting(s string) bool {
	if s == "" {
		return true
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if !plainText[c] {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return true
		}
		i += size
	}
	return false
}

// plainText holds the ASCII bytes the text handler writes without
// quoting: from '!' to DEL, but the quote and '='.
var plainText = func() (t [utf8.RuneSelf]bool) {
	for c := '!'; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '='
	}
	return t
}()
