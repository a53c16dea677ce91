package mailparse

import (
	"bytes"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/emersion/go-message/charset"
	"golang.org/x/net/html"
	"golang.org/x/text/encoding/charmap"
)

// decodeCharset converts a text body to UTF-8 from its declared charset.
// An unknown charset, or bytes that are not valid in it, fall back to
// cleanBytes: the text is kept, never dropped.
func decodeCharset(cs string, data []byte) string {
	cs = strings.ToLower(strings.TrimSpace(cs))
	switch cs {
	case "", "utf-8", "utf8", "us-ascii", "ascii":
		return cleanBytes(data)
	}
	r, err := charset.Reader(cs, bytes.NewReader(data))
	if err != nil {
		return cleanBytes(data)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		return cleanBytes(data)
	}
	return cleanBytes(out)
}

// cleanText makes a string safe to store and show: valid UTF-8 (bytes
// that are not are read as Windows-1252, the usual culprit of undeclared
// 8-bit text) and no NUL bytes (PostgreSQL's TEXT refuses them).
func cleanText(s string) string {
	if utf8.ValidString(s) && !strings.ContainsRune(s, 0) {
		return s
	}
	return cleanBytes([]byte(s))
}

func cleanBytes(b []byte) string {
	if !utf8.Valid(b) {
		if d, err := charmap.Windows1252.NewDecoder().Bytes(b); err == nil {
			b = d
		} else {
			b = []byte(strings.ToValidUTF8(string(b), "\uFFFD"))
		}
	}
	return strings.ReplaceAll(string(b), "\x00", "")
}

// htmlToText is the visible text of an HTML body: tags dropped, script
// and style skipped, block elements on their own lines. It is for reading
// and screening a message that has no text part, not for display.
func htmlToText(src string) string {
	if src == "" {
		return ""
	}
	z := html.NewTokenizer(strings.NewReader(src))
	var b strings.Builder
	skip := 0
	newline := func() {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
	}
	for {
		switch z.Next() {
		case html.ErrorToken:
			return strings.TrimSpace(collapseBlankLines(b.String()))
		case html.TextToken:
			if skip == 0 {
				t := strings.Join(strings.Fields(string(z.Text())), " ")
				if t != "" {
					if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") && !strings.HasSuffix(b.String(), " ") {
						b.WriteByte(' ')
					}
					b.WriteString(t)
				}
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "script", "style", "head", "title":
				skip++
			case "body":
				skip = 0 // an unclosed <head> ends here
			case "br", "p", "div", "tr", "li", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "table", "hr":
				newline()
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "script", "style", "head", "title":
				if skip > 0 {
					skip--
				}
			case "p", "div", "tr", "li", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "table":
				newline()
			}
		}
	}
}

func collapseBlankLines(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}
