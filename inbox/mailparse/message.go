// Package mailparse reads a received e-mail (RFC 5322 with MIME) into what
// the Inbox stores, screens and hands to its agent: the decoded headers,
// the text and HTML bodies, the attachments and whether the message is a
// forward (and of whom).
//
// It is written for mail from strangers: every string it returns is valid
// UTF-8 without NUL bytes (so it can be stored on either database engine
// and shown as JSON), the MIME tree is bounded (MaxDepth, MaxParts, and a
// decoded-bytes budget proportional to the input), and malformed input is
// an error, never a panic. Small defects that real mailers produce (an
// unterminated last boundary, a broken transfer encoding in one part, an
// unknown charset) are tolerated and listed in Message.Warnings instead of
// failing the whole message.
//
// MIME decoding builds on github.com/emersion/go-message (header and
// multipart readers, charset tables); transfer decoding is done here,
// leniently, so one bad character does not lose a boleto.
package mailparse

import (
	"net/textproto"
	"strings"
	"time"
)

// Limits of the MIME tree a message may have. Deeper or larger trees are
// refused: they are not mail people send, and unbounded recursion over
// untrusted input is how parsers get knocked over.
const (
	// MaxDepth bounds nesting: multiparts inside multiparts and attached
	// messages (message/rfc822) inside messages.
	MaxDepth = 16
	// MaxParts bounds the number of MIME parts, nested ones included.
	MaxParts = 1000
)

// Address is a mailbox as a header names it.
type Address struct {
	// Name is the display name ("" when absent), decoded from RFC 2047.
	Name string `json:"name,omitempty"`
	// Address is the addr-spec ("ana@example.com") as written.
	Address string `json:"address"`
}

// String renders the address as a header would show it.
func (a Address) String() string {
	if a.Name == "" {
		return a.Address
	}
	return a.Name + " <" + a.Address + ">"
}

// Attachment is a part that is not the message's text: a file, an inline
// image, or an attached message.
type Attachment struct {
	// Filename is the decoded file name ("" when the part names none).
	Filename string
	// ContentType is the media type, lower-cased, without parameters.
	ContentType string
	// Size is len(Data): the decoded size, what limits are checked against.
	Size int64
	// Data is the decoded content (transfer encoding removed; charsets are
	// left alone, the file is as the sender attached it).
	Data []byte
	// Inline is true for parts meant to be shown in the body (an image the
	// HTML references by ContentID) rather than offered as files.
	Inline bool
	// ContentID is the Content-ID without angle brackets.
	ContentID string

	// embedded: an attached message that parsed (its files are reached
	// through Message.Embedded).
	embedded bool
}

// Message is a parsed e-mail.
type Message struct {
	// MessageID is the Message-ID without angle brackets ("" when absent).
	MessageID string
	// Subject is the decoded subject.
	Subject string
	// From is the first author (nil when the header is absent or names no
	// address).
	From    *Address
	ReplyTo []Address
	// To, Cc and Bcc are the header lists (not the envelope).
	To, Cc, Bcc []Address
	// Date is the Date header in UTC (nil when absent or unreadable).
	Date *time.Time
	// Text and HTML are the bodies as received, decoded to UTF-8; HTML is
	// not sanitised. Several text parts (outside an alternative) are
	// joined by a blank line. An inline forward stays in Text as the
	// sender wrote it; attached messages are not in it (see Embedded and
	// PlainText).
	Text, HTML string
	// Attachments are the message's own attachments in MIME order; an
	// attached message is one attachment (message/rfc822, its exact
	// bytes), its own files are in Embedded.
	Attachments []Attachment
	// Embedded are the attached messages (message/rfc822), parsed.
	Embedded []*Message
	// Forwarded is true when the message forwards another one: an attached
	// message, or an inline forward block ("---------- Forwarded message
	// ---------", "Begin forwarded message:", "-----Mensagem
	// encaminhada-----", "-------- Mensaje reenviado --------" and the
	// like) followed by a From: line.
	Forwarded bool
	// ForwardedFor is the address of the original sender of the forwarded
	// message ("" when it could not be told).
	ForwardedFor string
	// Headers are the top-level header fields, keys canonical
	// ("Auto-Submitted", "List-Id"), values unfolded but not decoded, in
	// order.
	Headers map[string][]string
	// Warnings list the defects that were tolerated.
	Warnings []string
}

// Header is the first value of a top-level header field ("" when absent).
func (m *Message) Header(name string) string {
	v := m.Headers[canonicalKey(name)]
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// PlainText is the text to read and screen the message by: Text, or for
// a message with only an HTML body, the HTML's visible text; followed by
// the text of each attached message under a "---------- Forwarded message
// ---------" heading naming its sender, date and subject, so what was
// forwarded as an attachment is read too.
func (m *Message) PlainText() string {
	text := m.Text
	if strings.TrimSpace(text) == "" {
		text = htmlToText(m.HTML)
	}
	for _, e := range m.Embedded {
		var b strings.Builder
		b.WriteString("---------- Forwarded message ---------\n")
		if e.From != nil {
			b.WriteString("From: " + e.From.String() + "\n")
		}
		if e.Date != nil {
			b.WriteString("Date: " + e.Date.Format(time.RFC1123Z) + "\n")
		}
		b.WriteString("Subject: " + e.Subject + "\n")
		if len(e.To) > 0 {
			to := make([]string, len(e.To))
			for i, a := range e.To {
				to[i] = a.String()
			}
			b.WriteString("To: " + strings.Join(to, ", ") + "\n")
		}
		b.WriteString("\n" + e.PlainText())
		text = joinBody(text, b.String())
	}
	return text
}

// AllAttachments are the message's attachments followed by those of the
// messages it carries (depth first), without the attached messages
// themselves: every file that arrived, for an extractor looking for a PDF
// that may have been forwarded as an attachment.
func (m *Message) AllAttachments() []Attachment {
	var out []Attachment
	for _, a := range m.Attachments {
		if !a.embedded {
			out = append(out, a)
		}
	}
	for _, e := range m.Embedded {
		out = append(out, e.AllAttachments()...)
	}
	return out
}

func (m *Message) warn(w string) {
	if len(m.Warnings) < 50 {
		m.Warnings = append(m.Warnings, cleanText(w))
	}
}

// joinBody appends a body part to what was collected.
func joinBody(have, more string) string {
	if have == "" {
		return more
	}
	if more == "" {
		return have
	}
	return strings.TrimRight(have, "\r\n") + "\n\n" + more
}

// canonicalKey spells a header key the way Headers holds it.
func canonicalKey(k string) string { return textproto.CanonicalMIMEHeaderKey(k) }
