package safename

import (
	"mime"
	"strings"
)

// ContentDisposition is the "attachment" header of a download named
// name (RFC 6266): a quoted ASCII fallback for old clients, every
// character outside printable ASCII — and the quote, backslash and
// percent sign, which some clients unescape — as "_", and the real name
// in filename* (RFC 8187: UTF-8, percent-encoded outside attr-char).
// Hidden characters are dropped from both first, so a name stored
// before File checked names still cannot split the header or reorder
// itself.
func ContentDisposition(name string) string {
	name = Display(name)
	ascii := strings.Map(func(r rune) rune {
		if r > 0x7e || r < 0x20 || r == '"' || r == '\\' || r == '%' {
			return '_'
		}
		return r
	}, name)
	if ascii == "" {
		ascii = "download"
	}
	return mime.FormatMediaType("attachment", map[string]string{"filename": ascii}) + "; filename*=UTF-8''" + extValue(name)
}

// extValue percent-encodes s for an RFC 8187 ext-value: attr-char
// (ALPHA, DIGIT and !#$&+-.^_`|~) stays, every other byte is %XX.
func extValue(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$&+-.^_`|~", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}
