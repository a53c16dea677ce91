package mailparse

import (
	"mime"
	"net/mail"
	"regexp"
	"strings"

	"github.com/emersion/go-message/charset"
	mtextproto "github.com/emersion/go-message/textproto"
)

// wordDecoder decodes RFC 2047 encoded words in every charset the
// go-message charset tables know (ISO-8859-*, Windows-125*, …).
var wordDecoder = &mime.WordDecoder{CharsetReader: charset.Reader}

// readHeaders fills the fields that come from the top-level header.
func (m *Message) readHeaders(h mtextproto.Header) {
	m.MessageID = cleanText(strings.Trim(strings.TrimSpace(h.Get("Message-Id")), "<>"))
	m.Subject = strings.TrimSpace(decodeWords(h.Get("Subject")))
	if from := addressList(h.Get("From")); len(from) > 0 {
		m.From = &from[0]
	}
	m.ReplyTo = addressList(h.Get("Reply-To"))
	m.To = addressList(h.Get("To"))
	m.Cc = addressList(h.Get("Cc"))
	m.Bcc = addressList(h.Get("Bcc"))
	if d := strings.TrimSpace(h.Get("Date")); d != "" {
		if t, err := mail.ParseDate(d); err == nil {
			t = t.UTC()
			m.Date = &t
		} else {
			m.warn("unreadable Date header")
		}
	}
}

// decodeWords decodes RFC 2047 encoded words; a value that does not
// decode is kept as it is. The result is clean UTF-8.
func decodeWords(v string) string {
	if v == "" {
		return ""
	}
	if d, err := wordDecoder.DecodeHeader(v); err == nil {
		v = d
	}
	return cleanText(v)
}

// addrSpec finds addresses in text that does not parse as an address
// list.
var addrSpec = regexp.MustCompile(`[A-Za-z0-9.!#$%&'*+/=?^_` + "`" + `{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*`)

// addressList parses an address header. Lists that RFC 5322 refuses but
// mailers send (unquoted commas in names, stray brackets) fall back to the
// addresses found in the text, without names.
func addressList(v string) []Address {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil
	}
	p := mail.AddressParser{WordDecoder: wordDecoder}
	if list, err := p.ParseList(v); err == nil {
		out := make([]Address, 0, len(list))
		for _, a := range list {
			if a.Address == "" {
				continue
			}
			out = append(out, Address{Name: cleanText(a.Name), Address: cleanText(a.Address)})
		}
		return out
	}
	var out []Address
	for _, a := range addrSpec.FindAllString(decodeWords(v), 100) {
		out = append(out, Address{Address: a})
	}
	return out
}
