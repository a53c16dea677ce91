package inbox

import (
	"context"
	"errors"
	"net"
	"net/smtp"
	"net/textproto"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// smtpSend runs one SMTP transaction on addr: the error of the first
// command refused (a *textproto.Error), or nil when the message was taken.
func smtpSend(t *testing.T, addr, from string, rcpts []string, raw []byte) error {
	t.Helper()
	c, err := smtp.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Hello("client.test"); err != nil {
		return err
	}
	if err := c.Mail(from); err != nil {
		return err
	}
	for _, r := range rcpts {
		if err := c.Rcpt(r); err != nil {
			return err
		}
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(raw); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

// smtpCode is the reply code of a refused command (0 for none).
func smtpCode(err error) int {
	var te *textproto.Error
	if errors.As(err, &te) {
		return te.Code
	}
	return 0
}

// TestIntakeSMTP sends every fixture through a real SMTP session on
// loopback and checks what was stored: bytes identical to what was sent,
// the parsed fields, screening, events; and what the listener refuses.
func TestIntakeSMTP(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := newTestEnv(t, db, Config{SMTPAddr: "off"})
		s := mailService(t, e, Config{SMTPAddr: "127.0.0.1:0", MaxMessageBytes: 64 << 10})
		addr := s.addr().String()
		contas := mailInbox(t, e, e.Owner, "contas@inbox.localhost", nil)
		mailInbox(t, e, e.Owner, "restrito@inbox.localhost", map[string]any{"allowed_recipients": []string{"@banco.example"}})
		mailInbox(t, e, e.Owner, "parado@inbox.localhost", map[string]any{"status": "inactive"})
		theirs := mailInbox(t, e, e.Other, "deles@inbox.localhost", nil)

		c, err := smtp.Dial(addr)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Hello("client.test"); err != nil {
			t.Fatal(err)
		}
		if ok, size := c.Extension("SIZE"); !ok || size != "65536" {
			t.Fatalf("SIZE %v %q", ok, size)
		}
		if ok, _ := c.Extension("AUTH"); ok {
			t.Fatal("the MX-style intake offers AUTH")
		}
		_ = c.Quit()

		type check func(t *testing.T, r emailRecord)
		fixtures := map[string]check{
			"mixed_pdf.eml": func(t *testing.T, r emailRecord) {
				atts := decodeList[emailAttachment](r.AttachmentsJSON)
				if deref(r.Subject) != "Boleto fevereiro/2026" || r.MessageID != "boleto-0001@fornecedor.example" || len(atts) != 1 ||
					atts[0] != (emailAttachment{Filename: "boleto-fevereiro.pdf", ContentType: "application/pdf", Size: 812}) ||
					!slices.Equal(decodeList[string](r.CcJSON), []string{"gerente@cliente.example"}) ||
					r.SentAt == nil || !r.SentAt.Equal(time.Date(2026, 3, 2, 12, 15, 0, 0, time.UTC)) {
					t.Fatalf("%+v %+v", r, atts)
				}
			},
			"latin1.eml": func(t *testing.T, r emailRecord) {
				if deref(r.Subject) != "Cobrança de março - prestação" || !strings.Contains(deref(r.BodyText), "prestação de serviços de manutenção.") || r.FromAddress != "joao@escritorio.example" {
					t.Fatalf("%q %q", deref(r.Subject), deref(r.BodyText))
				}
			},
			"forwarded_rfc822.eml": func(t *testing.T, r emailRecord) {
				if r.Forwarded != 1 || deref(r.ForwardedFor) != "cobranca@fornecedor.example" || r.FromAddress != "ana@cliente.example" {
					t.Fatalf("%+v", r)
				}
			},
			"forwarded_inline.eml": func(t *testing.T, r emailRecord) {
				if r.Forwarded != 1 || deref(r.ForwardedFor) != "boletos@imobiliaria.example" || !strings.Contains(deref(r.BodyText), "Linha digitável") || r.BodyHTML == nil {
					t.Fatalf("%+v", r)
				}
			},
			"html_only.eml": func(t *testing.T, r emailRecord) {
				if r.BodyText != nil || !strings.Contains(deref(r.BodyHTML), "<p>Prezado cliente,</p>") || deref(r.Subject) != "Seu boleto de março" {
					t.Fatalf("%+v", r)
				}
			},
			"nested_related.eml": func(t *testing.T, r emailRecord) {
				if deref(r.BodyText) != "Seu pedido 42 foi faturado." || len(decodeList[emailAttachment](r.AttachmentsJSON)) != 2 {
					t.Fatalf("%+v", r)
				}
			},
		}
		for name, chk := range fixtures {
			raw := mailFixture(t, name)
			if err := smtpSend(t, addr, "bounces@sender.example", []string{"contas@inbox.localhost"}, raw); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			rows := mailRowsBySum(t, db, raw)
			if len(rows) != 1 {
				t.Fatalf("%s: %d rows", name, len(rows))
			}
			r := rows[0]
			if got := mailRawOf(t, db, r.ID); string(got) != string(raw) || r.RawSize != int64(len(raw)) {
				t.Fatalf("%s: stored %d bytes, sent %d", name, len(got), len(raw))
			}
			if r.InboxID != contas || r.OrganizationID != e.Mine.ID || r.WorkspaceID != e.MineWS.ID || r.Intake != intakeSMTP ||
				r.Status == emailRejected || !slices.Equal(decodeList[string](r.ToJSON), []string{"contas@inbox.localhost"}) {
				t.Fatalf("%s: %+v", name, r)
			}
			// Received exactly once; processing may already have added its
			// own events (a queued job starts at once).
			if ev := mailEvents(t, db, r.ID); countOf(ev, "email.received") != 1 {
				t.Fatalf("%s: events %v", name, ev)
			}
			chk(t, r)
		}

		// Unknown, inactive and malformed recipients are refused at RCPT;
		// the known one of the same envelope still gets the message.
		for _, rcpt := range []string{"nobody@inbox.localhost", "parado@inbox.localhost", "contas@elsewhere.example"} {
			err := smtpSend(t, addr, "x@sender.example", []string{rcpt}, mailFixture(t, "latin1.eml"))
			if smtpCode(err) != 550 || !strings.Contains(err.Error(), "5.1.1") {
				t.Fatalf("RCPT %s: %v", rcpt, err)
			}
		}
		raw := []byte("From: Banco <avisos@banco.example>\r\nTo: contas@inbox.localhost, deles@inbox.localhost\r\nSubject: dois destinos\r\nMessage-ID: <two@banco.example>\r\n\r\nola\r\n")
		cl, _ := smtp.Dial(addr)
		_ = cl.Mail("avisos@banco.example")
		if err := cl.Rcpt("ghost@inbox.localhost"); smtpCode(err) != 550 {
			t.Fatalf("ghost: %v", err)
		}
		for _, rc := range []string{"CONTAS@inbox.localhost", "deles@inbox.localhost", "restrito@inbox.localhost"} {
			if err := cl.Rcpt(rc); err != nil {
				t.Fatal(err)
			}
		}
		w, _ := cl.Data()
		_, _ = w.Write(raw)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		_ = cl.Quit()
		rows := mailRowsBySum(t, db, raw)
		if len(rows) != 3 {
			t.Fatalf("%d rows for three inboxes", len(rows))
		}
		for _, r := range rows {
			switch r.InboxID {
			case theirs:
				if r.OrganizationID != e.Theirs.ID || !slices.Equal(decodeList[string](r.ToJSON), []string{"deles@inbox.localhost"}) {
					t.Fatalf("theirs: %+v", r)
				}
			case contas:
				if !slices.Equal(decodeList[string](r.ToJSON), []string{"contas@inbox.localhost", "restrito@inbox.localhost"}) {
					t.Fatalf("mine: %+v", r.ToJSON)
				}
			default:
				if r.Status == emailRejected {
					t.Fatalf("restrito allows @banco.example: %v", deref(r.RejectionReason))
				}
			}
		}

		// Screening rejects; the message is still stored, and not counted.
		used := mailUsage(t, s, e.Mine.ID, e.MineWS.ID)
		lat := mailFixture(t, "latin1.eml")
		if err := smtpSend(t, addr, "joao@escritorio.example", []string{"restrito@inbox.localhost"}, lat); err != nil {
			t.Fatal(err)
		}
		rej := mailRowsBySum(t, db, lat)
		var rejected *emailRecord
		for i := range rej {
			if rej[i].Status == emailRejected {
				rejected = &rej[i]
			}
		}
		if rejected == nil || !strings.HasPrefix(deref(rejected.RejectionReason), "sender_not_allowed: the sender joao@escritorio.example") {
			t.Fatalf("rejected: %+v", rej)
		}
		if ev := mailEvents(t, db, rejected.ID); !slices.Equal(ev, []string{"email.received", "email.rejected"}) {
			t.Fatalf("events %v", ev)
		}
		if got := mailUsage(t, s, e.Mine.ID, e.MineWS.ID); got != used {
			t.Fatalf("a rejected e-mail was counted: %d -> %d", used, got)
		}

		// Over MaxMessageBytes: 552 at the end of DATA, nothing stored.
		var big strings.Builder
		big.WriteString("From: a@b.example\r\nSubject: big\r\n\r\n")
		for big.Len() < 70<<10 {
			big.WriteString(strings.Repeat("x", 76) + "\r\n")
		}
		err = smtpSend(t, addr, "a@b.example", []string{"contas@inbox.localhost"}, []byte(big.String()))
		if smtpCode(err) != 552 {
			t.Fatalf("oversized: %v", err)
		}
		if rows := mailRowsBySum(t, db, []byte(big.String())); len(rows) != 0 {
			t.Fatal("an oversized message was stored")
		}

		// Shutdown stops the listener.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.shutdown(ctx); err != nil {
			t.Fatal(err)
		}
		if s.addr() != nil {
			t.Fatal("still listening after shutdown")
		}
		if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			conn.Close()
			t.Fatal("the port still accepts connections")
		}
	})
}

// TestIntakeSMTPOff: "off" starts nothing, and a port in use fails the
// start instead of refusing mail silently.
func TestIntakeSMTPOff(t *testing.T) {
	t.Parallel()
	s := &smtpIntake{s: &service{cfg: Config{SMTPAddr: "off"}.withDefaults()}}
	if err := s.start(context.Background()); err != nil || s.addr() != nil {
		t.Fatalf("off: %v %v", err, s.addr())
	}
	if err := s.shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	busy := &smtpIntake{s: &service{cfg: Config{SMTPAddr: l.Addr().String()}.withDefaults()}}
	if err := busy.start(context.Background()); err == nil {
		_ = busy.shutdown(context.Background())
		t.Fatal("started on a port in use")
	}
}

// countOf is how many times s is in list.
func countOf(list []string, s string) int {
	n := 0
	for _, v := range list {
		if v == s {
			n++
		}
	}
	return n
}
