package mailparse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"

	"github.com/emersion/go-message/textproto"
)

// Errors Parse returns; callers store the e-mail as unparseable whatever
// the cause, the distinction is for logs and tests.
var (
	// ErrEmpty is a message with no header at all.
	ErrEmpty = errors.New("mailparse: empty message")
	// ErrTooDeep is a MIME tree nested deeper than MaxDepth.
	ErrTooDeep = errors.New("mailparse: MIME nesting too deep")
	// ErrTooManyParts is a MIME tree of more than MaxParts parts.
	ErrTooManyParts = errors.New("mailparse: too many MIME parts")
	// ErrTooLarge is a message whose decoded parts exceed the budget (a
	// few times the input's size): nested attached messages blowing up.
	ErrTooLarge = errors.New("mailparse: decoded content too large")
)

// Parse reads a whole message. It returns an error when the header cannot
// be read or the MIME structure is broken beyond repair (a multipart
// without a boundary, or whose boundary never appears), or the tree
// exceeds the limits; lesser defects become Warnings.
func Parse(raw []byte) (*Message, error) {
	p := &parser{budget: 4*int64(len(raw)) + 1<<20}
	return p.message(raw, 0)
}

// message parses one message (the top level or an attached one).
func (p *parser) message(raw []byte, depth int) (*Message, error) {
	if depth > MaxDepth {
		return nil, ErrTooDeep
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, ErrEmpty
	}
	br := bufio.NewReader(bytes.NewReader(raw))
	h, err := textproto.ReadHeader(br)
	if err != nil && !(errors.Is(err, io.EOF) && h.Len() > 0) {
		return nil, fmt.Errorf("mailparse: header: %w", err)
	}
	if h.Len() == 0 {
		return nil, ErrEmpty
	}
	m := &Message{Headers: map[string][]string{}}
	fields := h.Fields()
	for fields.Next() {
		k := canonicalKey(fields.Key())
		m.Headers[k] = append(m.Headers[k], cleanText(fields.Value()))
	}
	m.readHeaders(h)
	if err := p.walk(m, h, br, depth, nil); err != nil {
		return nil, err
	}
	m.finish()
	return m, nil
}

// alternative remembers, inside one multipart/alternative, which body
// kinds were taken: alternatives say the same thing, so only the first
// of each kind counts.
type alternative struct {
	text, html bool
}

// walk visits one MIME entity and what it contains.
func (p *parser) walk(m *Message, h textproto.Header, body io.Reader, depth int, alt *alternative) error {
	p.parts++
	if p.parts > MaxParts {
		return ErrTooManyParts
	}
	if depth > MaxDepth {
		return ErrTooDeep
	}
	mediaType, params := contentType(h.Get("Content-Type"))
	if strings.HasPrefix(mediaType, "multipart/") {
		return p.multipart(m, mediaType, params, body, depth)
	}
	data, warn := p.decodeTransfer(h.Get("Content-Transfer-Encoding"), body)
	if warn != "" {
		m.warn(warn)
	}
	if p.budget -= int64(len(data)); p.budget < 0 {
		return ErrTooLarge
	}
	disposition, dparams := parseParams(h.Get("Content-Disposition"))
	filename := decodeWords(dparams["filename"])
	if filename == "" {
		filename = decodeWords(params["name"])
	}
	isBody := (mediaType == "text/plain" || mediaType == "text/html") && disposition != "attachment" && filename == ""
	if isBody {
		text := decodeCharset(params["charset"], data)
		if mediaType == "text/plain" {
			if alt == nil || !alt.text {
				m.Text = joinBody(m.Text, text)
			}
			if alt != nil {
				alt.text = true
			}
		} else {
			if alt == nil || !alt.html {
				m.HTML = joinBody(m.HTML, text)
			}
			if alt != nil {
				alt.html = true
			}
		}
		return nil
	}
	a := Attachment{
		Filename:    cleanText(filename),
		ContentType: cleanText(mediaType),
		Size:        int64(len(data)),
		Data:        data,
		ContentID:   cleanText(strings.Trim(strings.TrimSpace(h.Get("Content-Id")), "<>")),
	}
	a.Inline = disposition == "inline" || (disposition == "" && a.ContentID != "")
	if mediaType == "message/rfc822" || mediaType == "message/global" {
		inner, err := p.message(data, depth+1)
		switch {
		case errors.Is(err, ErrTooDeep), errors.Is(err, ErrTooManyParts), errors.Is(err, ErrTooLarge):
			return err
		case err != nil:
			m.warn("attached message unreadable: " + err.Error())
		default:
			a.embedded = true
			m.Embedded = append(m.Embedded, inner)
			if a.Filename == "" {
				a.Filename = attachedMessageName(inner)
			}
		}
		a.Inline = false
	}
	m.Attachments = append(m.Attachments, a)
	return nil
}

// multipart visits the parts of a multipart entity. A missing boundary,
// or one that never appears, is an error; an unterminated last part is
// tolerated.
func (p *parser) multipart(m *Message, mediaType string, params map[string]string, body io.Reader, depth int) error {
	boundary := params["boundary"]
	if boundary == "" {
		return fmt.Errorf("mailparse: %s without a boundary", mediaType)
	}
	var alt *alternative
	if mediaType == "multipart/alternative" {
		alt = &alternative{}
	}
	mr := textproto.NewMultipartReader(body, boundary)
	for n := 0; ; n++ {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			if n == 0 {
				return fmt.Errorf("mailparse: %s: %w", mediaType, err)
			}
			m.warn("multipart not terminated properly: " + err.Error())
			return nil
		}
		if err := p.walk(m, part.Header, part, depth+1, alt); err != nil {
			return err
		}
	}
}

// attachedMessageName names an attached message that came without a file
// name, from its subject.
func attachedMessageName(inner *Message) string {
	s := strings.Map(func(r rune) rune {
		if strings.ContainsRune(`/\:*?"<>|`, r) || r < ' ' {
			return '_'
		}
		return r
	}, strings.TrimSpace(inner.Subject))
	if s == "" {
		s = "forwarded-message"
	}
	if len(s) > 100 {
		s = strings.ToValidUTF8(s[:100], "")
	}
	return s + ".eml"
}

// contentType parses a Content-Type field; absent means text/plain (RFC
// 2045 §5.2), and a value whose parameters are broken keeps its media
// type.
func contentType(v string) (string, map[string]string) {
	if strings.TrimSpace(v) == "" {
		return "text/plain", map[string]string{}
	}
	t, params := parseParams(v)
	if t == "" || !strings.Contains(t, "/") {
		return "application/octet-stream", params
	}
	return t, params
}

// parseParams parses a field with parameters (Content-Type,
// Content-Disposition): the lower-cased value and its parameters (RFC 2231
// continuations and charsets decoded). When the parameters are broken, it
// keeps the value and whatever parameters are readable one by one.
func parseParams(v string) (string, map[string]string) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", map[string]string{}
	}
	t, params, err := mime.ParseMediaType(v)
	if err == nil || errors.Is(err, mime.ErrInvalidMediaParameter) && t != "" {
		if params == nil {
			params = map[string]string{}
		}
		if err != nil {
			params = looseParams(v)
		}
		return strings.ToLower(t), params
	}
	head, _, _ := strings.Cut(v, ";")
	return strings.ToLower(strings.TrimSpace(head)), looseParams(v)
}

// looseParams reads `name=value` parameters one by one, skipping the ones
// that do not parse, for fields mime.ParseMediaType refuses whole.
func looseParams(v string) map[string]string {
	out := map[string]string{}
	_, rest, _ := strings.Cut(v, ";")
	for _, item := range strings.Split(rest, ";") {
		k, val, ok := strings.Cut(item, "=")
		if !ok {
			continue
		}
		k = strings.ToLower(strings.TrimSpace(k))
		val = strings.TrimSpace(val)
		if len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"' {
			val = val[1 : len(val)-1]
		}
		if k != "" && !strings.HasSuffix(k, "*") {
			if _, seen := out[k]; !seen {
				out[k] = val
			}
		}
	}
	return out
}
