package mail

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net"
	netmail "net/mail"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/kobana/kobana-mcp/platform/messaging"
)

const (
	subject = "Lembrete: sua cobrança de R$ 1.234,56 vence amanhã"
	text    = "Olá, Maria.\n\nSua cobrança vence amanhã. Pague pelo Pix ou boleto.\n"
	html    = "<p>Olá, <b>Maria</b>.</p><p>Sua cobrança vence amanhã.</p>"
	unsub   = "https://dunning.example.com/u/0190f3a2?token=abc%2Fdef"
)

func reminder() Message {
	return Message{
		To:              "Maria da Silva <maria@devedor.example>",
		Subject:         subject,
		Text:            text,
		HTML:            html,
		MessageID:       "0190f3a2-7c4e-7b1a-9d2e-5f6a7b8c9d0e@kobana.example",
		ListUnsubscribe: unsub,
		Headers:         map[string]string{"X-Kobana-Charge": "chg_123", "Auto-Submitted": "auto-generated"},
	}
}

func mailErr(t *testing.T, err error) *messaging.Error {
	t.Helper()
	var e *messaging.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T %v, want *messaging.Error", err, err)
	}
	if e.Provider != Provider || e.Channel != messaging.Email {
		t.Fatalf("error %+v", e)
	}
	return e
}

// TestSendOverLoopback sends in clear to a local relay and reads back the
// raw message it received: envelope, headers and both bodies.
func TestSendOverLoopback(t *testing.T) {
	t.Parallel()
	b := &backend{}
	r := startRelay(t, b, relayOptions{})
	c := newTestClient(t, r, nil)
	res, err := c.Send(context.Background(), reminder())
	if err != nil {
		t.Fatal(err)
	}
	if res.MessageID != "0190f3a2-7c4e-7b1a-9d2e-5f6a7b8c9d0e@kobana.example" || res.Response != "2.0.0 OK: queued" {
		t.Fatalf("result %+v", res)
	}
	msgs := b.messages()
	if len(msgs) != 1 {
		t.Fatalf("%d messages", len(msgs))
	}
	got := msgs[0]
	if got.from != "cobranca@kobana.example" || len(got.rcpts) != 1 || got.rcpts[0] != "maria@devedor.example" || got.tls {
		t.Fatalf("envelope %+v", got)
	}
	checkReminder(t, got.data, true)
}

// checkReminder checks a received reminder(); extra says whether its
// Headers were sent too.
func checkReminder(t *testing.T, raw []byte, extra bool) {
	t.Helper()
	// Headers must be 7-bit: the accents travel encoded (RFC 2047).
	head, _, _ := bytes.Cut(raw, []byte("\r\n\r\n"))
	for i, ch := range head {
		if ch >= 0x80 {
			t.Fatalf("8-bit byte in the header at %d: %q", i, head)
		}
	}
	m, err := netmail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	h := m.Header
	dec := new(mime.WordDecoder)
	if s, err := dec.DecodeHeader(h.Get("Subject")); err != nil || s != subject {
		t.Errorf("Subject %q decodes to %q (%v)", h.Get("Subject"), s, err)
	}
	from, err := h.AddressList("From")
	if err != nil || len(from) != 1 || from[0].Name != "Kobana Cobranças" || from[0].Address != "cobranca@kobana.example" {
		t.Errorf("From %q: %v %v", h.Get("From"), from, err)
	}
	to, err := h.AddressList("To")
	if err != nil || len(to) != 1 || to[0].Address != "maria@devedor.example" {
		t.Errorf("To %q: %v", h.Get("To"), err)
	}
	if got := h.Get("Message-Id"); got != "<0190f3a2-7c4e-7b1a-9d2e-5f6a7b8c9d0e@kobana.example>" {
		t.Errorf("Message-ID %q", got)
	}
	if got := h.Get("List-Unsubscribe"); got != "<"+unsub+">" {
		t.Errorf("List-Unsubscribe %q", got)
	}
	if got := h.Get("List-Unsubscribe-Post"); got != "List-Unsubscribe=One-Click" {
		t.Errorf("List-Unsubscribe-Post %q", got)
	}
	if extra && (h.Get("X-Kobana-Charge") != "chg_123" || h.Get("Auto-Submitted") != "auto-generated") {
		t.Errorf("extra headers: %v", h)
	}
	if d, err := h.Date(); err != nil || time.Since(d) > time.Minute {
		t.Errorf("Date %q: %v", h.Get("Date"), err)
	}
	if h.Get("User-Agent") != "" || h.Get("X-Mailer") != "" {
		t.Errorf("the library announced itself: %q %q", h.Get("User-Agent"), h.Get("X-Mailer"))
	}
	mt, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil || mt != "multipart/alternative" {
		t.Fatalf("Content-Type %q: %v", h.Get("Content-Type"), err)
	}
	mr := multipart.NewReader(m.Body, params["boundary"])
	var parts []string
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(p) // quoted-printable is undone by NextPart
		pt, pp, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		if pp["charset"] != "UTF-8" && pp["charset"] != "utf-8" {
			t.Errorf("%s charset %q", pt, pp["charset"])
		}
		parts = append(parts, pt)
		switch pt {
		case "text/plain":
			if got := strings.ReplaceAll(string(body), "\r\n", "\n"); got != text {
				t.Errorf("text part %q", got)
			}
		case "text/html":
			if string(body) != html {
				t.Errorf("html part %q", body)
			}
		}
	}
	// The plain part first: clients show the last alternative they can.
	if len(parts) != 2 || parts[0] != "text/plain" || parts[1] != "text/html" {
		t.Errorf("parts %v", parts)
	}
}

// TestSendSTARTTLSWithAuth: STARTTLS required, the relay's self-signed
// certificate trusted through RootCAs, AUTH PLAIN over the encrypted
// connection.
func TestSendSTARTTLSWithAuth(t *testing.T) {
	t.Parallel()
	serverTLS, pool := selfSigned(t)
	b := &backend{users: map[string]string{"kobana": "s3cret"}}
	r := startRelay(t, b, relayOptions{tls: serverTLS})
	for _, policy := range []TLSPolicy{TLSRequired, TLSOpportunistic} {
		// Opportunistic with a password is only allowed to loopback,
		// which this relay is.
		c := newTestClient(t, r, func(cfg *Config) {
			cfg.TLS, cfg.RootCAs, cfg.Username, cfg.Password = policy, pool, "kobana", "s3cret"
		})
		if _, err := c.Send(context.Background(), reminder()); err != nil {
			t.Fatalf("%s: %v", policy, err)
		}
	}
	msgs := b.messages()
	if len(msgs) != 2 {
		t.Fatalf("%d messages", len(msgs))
	}
	for _, m := range msgs {
		if !m.tls || m.user != "kobana" {
			t.Fatalf("received tls=%v user=%q", m.tls, m.user)
		}
		checkReminder(t, m.data, true)
	}
}

func TestSendImplicitTLS(t *testing.T) {
	t.Parallel()
	serverTLS, pool := selfSigned(t)
	b := &backend{users: map[string]string{"kobana": "s3cret"}}
	r := startRelay(t, b, relayOptions{tls: serverTLS, implicit: true, host: "127.0.0.1"})
	c := newTestClient(t, r, func(cfg *Config) {
		cfg.Host = "localhost" // the certificate's name, resolved to the relay
		cfg.TLS, cfg.RootCAs, cfg.Username, cfg.Password = TLSImplicit, pool, "kobana", "s3cret"
	})
	if _, err := c.Send(context.Background(), reminder()); err != nil {
		t.Fatal(err)
	}
	msgs := b.messages()
	if len(msgs) != 1 || !msgs[0].tls || msgs[0].user != "kobana" {
		t.Fatalf("received %+v", msgs)
	}
}

// TestTLSRequiredNeverSpeaksInClear: a relay that offers AUTH but no
// STARTTLS gets neither the password nor the message.
func TestTLSRequiredNeverSpeaksInClear(t *testing.T) {
	t.Parallel()
	b := &backend{users: map[string]string{"kobana": "s3cret"}}
	r := startRelay(t, b, relayOptions{insecureAuth: true})
	c := newTestClient(t, r, func(cfg *Config) {
		cfg.TLS, cfg.Username, cfg.Password = TLSRequired, "kobana", "s3cret"
	})
	_, err := c.Send(context.Background(), reminder())
	e := mailErr(t, err)
	if e.Permanent || !e.Misconfigured || e.MaybeSent {
		t.Fatalf("%+v", e)
	}
	if _, tries := b.counts(); tries != 0 || len(b.messages()) != 0 {
		t.Fatalf("the relay got %d AUTH attempts and %d messages", tries, len(b.messages()))
	}
}

// TestFailedConnectionIsClosed: a send that fails after connecting (here
// STARTTLS required and not offered, which go-mail reports without
// closing) hangs up instead of leaving the relay a connection.
func TestFailedConnectionIsClosed(t *testing.T) {
	t.Parallel()
	b := &backend{ended: make(chan struct{}, 8)}
	r := startRelay(t, b, relayOptions{})
	c := newTestClient(t, r, func(cfg *Config) { cfg.TLS = TLSRequired })
	if _, err := c.Send(context.Background(), reminder()); err == nil {
		t.Fatal("sent without STARTTLS")
	}
	// The session ends when we hang up (the relay's own read timeout is
	// 10 s).
	select {
	case <-b.ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the connection is still open after the send failed")
	}
}

// TestAuthInClearOnLoopback: policy none sends AUTH PLAIN without TLS to
// any loopback address (New allows the policy nowhere else), not only to
// the names the SMTP library exempts by itself.
func TestAuthInClearOnLoopback(t *testing.T) {
	t.Parallel()
	b := &backend{users: map[string]string{"kobana": "s3cret"}}
	if l, err := net.Listen("tcp", "127.0.0.2:0"); err != nil {
		t.Skipf("127.0.0.2 is not usable here: %v", err)
	} else {
		l.Close()
	}
	r := startRelay(t, b, relayOptions{insecureAuth: true, host: "127.0.0.2"})
	c := newTestClient(t, r, func(cfg *Config) { cfg.Username, cfg.Password = "kobana", "s3cret" })
	if _, err := c.Send(context.Background(), reminder()); err != nil {
		t.Fatal(err)
	}
	if msgs := b.messages(); len(msgs) != 1 || msgs[0].user != "kobana" || msgs[0].tls {
		t.Fatalf("received %+v", msgs)
	}
}

func TestConnectionRefused(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	_, err = newTestClient(t, relay{host: "127.0.0.1", port: port}, nil).Send(context.Background(), reminder())
	e := mailErr(t, err)
	var op *net.OpError
	if e.Permanent || e.Misconfigured || e.MaybeSent || !errors.As(err, &op) {
		t.Fatalf("%+v", e)
	}
}

func TestUntrustedCertificate(t *testing.T) {
	t.Parallel()
	serverTLS, _ := selfSigned(t)
	b := &backend{}
	r := startRelay(t, b, relayOptions{tls: serverTLS})
	c := newTestClient(t, r, func(cfg *Config) { cfg.TLS = TLSRequired }) // system roots only
	_, err := c.Send(context.Background(), reminder())
	e := mailErr(t, err)
	if e.Permanent || !e.Misconfigured || !strings.Contains(e.Message, "certificate") {
		t.Fatalf("%+v", e)
	}
	if len(b.messages()) != 0 {
		t.Fatal("a message went through an unverified connection")
	}
}

func TestOpportunisticFallsBackToClear(t *testing.T) {
	t.Parallel()
	b := &backend{}
	r := startRelay(t, b, relayOptions{})
	c := newTestClient(t, r, func(cfg *Config) { cfg.TLS = TLSOpportunistic })
	if _, err := c.Send(context.Background(), reminder()); err != nil {
		t.Fatal(err)
	}
	if msgs := b.messages(); len(msgs) != 1 || msgs[0].tls {
		t.Fatalf("received %+v", msgs)
	}
}

// TestRepliesClassified: the relay's refusals, by step and class.
func TestRepliesClassified(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name                     string
		b                        *backend
		status                   int
		code                     string
		permanent, misconfigured bool
		text                     string
	}{
		{name: "unknown recipient", status: 550, code: "5.1.1", permanent: true, text: "RCPT TO: No such user",
			b: &backend{rcptErr: map[string]*smtp.SMTPError{"maria@devedor.example": {Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "No such user"}}}},
		{name: "greylisted recipient", status: 451, code: "4.7.1", text: "Greylisted, try again later",
			b: &backend{rcptErr: map[string]*smtp.SMTPError{"maria@devedor.example": {Code: 451, EnhancedCode: smtp.EnhancedCode{4, 7, 1}, Message: "Greylisted, try again later"}}}},
		{name: "content refused", status: 554, code: "5.7.1", permanent: true, text: "end of DATA: Message rejected as spam",
			b: &backend{dataErr: &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 7, 1}, Message: "Message rejected as spam"}}},
		{name: "relay out of space", status: 452, code: "4.3.1", text: "Insufficient system storage",
			b: &backend{dataErr: &smtp.SMTPError{Code: 452, EnhancedCode: smtp.EnhancedCode{4, 3, 1}, Message: "Insufficient system storage"}}},
		{name: "sender not ours", status: 553, code: "5.7.1", misconfigured: true, text: "MAIL FROM: Sender address rejected",
			b: &backend{mailErr: &smtp.SMTPError{Code: 553, EnhancedCode: smtp.EnhancedCode{5, 7, 1}, Message: "Sender address rejected"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := startRelay(t, tc.b, relayOptions{})
			_, err := newTestClient(t, r, nil).Send(context.Background(), reminder())
			e := mailErr(t, err)
			if e.Status != tc.status || e.Code != tc.code || e.Permanent != tc.permanent || e.Misconfigured != tc.misconfigured ||
				e.MaybeSent || !strings.Contains(e.Message, tc.text) {
				t.Fatalf("%+v", e)
			}
			if messaging.IsPermanent(err) != tc.permanent || messaging.IsTemporary(err) == tc.permanent {
				t.Fatalf("IsPermanent %v IsTemporary %v", messaging.IsPermanent(err), messaging.IsTemporary(err))
			}
			if len(tc.b.messages()) != 0 {
				t.Fatal("the refused message was recorded")
			}
		})
	}
}

func TestAuthRefused(t *testing.T) {
	t.Parallel()
	serverTLS, pool := selfSigned(t)
	b := &backend{users: map[string]string{"kobana": "s3cret"}}
	r := startRelay(t, b, relayOptions{tls: serverTLS})
	c := newTestClient(t, r, func(cfg *Config) {
		cfg.TLS, cfg.RootCAs, cfg.Username, cfg.Password = TLSRequired, pool, "kobana", "rotated"
	})
	_, err := c.Send(context.Background(), reminder())
	e := mailErr(t, err)
	if e.Status != 535 || e.Code != "5.7.8" || e.Permanent || !e.Misconfigured || strings.Contains(e.Error(), "rotated") {
		t.Fatalf("%+v", e)
	}
	if _, tries := b.counts(); tries != 1 {
		t.Fatalf("%d AUTH attempts", tries)
	}
}

// TestSilentRelayTimesOut: a relay that accepts the connection and never
// greets is given up on after Timeout, as a temporary failure.
func TestSilentRelayTimesOut(t *testing.T) {
	t.Parallel()
	r := silentRelay(t)
	c := newTestClient(t, r, func(cfg *Config) { cfg.Timeout = 300 * time.Millisecond })
	_, err := c.Send(context.Background(), reminder())
	e := mailErr(t, err)
	var ne net.Error
	if e.Permanent || e.MaybeSent || e.Misconfigured || !errors.As(err, &ne) || !ne.Timeout() || !strings.Contains(e.Message, "no answer within 300ms") {
		t.Fatalf("%+v", e)
	}
}

// TestNoAnswerToTheMessage: the relay read the whole message and never
// answered. It may have queued it: temporary, MaybeSent.
func TestNoAnswerToTheMessage(t *testing.T) {
	t.Parallel()
	b := &backend{hold: make(chan struct{})}
	r := startRelay(t, b, relayOptions{})
	// Each step before the end must finish within Timeout: generous, for
	// loaded machines.
	c := newTestClient(t, r, func(cfg *Config) { cfg.Timeout = time.Second })
	_, err := c.Send(context.Background(), reminder())
	e := mailErr(t, err)
	if e.Permanent || !e.MaybeSent || !strings.Contains(e.Message, "end of DATA") {
		t.Fatalf("%+v", e)
	}
	if len(b.messages()) != 1 {
		t.Fatal("the relay did not get the message it held")
	}
}

func TestCallerCancels(t *testing.T) {
	t.Parallel()
	r := silentRelay(t)
	c := newTestClient(t, r, func(cfg *Config) { cfg.Timeout, cfg.SendTimeout = time.Minute, time.Minute })
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := c.Send(ctx, reminder())
	e := mailErr(t, err)
	if !errors.Is(err, context.Canceled) || e.Permanent || e.MaybeSent {
		t.Fatalf("%+v", e)
	}
	// SendTimeout bounds the whole send the same way.
	c = newTestClient(t, r, func(cfg *Config) { cfg.Timeout, cfg.SendTimeout = time.Minute, 200*time.Millisecond })
	if _, err := c.Send(context.Background(), reminder()); !errors.Is(err, context.DeadlineExceeded) || !messaging.IsTemporary(err) {
		t.Fatalf("send timeout: %v", err)
	}
}

// TestComposeRefuses: messages that are not valid never reach the relay.
func TestComposeRefuses(t *testing.T) {
	t.Parallel()
	b := &backend{}
	r := startRelay(t, b, relayOptions{})
	c := newTestClient(t, r, nil)
	for name, change := range map[string]func(*Message){
		"two recipients": func(m *Message) { m.To = "a@x.example, b@x.example" },
		"no recipient":   func(m *Message) { m.To = "" },
		// The address inside To passes platform/address, as when saved.
		"to localhost":         func(m *Message) { m.To = "Maria <maria@localhost>" },
		"to quoted local":      func(m *Message) { m.To = `"maria silva"@devedor.example` },
		"to ip literal":        func(m *Message) { m.To = "maria@[127.0.0.1]" },
		"to name with tab":     func(m *Message) { m.To = "Maria\t <maria@devedor.example>" },
		"subject injection":    func(m *Message) { m.Subject = "Oi\r\nBcc: everyone@x.example" },
		"empty text":           func(m *Message) { m.Text = " \n" },
		"message id brackets":  func(m *Message) { m.MessageID = "<abc@kobana.example>" },
		"message id no domain": func(m *Message) { m.MessageID = "abc" },
		"message id space":     func(m *Message) { m.MessageID = "a b@kobana.example" },
		"unsubscribe http":     func(m *Message) { m.ListUnsubscribe = "http://dunning.example.com/u/1" },
		"unsubscribe mailto only": func(m *Message) {
			m.ListUnsubscribe, m.ListUnsubscribeMailto = "", "mailto:unsub@kobana.example"
		},
		"bad mailto": func(m *Message) { m.ListUnsubscribeMailto = "unsub@kobana.example" },
		"unsubscribe too long": func(m *Message) {
			m.ListUnsubscribe = "https://dunning.example.com/u/" + strings.Repeat("a", 900)
		},
		"reserved header":    func(m *Message) { m.Headers = map[string]string{"bcc": "everyone@x.example"} },
		"header injection":   func(m *Message) { m.Headers = map[string]string{"X-Note": "a\nBcc: everyone@x.example"} },
		"header name":        func(m *Message) { m.Headers = map[string]string{"X Note": "a"} },
		"bad reply-to":       func(m *Message) { m.ReplyTo = "not an address" },
		"unsubscribe broken": func(m *Message) { m.ListUnsubscribe = "https://dunning.example.com/u/1\r\nBcc: x@y" },
	} {
		m := reminder()
		change(&m)
		_, err := c.Send(context.Background(), m)
		if e := mailErr(t, err); !e.Permanent {
			t.Errorf("%s: %+v, want permanent", name, e)
		}
	}
	if sessions, _ := b.counts(); sessions != 0 {
		t.Fatalf("%d sessions reached the relay", sessions)
	}
}

func TestGeneratedMessageIDAndMailto(t *testing.T) {
	t.Parallel()
	b := &backend{}
	r := startRelay(t, b, relayOptions{})
	c := newTestClient(t, r, func(cfg *Config) { cfg.EnvelopeFrom = "bounces+0190f3a2@kobana.example" })
	m := reminder()
	m.MessageID, m.HTML = "", ""
	m.ListUnsubscribeMailto = "mailto:unsub@kobana.example?subject=0190f3a2"
	res, err := c.Send(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if !ValidMessageID(res.MessageID) || !strings.HasSuffix(res.MessageID, "@kobana.example") {
		t.Fatalf("generated id %q", res.MessageID)
	}
	got := b.messages()[0]
	if got.from != "bounces+0190f3a2@kobana.example" {
		t.Fatalf("MAIL FROM %q", got.from)
	}
	parsed, err := netmail.ReadMessage(bytes.NewReader(got.data))
	if err != nil {
		t.Fatal(err)
	}
	h := parsed.Header
	if h.Get("Message-Id") != "<"+res.MessageID+">" {
		t.Fatalf("Message-ID %q, result %q", h.Get("Message-Id"), res.MessageID)
	}
	if want := "<" + unsub + ">, <mailto:unsub@kobana.example?subject=0190f3a2>"; h.Get("List-Unsubscribe") != want {
		t.Fatalf("List-Unsubscribe %q", h.Get("List-Unsubscribe"))
	}
	if mt, _, _ := mime.ParseMediaType(h.Get("Content-Type")); mt != "text/plain" {
		t.Fatalf("text-only message is %q", h.Get("Content-Type"))
	}
	if h.Get("Return-Path") != "" || h.Get("Envelope-From") != "" {
		t.Fatalf("the envelope leaked into the header: %v", h)
	}
}

// TestSenderAdapter: the Email channel's messaging.Sender.
func TestSenderAdapter(t *testing.T) {
	t.Parallel()
	b := &backend{}
	r := startRelay(t, b, relayOptions{})
	s := newTestClient(t, r, nil).Sender()
	msg := messaging.Message{
		Channel: messaging.Email, To: "maria@devedor.example", ID: "0190f3a2-7c4e-7b1a-9d2e-5f6a7b8c9d0e",
		Subject: subject, Text: text, HTML: html, ListUnsubscribe: unsub,
	}
	// Sent twice, as a retry would: the same Message-ID both times.
	for range 2 {
		rec, err := s.Send(context.Background(), msg)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Channel != messaging.Email || rec.ID != "0190f3a2-7c4e-7b1a-9d2e-5f6a7b8c9d0e@kobana.example" ||
			rec.Status != messaging.StatusSent || rec.Detail != "2.0.0 OK: queued" {
			t.Fatalf("receipt %+v", rec)
		}
	}
	for _, m := range b.messages() {
		checkReminder(t, m.data, false) // the same id as reminder()'s
	}
	_, err := s.Send(context.Background(), messaging.Message{Channel: messaging.SMS, To: "+5511987654321", Text: "x"})
	if !messaging.IsPermanent(err) {
		t.Fatalf("SMS through e-mail: %v", err)
	}
	// A recipient refusal keeps its class through the adapter.
	refusing := &backend{rcptErr: map[string]*smtp.SMTPError{"nobody@devedor.example": {Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "No such user"}}}
	s = newTestClient(t, startRelay(t, refusing, relayOptions{}), nil).Sender()
	msg.To = "nobody@devedor.example"
	if _, err := s.Send(context.Background(), msg); !messaging.IsPermanent(err) {
		t.Fatalf("unknown recipient: %v", err)
	}
}

func TestNewChecksConfig(t *testing.T) {
	t.Parallel()
	ok := Config{Host: "smtp.example.com", From: "cobranca@kobana.example"}
	for name, change := range map[string]func(*Config){
		"no host":                   func(c *Config) { c.Host = "" },
		"clear text to a host":      func(c *Config) { c.TLS = TLSNone },
		"clear text to a private":   func(c *Config) { c.Host, c.TLS = "10.0.0.5", TLSNone },
		"opportunistic with a user": func(c *Config) { c.TLS, c.Username = TLSOpportunistic, "kobana" },
		"unknown policy":            func(c *Config) { c.TLS = TLSPolicy(9) },
		"bad port":                  func(c *Config) { c.Port = 70000 },
		"no from":                   func(c *Config) { c.From = "" },
		"from without domain":       func(c *Config) { c.From = "cobranca" },
		"bad envelope":              func(c *Config) { c.EnvelopeFrom = "bounces" },
	} {
		cfg := ok
		change(&cfg)
		if _, err := New(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	for _, c := range []struct {
		policy TLSPolicy
		port   int
	}{{TLSRequired, 587}, {TLSOpportunistic, 587}, {TLSImplicit, 465}} {
		cfg := ok
		cfg.TLS = c.policy
		cl, err := New(cfg)
		if err != nil || cl.cfg.Port != c.port {
			t.Errorf("%s: port %d, %v", c.policy, cl.cfg.Port, err)
		}
	}
	for _, host := range []string{"localhost", "127.0.0.1", "::1"} {
		if _, err := New(Config{Host: host, TLS: TLSNone, Port: 25, From: ok.From}); err != nil {
			t.Errorf("clear text to %s: %v", host, err)
		}
	}
}

func TestParseTLSPolicy(t *testing.T) {
	t.Parallel()
	for p := TLSRequired; p <= TLSNone; p++ {
		got, err := ParseTLSPolicy(p.String())
		if err != nil || got != p {
			t.Errorf("%s: %v %v", p, got, err)
		}
	}
	if _, err := ParseTLSPolicy("ssl"); err == nil {
		t.Error("ssl accepted")
	}
}
