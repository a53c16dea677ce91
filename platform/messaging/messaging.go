package messaging

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Channel is how a message reaches a person. A product that reaches
// debtors several ways holds one Sender per channel (a
// map[Channel]Sender), so choosing a channel is data, not code.
type Channel string

// The channels the project sends on.
const (
	Email    Channel = "email"
	SMS      Channel = "sms"
	WhatsApp Channel = "whatsapp"
)

// Valid reports whether c is one of the channels above.
func (c Channel) Valid() bool {
	switch c {
	case Email, SMS, WhatsApp:
		return true
	}
	return false
}

// Message is one message to one person on one channel. It is a single
// recipient on purpose: each send then has one outcome, so a retry can
// never deliver twice to the recipients a first attempt already reached.
type Message struct {
	Channel Channel
	// To is an e-mail address (Email) or an E.164 number such as
	// "+5511987654321" (SMS, WhatsApp; the "whatsapp:" prefix Twilio
	// wants is added by the sender).
	To string
	// Text is the plain-text body: the whole message on SMS and
	// WhatsApp, the text/plain part of an e-mail.
	Text string

	// ID is the caller's own identifier of this message, typically its
	// outbox row, the same on every retry. E-mail uses it as the
	// Message-ID (with the From domain appended when it has no "@"), so a
	// message sent twice after an ambiguous failure is recognisable as one.
	// SMS and WhatsApp ignore it: Twilio's Messages API has no idempotency
	// key (put it in the StatusCallback URL to tie callbacks to the row).
	ID string

	// Subject, HTML and ListUnsubscribe are for e-mail only.
	Subject string
	// HTML, when set, makes the e-mail multipart/alternative with Text.
	HTML string
	// Inline are images the HTML shows by Content-ID ("cid:…"), carried
	// in the message (multipart/related), never fetched from a server.
	Inline []Inline
	// ListUnsubscribe is an https URL that unsubscribes the recipient with
	// one POST (RFC 8058 one-click); the e-mail then carries
	// List-Unsubscribe and List-Unsubscribe-Post.
	ListUnsubscribe string

	// StatusCallback, for SMS and WhatsApp, is the public URL Twilio
	// posts delivery statuses to (see VerifyRequest); empty uses the
	// sender's default.
	StatusCallback string
	// Template, for WhatsApp (and SMS) through Twilio's Content API, sends
	// an approved template instead of Text. WhatsApp allows free text only
	// within 24 hours of the person's last message, so a reminder the
	// business starts needs one.
	Template *Template
}

// Template names a Twilio Content API template (ContentSid, "HX…") and
// the values of its placeholders ("1" → "Maria").
type Template struct {
	SID       string
	Variables map[string]string
}

// Status is where a message stands, normalised across providers.
type Status string

// Statuses, in the order a message passes through them. Twilio's
// "undelivered" and "canceled" are StatusFailed; "accepted", "scheduled"
// and "sending" are StatusQueued.
const (
	// StatusQueued: the provider took the message and has not passed it
	// on yet.
	StatusQueued Status = "queued"
	// StatusSent: handed to the next hop (the carrier, WhatsApp, or for
	// e-mail the relay that accepted it). For e-mail nothing later
	// arrives through this package.
	StatusSent Status = "sent"
	// StatusDelivered: the recipient's device or mailbox has it.
	StatusDelivered Status = "delivered"
	// StatusRead: the recipient opened it (WhatsApp read receipts).
	StatusRead Status = "read"
	// StatusFailed: it will not arrive; the callback's error code says why.
	StatusFailed Status = "failed"
)

func (s Status) rank() int {
	switch s {
	case StatusQueued:
		return 1
	case StatusSent:
		return 2
	case StatusDelivered, StatusFailed:
		return 3
	case StatusRead:
		return 4
	}
	return 0
}

// Supersedes reports whether s is further along than old. Status
// callbacks may arrive out of order (Twilio does not promise order), so a
// product records a callback's status only when it supersedes the one it
// has: a late "sent" never overwrites "delivered". Delivered and failed
// are both final and do not supersede each other.
func (s Status) Supersedes(old Status) bool { return s.rank() > old.rank() }

// Receipt is what a provider said when it accepted a message.
type Receipt struct {
	Channel Channel
	// ID is the provider's identifier of the message: Twilio's Message
	// SID ("SM…"/"MM…"), which status callbacks name, or the e-mail's
	// Message-ID (without angle brackets), which bounces quote.
	ID string
	// Status is StatusQueued for Twilio (it sends on asynchronously) and
	// StatusSent for e-mail (the relay accepted it).
	Status Status
	// Detail is the provider's own words: the SMTP server's reply to the
	// message ("2.0.0 Ok: queued as 4Bf3…", which holds its queue id) or
	// Twilio's raw status. Kept for the record, not for parsing.
	Detail string
}

// Sender sends one message on its channel. Implementations are safe for
// concurrent use and return *Error for every failure, so the caller can
// decide what to retry without knowing the provider.
type Sender interface {
	Send(ctx context.Context, m Message) (Receipt, error)
}

// Error is a failed send. Every field is safe to store and show: no
// password, token or message body is ever in it.
type Error struct {
	Channel Channel
	// Provider is "smtp" or "twilio".
	Provider string
	// Permanent says the same message will never succeed: the recipient
	// does not exist, has unsubscribed, cannot receive this channel, or
	// the content is refused (SMTP 5xx to RCPT or to the message; Twilio
	// 4xx other than 408 and 429). Everything else is temporary: try
	// again later.
	Permanent bool
	// Misconfigured marks temporary failures caused by our own setup
	// rather than by the message: credentials refused, a TLS certificate
	// that does not verify, a sender address or number the provider does
	// not accept for us. They say nothing about the recipient, so they
	// are not permanent (the message succeeds once an operator fixes the
	// configuration), but waiting alone will not fix them: alert on them.
	Misconfigured bool
	// MaybeSent says the provider may have accepted the message although
	// no answer said so: the connection failed or timed out after the
	// whole message or request was sent. A retry may deliver twice; for
	// e-mail the repeated Message-ID lets the recipient's software tell.
	MaybeSent bool
	// Status is the SMTP reply code (550, 451) or the HTTP status (400,
	// 429); 0 when no answer arrived.
	Status int
	// Code is the provider's finer code: the SMTP enhanced status code
	// ("5.1.1", RFC 3463) or Twilio's error code ("21211").
	Code string
	// Message describes the failure (the server's or provider's text).
	Message string
	// MoreInfo is the provider's documentation link for Code, if any.
	MoreInfo string
	// RetryAfter is how long the provider asked us to wait (HTTP
	// Retry-After on a 429 or 503); 0 when it did not say.
	RetryAfter time.Duration
	// Err is the underlying cause when there is one (context.Canceled,
	// context.DeadlineExceeded, a network error), for errors.Is and
	// errors.As.
	Err error
}

// Error renders "provider: permanent|temporary: status code: message".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Provider)
	if e.Permanent {
		b.WriteString(": permanent")
	} else {
		b.WriteString(": temporary")
	}
	if e.Status != 0 {
		fmt.Fprintf(&b, ": %d", e.Status)
		if e.Code != "" {
			b.WriteString(" " + e.Code)
		}
	} else if e.Code != "" {
		b.WriteString(": " + e.Code)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	return b.String()
}

// Unwrap exposes the cause.
func (e *Error) Unwrap() error { return e.Err }

// IsPermanent reports whether err is a send *Error that will never
// succeed for this message (see Error.Permanent).
func IsPermanent(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Permanent
}

// IsTemporary reports whether err is a send *Error worth trying again
// later. An error that is not an *Error is neither permanent nor
// temporary: it is a bug, and both predicates say false.
func IsTemporary(err error) bool {
	var e *Error
	return errors.As(err, &e) && !e.Permanent
}

// Inline is an image carried inside an e-mail and shown by its HTML part
// as <img src="cid:ContentID">: a Pix QR code, for example, which a remote
// image would leak to a tracker or be blocked by the mail client.
type Inline struct {
	ContentID   string
	Filename    string
	ContentType string
	Data        []byte
}
