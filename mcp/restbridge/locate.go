package restbridge

import (
	"bytes"
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// locateOptions read the arguments of a PassArguments route. Duplicate
// names are refused, so the path the bridge builds is the one the
// arguments mean; string contents are not judged here: the API applies
// its own rules to every member, and answers in its own words.
var locateOptions = json.JoinOptions(jsontext.AllowDuplicateNames(false), jsontext.AllowInvalidUTF8(true))

type locator struct {
	dec *jsontext.Decoder
	buf bytes.Buffer
}

var locatorPool = sync.Pool{New: func() any { return &locator{dec: jsontext.NewDecoder(bytes.NewReader(nil))} }}

// locate reads, from the arguments of a PassArguments route, only what
// the request itself carries: the path parameters and the idempotency
// key. Everything else stays in the arguments for the API. A route with
// no path parameter whose arguments cannot hold the key (its name appears
// nowhere, even escaped) is not read at all.
func (b *Bridge) locate(cr *compiledRoute, args []byte) (parts, string) {
	var p parts
	if len(cr.paramNames) == 0 && !bytes.Contains(args, b.idempotencyName) && !bytes.Contains(args, []byte(`\u`)) {
		if firstNonSpace(args) != '{' {
			return p, "Invalid arguments: expected an object"
		}
		return p, ""
	}
	l := locatorPool.Get().(*locator)
	defer func() {
		l.buf = bytes.Buffer{}
		l.dec.Reset(&l.buf)
		locatorPool.Put(l)
	}()
	l.buf = *bytes.NewBuffer(args)
	l.dec.Reset(&l.buf, locateOptions)
	if l.dec.PeekKind() != '{' {
		return p, "Invalid arguments: expected an object"
	}
	if _, err := l.dec.ReadToken(); err != nil {
		return p, "Invalid arguments: " + err.Error()
	}
	for l.dec.PeekKind() != '}' {
		raw, err := l.dec.ReadValue()
		if err != nil {
			return p, "Invalid arguments: " + err.Error()
		}
		name := wtf8Unquote(raw)
		i := cr.paramIndex(name)
		isKey := i < 0 && string(name) == b.opts.IdempotencyArgument
		if i < 0 && !isKey {
			if err := l.dec.SkipValue(); err != nil {
				return p, "Invalid arguments: " + err.Error()
			}
			continue
		}
		name = bytes.Clone(name)
		val, err := l.dec.ReadValue()
		if err != nil {
			return p, "Invalid arguments: " + err.Error()
		}
		switch {
		case isKey && val.Kind() == '"':
			p.idempotencyKey = string(wtf8Unquote(val))
		case isKey:
			return p, fmt.Sprintf("Invalid arguments: %q must be a string", name)
		case val.Kind() == '"':
			p.pathValues[i] = string(wtf8Unquote(val))
		case val.Kind() == '0':
			p.pathValues[i] = string(val)
		default:
			return p, fmt.Sprintf("Invalid arguments: %q must be a string or a number", name)
		}
	}
	return p, ""
}

func firstNonSpace(b []byte) byte {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c
		}
	}
	return 0
}

// wtf8Unquote decodes a raw JSON string. A surrogate escape that pairs
// with nothing is kept as the three bytes it would take in UTF-8 (WTF-8)
// rather than replaced: a path parameter holding one then reaches the API
// as the invalid UTF-8 it is, which the API refuses naming the parameter,
// exactly as it refuses those bytes in a URL.
func wtf8Unquote(raw []byte) []byte {
	in := raw[1 : len(raw)-1]
	if bytes.IndexByte(in, '\\') < 0 {
		return in
	}
	out := make([]byte, 0, len(in))
	for i := 0; i < len(in); i++ {
		c := in[i]
		if c != '\\' || i+1 >= len(in) {
			out = append(out, c)
			continue
		}
		i++
		switch in[i] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(in[i+1:])
			if !ok {
				out = append(out, '\\', 'u')
				continue
			}
			i += 4
			if r >= 0xD800 && r < 0xDC00 && i+6 < len(in) && in[i+1] == '\\' && in[i+2] == 'u' {
				if lo, ok := hex4(in[i+3:]); ok && lo >= 0xDC00 && lo < 0xE000 {
					out = utf8.AppendRune(out, 0x10000+(r-0xD800)<<10+(lo-0xDC00))
					i += 6
					continue
				}
			}
			if r >= 0xD800 && r < 0xE000 {
				out = append(out, byte(0xE0|r>>12), byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
				continue
			}
			out = utf8.AppendRune(out, r)
		default: // \" \\ \/
			out = append(out, in[i])
		}
	}
	return out
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
