package mail

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	netmail "net/mail"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"

	gomail "github.com/wneessen/go-mail"
	"github.com/wneessen/go-mail/smtp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/kobana/kobana-mcp/platform/address"
	"github.com/kobana/kobana-mcp/platform/messaging"
	"github.com/kobana/kobana-mcp/platform/tracing"
)

// TLSPolicy says how the connection to the relay is encrypted.
type TLSPolicy int

// The policies. The zero value is TLSRequired, so a Config that forgets
// to choose never sends a password or a message in clear.
const (
	// TLSRequired: the relay must offer STARTTLS (RFC 3207) and the
	// upgrade must succeed, certificate verified, before anything else is
	// said. Port 587 by default.
	TLSRequired TLSPolicy = iota
	// TLSOpportunistic: STARTTLS when the relay offers it, clear text
	// otherwise. An attacker on the path can remove the offer, so it is
	// refused together with a username.
	TLSOpportunistic
	// TLSImplicit: TLS from the first byte (RFC 8314 "submissions"). Port
	// 465 by default.
	TLSImplicit
	// TLSNone: clear text, allowed only to a relay on the loopback
	// interface (a local Postfix or sidecar).
	TLSNone
)

func (p TLSPolicy) String() string {
	switch p {
	case TLSRequired:
		return "starttls-required"
	case TLSOpportunistic:
		return "starttls-opportunistic"
	case TLSImplicit:
		return "implicit-tls"
	case TLSNone:
		return "none"
	}
	return "TLSPolicy(" + strconv.Itoa(int(p)) + ")"
}

// ParseTLSPolicy reads the words String gives, for flags and settings.
func ParseTLSPolicy(s string) (TLSPolicy, error) {
	for p := TLSRequired; p <= TLSNone; p++ {
		if p.String() == s {
			return p, nil
		}
	}
	return 0, fmt.Errorf("mail: unknown TLS policy %q (starttls-required, starttls-opportunistic, implicit-tls, none)", s)
}

// Config is the relay messages are submitted to and who sends them.
type Config struct {
	// Host is the relay's name (also the name its certificate must have).
	Host string
	// Port defaults to 465 with TLSImplicit and 587 otherwise.
	Port int
	// Username and Password authenticate with AUTH PLAIN (RFC 4616), only
	// ever over TLS or to loopback. Empty Username: no authentication.
	Username string
	Password string
	TLS      TLSPolicy
	// RootCAs verifies the relay's certificate instead of the system's
	// roots (tests, private relays).
	RootCAs *x509.CertPool

	// From is the From header, "Kobana Cobranças <cobranca@kobana.com.br>"
	// or a bare address. Its domain completes Message-IDs.
	From string
	// EnvelopeFrom, when set, is the MAIL FROM address bounces go to
	// instead of From's.
	EnvelopeFrom string
	// HELO is the name we give in EHLO; default the machine's host name.
	HELO string

	// Timeout bounds each step: connecting, the TLS handshake, and the
	// relay's answer to each command (default 30 s; RFC 5321 §4.5.3.2
	// allows a server minutes, but a job would rather retry later).
	Timeout time.Duration
	// SendTimeout bounds one whole Send (default 2 minutes).
	SendTimeout time.Duration
}

// Client submits e-mail to one relay. It holds no connection: each Send
// dials, sends one message and quits, so it is safe for concurrent use
// and a broken connection never outlives the send that saw it.
type Client struct {
	cfg    Config
	from   *netmail.Address
	domain string
}

const (
	defaultTimeout     = 30 * time.Second
	defaultSendTimeout = 2 * time.Minute
	// Provider is the Provider of the errors this package returns.
	Provider = "smtp"
)

// New checks cfg and returns a client. It does not connect.
func New(cfg Config) (*Client, error) {
	if cfg.Host == "" {
		return nil, errors.New("mail: Host is required")
	}
	if cfg.TLS < TLSRequired || cfg.TLS > TLSNone {
		return nil, fmt.Errorf("mail: unknown TLS policy %d", cfg.TLS)
	}
	if cfg.TLS == TLSNone && !isLoopback(cfg.Host) {
		return nil, fmt.Errorf("mail: TLS policy none is only for a relay on loopback, not %q", cfg.Host)
	}
	if cfg.TLS == TLSOpportunistic && cfg.Username != "" && !isLoopback(cfg.Host) {
		return nil, errors.New("mail: opportunistic STARTTLS with a username would send the password in clear when the offer is stripped; use starttls-required")
	}
	if cfg.Port == 0 {
		cfg.Port = 587
		if cfg.TLS == TLSImplicit {
			cfg.Port = 465
		}
	}
	if cfg.Port < 1 || cfg.Port > 65535 {
		return nil, fmt.Errorf("mail: port %d out of range", cfg.Port)
	}
	from, err := netmail.ParseAddress(cfg.From)
	if err != nil {
		return nil, fmt.Errorf("mail: From %q: %v", cfg.From, err)
	}
	_, domain, _ := strings.Cut(from.Address, "@")
	if domain == "" || !atextDots.MatchString(domain) {
		return nil, fmt.Errorf("mail: From %q has no usable domain", cfg.From)
	}
	if cfg.EnvelopeFrom != "" {
		if _, err := netmail.ParseAddress(cfg.EnvelopeFrom); err != nil {
			return nil, fmt.Errorf("mail: EnvelopeFrom %q: %v", cfg.EnvelopeFrom, err)
		}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultTimeout
	}
	if cfg.SendTimeout <= 0 {
		cfg.SendTimeout = defaultSendTimeout
	}
	return &Client{cfg: cfg, from: from, domain: strings.ToLower(domain)}, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// Message is one e-mail to one recipient.
type Message struct {
	// To is one address, bare or with a display name; the address must
	// pass platform/address.ParseEmail.
	To      string
	ReplyTo string
	// Subject may hold any Unicode; it is encoded per RFC 2047.
	Subject string
	// Text is the text/plain body, required: clients that show no HTML,
	// screen readers and spam filters all read it.
	Text string
	// HTML, when set, is the text/html alternative (multipart/alternative).
	HTML string
	// Inline are images HTML shows by Content-ID: the message becomes
	// multipart/related around the alternatives. Only with HTML.
	Inline []messaging.Inline

	// MessageID is "left@right" without angle brackets (RFC 5322 §3.6.4),
	// chosen by the caller so every retry of one message carries the same
	// id: a copy delivered twice after an ambiguous failure is then
	// recognisably one message. Empty: a random id at From's domain.
	MessageID string

	// ListUnsubscribe is an https URL that unsubscribes the recipient with
	// one POST; the message then carries "List-Unsubscribe: <URL>" and
	// "List-Unsubscribe-Post: List-Unsubscribe=One-Click" (RFC 8058).
	// Mailbox providers require both of bulk senders; RFC 8058 also wants
	// a DKIM signature covering them, which is the relay's to add.
	ListUnsubscribe string
	// ListUnsubscribeMailto is an optional "mailto:" fallback added to
	// List-Unsubscribe (RFC 2369), for clients that do not POST.
	ListUnsubscribeMailto string

	// Headers are further header fields ("X-Kobana-Charge": "…",
	// "Auto-Submitted": "auto-generated"). The fields this type sets
	// itself, and the structural MIME ones, are refused here.
	Headers map[string]string
}

// Result is the relay's acceptance of a message.
type Result struct {
	// MessageID is the Message-ID sent, without angle brackets.
	MessageID string
	// Response is the relay's reply to the end of the message, without
	// its code: "2.0.0 Ok: queued as 4Bf3Q21x" for Postfix, "Ok
	// 0100018f…" for Amazon SES. Its queue id is what the relay's logs
	// name.
	Response string
}

// reserved are the header fields Message sets, or that would break the
// message's structure.
var reserved = map[string]bool{
	"from": true, "to": true, "cc": true, "bcc": true, "reply-to": true, "sender": true,
	"subject": true, "date": true, "message-id": true, "return-path": true,
	"mime-version": true, "content-type": true, "content-transfer-encoding": true,
	"list-unsubscribe": true, "list-unsubscribe-post": true,
}

// fieldName is a header field name (RFC 5322 §3.6.8 ftext, kept to the
// characters names use in practice).
var fieldName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]*$`)

// atextDots is a dot-atom (RFC 5322 §3.2.3): atext runs separated by
// single dots, as both halves of a Message-ID are.
var atextDots = regexp.MustCompile("^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$")

// ValidMessageID reports whether id is a Message-ID without its angle
// brackets: dot-atom "@" dot-atom.
func ValidMessageID(id string) bool {
	left, right, ok := strings.Cut(id, "@")
	return ok && len(id) <= 250 && atextDots.MatchString(left) && atextDots.MatchString(right)
}

func hasLineBreak(s string) bool { return strings.ContainsAny(s, "\r\n") }

// compose builds the go-mail message, refusing (permanently) what is not
// a valid message.
func (c *Client) compose(m Message) (*gomail.Msg, string, error) {
	refuse := func(format string, args ...any) error {
		return &messaging.Error{Channel: messaging.Email, Provider: Provider, Permanent: true, Message: fmt.Sprintf(format, args...)}
	}
	// The last check before SMTP: a display name is allowed here (the
	// Dunning reminder greets the debtor by name), but the address inside
	// it must pass platform/address like it did when it was saved, and no
	// control character may reach a header, whatever a caller stored.
	if strings.IndexFunc(m.To, unicode.IsControl) >= 0 {
		return nil, "", refuse("to %q has a control character", m.To)
	}
	to, err := netmail.ParseAddress(m.To)
	if err != nil {
		return nil, "", refuse("to %q is not one e-mail address: %v", m.To, err)
	}
	if to.Address, err = address.ParseEmail(to.Address); err != nil {
		return nil, "", refuse("to %q: %v", m.To, err)
	}
	if hasLineBreak(m.Subject) {
		return nil, "", refuse("subject has a line break")
	}
	if strings.TrimSpace(m.Text) == "" {
		return nil, "", refuse("empty text body")
	}
	id := m.MessageID
	if id == "" {
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		id = hex.EncodeToString(b) + "@" + c.domain
	}
	if !ValidMessageID(id) {
		return nil, "", refuse("message id %q is not left@right of letters, digits, dots and RFC 5322 atext", id)
	}
	msg := gomail.NewMsg(gomail.WithNoDefaultUserAgent())
	msg.FromMailAddress(c.from)
	msg.ToMailAddress(to)
	if c.cfg.EnvelopeFrom != "" {
		if err := msg.EnvelopeFrom(c.cfg.EnvelopeFrom); err != nil {
			return nil, "", refuse("envelope from: %v", err)
		}
	}
	if m.ReplyTo != "" {
		if err := msg.ReplyTo(m.ReplyTo); err != nil {
			return nil, "", refuse("reply-to %q: %v", m.ReplyTo, err)
		}
	}
	msg.Subject(m.Subject)
	msg.SetMessageIDWithValue(id)
	msg.SetDateWithValue(time.Now())
	if m.ListUnsubscribe != "" {
		var extra []string
		if m.ListUnsubscribeMailto != "" {
			if !strings.HasPrefix(m.ListUnsubscribeMailto, "mailto:") || hasLineBreak(m.ListUnsubscribeMailto) || strings.ContainsAny(m.ListUnsubscribeMailto, "<>, ") {
				return nil, "", refuse("list-unsubscribe mailto %q is not a mailto: URI", m.ListUnsubscribeMailto)
			}
			extra = append(extra, m.ListUnsubscribeMailto)
		}
		u, err := url.Parse(m.ListUnsubscribe)
		if err != nil || u.Scheme != "https" || u.Host == "" || hasLineBreak(m.ListUnsubscribe) {
			return nil, "", refuse("list-unsubscribe %q is not an https URL (RFC 8058)", m.ListUnsubscribe)
		}
		// The header is written on one line, which RFC 5322 §2.1.1 caps at
		// 998 bytes; a URL is not folded safely.
		if len(u.String())+len(m.ListUnsubscribeMailto) > 900 {
			return nil, "", refuse("list-unsubscribe URIs longer than 900 bytes")
		}
		if err := msg.SetListUnsubscribeOneClick(u.String(), extra...); err != nil {
			return nil, "", refuse("list-unsubscribe: %v", err)
		}
	} else if m.ListUnsubscribeMailto != "" {
		return nil, "", refuse("a list-unsubscribe mailto needs the https URL too (RFC 8058 one-click)")
	}
	for name, value := range m.Headers {
		if !fieldName.MatchString(name) || reserved[strings.ToLower(name)] {
			return nil, "", refuse("header %q may not be set this way", name)
		}
		if hasLineBreak(value) || len(value) > 900 {
			return nil, "", refuse("header %s: a value must be one line under 900 bytes", name)
		}
		msg.SetGenHeader(gomail.Header(name), value)
	}
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	if m.HTML != "" {
		msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	} else if len(m.Inline) > 0 {
		return nil, "", refuse("inline images need an HTML part to show them")
	}
	for _, in := range m.Inline {
		if in.ContentID == "" || strings.ContainsAny(in.ContentID, "<> \r\n") || in.Filename == "" || hasLineBreak(in.Filename) {
			return nil, "", refuse("inline image %q: a Content-ID and a file name of one line are needed", in.ContentID)
		}
		// RFC 2392: the header holds the id in angle brackets, cid: without.
		opts := []gomail.FileOption{gomail.WithFileContentID("<" + in.ContentID + ">")}
		if in.ContentType != "" {
			opts = append(opts, gomail.WithFileContentType(gomail.ContentType(in.ContentType)))
		}
		if err := msg.EmbedReader(in.Filename, bytes.NewReader(in.Data), opts...); err != nil {
			return nil, "", refuse("inline image %q: %v", in.ContentID, err)
		}
	}
	return msg, id, nil
}

// Send submits m to the relay: connect, EHLO, STARTTLS or implicit TLS
// as configured, AUTH, MAIL FROM, RCPT TO, DATA. It returns once the relay
// has accepted the message (Result) or refused it; every failure is a
// *messaging.Error saying whether to retry (see classify). ctx cancels the
// send at any step.
func (c *Client) Send(ctx context.Context, m Message) (Result, error) {
	if !tracing.Recording(ctx) {
		return c.send(ctx, m)
	}
	// Inside a trace, one CLIENT span per message (docs/operating.md
	// "Traces"): the relay, never the addresses or the content.
	ctx, span := tracing.Start(ctx, "smtp send", trace.SpanKindClient,
		attribute.String("network.protocol.name", "smtp"),
		attribute.String("server.address", c.cfg.Host), attribute.Int("server.port", c.cfg.Port))
	res, err := c.send(ctx, m)
	errType := ""
	if err != nil {
		errType = "temporary"
		if messaging.IsPermanent(err) {
			errType = "permanent"
		}
	}
	tracing.End(span, err, errType)
	return res, err
}

// send is Send without its span.
func (c *Client) send(ctx context.Context, m Message) (Result, error) {
	msg, id, err := c.compose(m)
	if err != nil {
		return Result{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.SendTimeout)
	defer cancel()
	if err := ctx.Err(); err != nil {
		return Result{}, c.classify(ctx, stageConnect, err)
	}

	tlsConfig := &tls.Config{ServerName: c.cfg.Host, RootCAs: c.cfg.RootCAs, MinVersion: tls.VersionTLS12}
	// The dialer ties the connection to ctx: cancelling closes it, which
	// ends whatever read or write is waiting.
	var (
		conn net.Conn
		stop func() bool
	)
	dial := func(dctx context.Context, network, addr string) (net.Conn, error) {
		d := &net.Dialer{Timeout: c.cfg.Timeout}
		var err error
		if c.cfg.TLS == TLSImplicit {
			conn, err = (&tls.Dialer{NetDialer: d, Config: tlsConfig}).DialContext(dctx, network, addr)
		} else {
			conn, err = d.DialContext(dctx, network, addr)
		}
		if err != nil {
			return nil, err
		}
		stop = context.AfterFunc(ctx, func() { conn.Close() })
		return conn, nil
	}
	defer func() {
		if stop != nil {
			stop()
		}
	}()

	opts := []gomail.Option{
		gomail.WithPort(c.cfg.Port),
		gomail.WithTimeout(c.cfg.Timeout),
		gomail.WithTLSConfig(tlsConfig),
		gomail.WithDialContextFunc(dial),
	}
	switch c.cfg.TLS {
	case TLSRequired:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	case TLSOpportunistic:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	case TLSImplicit:
		// The dialer did the TLS; no STARTTLS on top.
		opts = append(opts, gomail.WithSSL())
	case TLSNone:
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	}
	if c.cfg.HELO != "" {
		opts = append(opts, gomail.WithHELO(c.cfg.HELO))
	}
	if c.cfg.Username != "" {
		// Under the TLS policies go-mail's PLAIN also refuses, on its own,
		// a connection that ended up without TLS. Policies that may speak
		// in clear are only allowed to loopback (New), where PLAIN is sent
		// without TLS on purpose.
		auth := gomail.SMTPAuthPlain
		if c.cfg.TLS == TLSNone || c.cfg.TLS == TLSOpportunistic {
			auth = gomail.SMTPAuthPlainNoEnc
		}
		opts = append(opts, gomail.WithSMTPAuth(auth),
			gomail.WithUsername(c.cfg.Username), gomail.WithPassword(c.cfg.Password))
	}
	gm, err := gomail.NewClient(c.cfg.Host, opts...)
	if err != nil {
		return Result{}, c.classify(ctx, stageConnect, err)
	}
	sc, err := gm.DialToSMTPClientWithContext(ctx)
	if err != nil {
		// go-mail leaves a connection that failed after connecting (TLS,
		// AUTH) open.
		if conn != nil {
			_ = conn.Close()
		}
		return Result{}, c.classify(ctx, stageConnect, err)
	}
	resp, stage, err := c.transact(sc, msg)
	if err != nil {
		if hasReply(err) && ctx.Err() == nil {
			// The relay is talking: say goodbye properly.
			if sc.Quit() != nil {
				_ = sc.Close()
			}
		} else {
			_ = sc.Close()
		}
		return Result{}, c.classify(ctx, stage, err)
	}
	// Accepted. A failing QUIT changes nothing: the relay has the message.
	if sc.Quit() != nil {
		_ = sc.Close()
	}
	return Result{MessageID: id, Response: resp}, nil
}

// stage is how far a send got, which decides how its failure reads.
type stage int

const (
	stageConnect  stage = iota // connect, greeting, EHLO, TLS, AUTH
	stageMailFrom              // MAIL FROM: the sender
	stageRcptTo                // RCPT TO: the recipient
	stageData                  // DATA and the message's bytes
	stageDataEnd               // the reply to the message's final dot
)

// transact runs one mail transaction on a connected, authenticated
// client, each command bounded by Timeout, and returns the relay's reply
// to the message.
func (c *Client) transact(sc *smtp.Client, msg *gomail.Msg) (string, stage, error) {
	from, err := msg.GetSender(false)
	if err != nil {
		return "", stageMailFrom, err
	}
	rcpts, err := msg.GetRecipients()
	if err != nil {
		return "", stageRcptTo, err
	}
	step := func() error { return sc.UpdateDeadline(c.cfg.Timeout) }
	if err := step(); err != nil {
		return "", stageMailFrom, err
	}
	if err := sc.Mail(from); err != nil {
		return "", stageMailFrom, err
	}
	for _, r := range rcpts {
		if err := step(); err != nil {
			return "", stageRcptTo, err
		}
		if err := sc.Rcpt(r); err != nil {
			return "", stageRcptTo, err
		}
	}
	if err := step(); err != nil {
		return "", stageData, err
	}
	w, err := sc.Data()
	if err != nil {
		return "", stageData, err
	}
	if _, err := msg.WriteTo(w); err != nil {
		return "", stageData, err
	}
	// From here the relay has the whole message; only its answer is
	// missing.
	if err := step(); err != nil {
		return "", stageDataEnd, err
	}
	if err := w.Close(); err != nil {
		return "", stageDataEnd, err
	}
	resp := ""
	if dc, ok := w.(*smtp.DataCloser); ok {
		resp = dc.ServerResponse()
	}
	return resp, stageDataEnd, nil
}
