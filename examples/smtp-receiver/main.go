// Command smtp-receiver is a development SMTP server that accepts every
// message on loopback and prints it — envelope, main headers and the text
// body, decoded — so the e-mail Dunning sends can be read without a mail
// account (docs/dunning.md "Dunning in five minutes").
//
//	go run ./examples/smtp-receiver -addr 127.0.0.1:2526
//
// Point Dunning at it with `serve --dunning-smtp-host 127.0.0.1
// --dunning-smtp-port 2526 --dunning-smtp-tls none --dunning-smtp-from …`
// (TLS none is accepted for loopback relays only). It stores nothing and
// offers no TLS or authentication: it is for a developer's machine, never
// a mail server.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"mime"
	"strings"
	"sync"

	"github.com/emersion/go-message"
	_ "github.com/emersion/go-message/charset" // bodies in any charset
	"github.com/emersion/go-message/mail"
	"github.com/emersion/go-smtp"
)

// maxMessageBytes bounds one message.
const maxMessageBytes = 10 << 20

func main() {
	addr := flag.String("addr", "127.0.0.1:2526", "listen address (loopback)")
	flag.Parse()
	s := smtp.NewServer(&backend{})
	s.Addr = *addr
	s.Domain = "localhost"
	s.MaxMessageBytes = maxMessageBytes
	log.Printf("SMTP receiver on smtp://%s/", *addr)
	log.Fatal(s.ListenAndServe())
}

// backend numbers the messages it prints.
type backend struct {
	mu sync.Mutex
	n  int
}

func (b *backend) NewSession(*smtp.Conn) (smtp.Session, error) { return &session{b: b}, nil }

// session is one SMTP transaction at a time: its envelope and message.
type session struct {
	b    *backend
	from string
	to   []string
}

func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	s.from = from
	return nil
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.to = append(s.to, to)
	return nil
}

func (s *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(io.LimitReader(r, maxMessageBytes+1))
	if err != nil {
		return err
	}
	if len(raw) > maxMessageBytes {
		return &smtp.SMTPError{Code: 552, EnhancedCode: smtp.EnhancedCode{5, 3, 4}, Message: "message too big"}
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.b.n++
	fmt.Printf("message %d: MAIL FROM:<%s> RCPT TO:<%s> (%d bytes)\n%s\n", s.b.n, s.from, strings.Join(s.to, ">, <"), len(raw), describe(raw))
	return nil
}

func (s *session) Reset() { s.from, s.to = "", nil }

func (s *session) Logout() error { return nil }

// describe is the message's main header fields, decoded, and its text
// body (the text/plain part of a multipart message).
func describe(raw []byte) string {
	r, err := mail.CreateReader(bytes.NewReader(raw))
	if err != nil && !message.IsUnknownCharset(err) {
		return fmt.Sprintf("(not a readable message: %v)\n%s", err, raw)
	}
	var out strings.Builder
	dec := new(mime.WordDecoder)
	for _, k := range []string{"From", "To", "Subject", "Date", "Message-Id", "List-Unsubscribe"} {
		v := r.Header.Get(k)
		if v == "" {
			continue
		}
		if d, err := dec.DecodeHeader(v); err == nil {
			v = d
		}
		fmt.Fprintf(&out, "%s: %s\n", k, v)
	}
	out.WriteString("\n")
	text := ""
	for {
		p, err := r.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !message.IsUnknownCharset(err) {
			fmt.Fprintf(&out, "(unreadable part: %v)\n", err)
			break
		}
		if h, ok := p.Header.(*mail.InlineHeader); ok {
			if t, _, _ := h.ContentType(); t == "text/plain" || t == "" {
				b, _ := io.ReadAll(io.LimitReader(p.Body, maxMessageBytes))
				text = string(b)
				break
			}
		}
	}
	out.WriteString(strings.TrimRight(text, "\r\n"))
	out.WriteString("\n")
	return out.String()
}
