package inbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/emersion/go-smtp"
	"golang.org/x/net/netutil"

	"github.com/kobana/kobana-mcp/platform/httpx"
	"github.com/kobana/kobana-mcp/platform/store"
)

// The SMTP intake is an MX-style receiver: it accepts mail for the
// Inbox's addresses from anyone, without AUTH, the way a domain's MX does.
// It is meant to sit behind the company's mail relay (which does TLS,
// SPF/DKIM/DMARC and spam filtering, and relays to it on a private
// network) or to be exposed as the MX of the mail domain itself. With a
// certificate configured it offers STARTTLS (intake_tls.go), and can be
// told to require it from peers that are not on loopback; without one it
// speaks plain SMTP only.
//
// Recipients are checked at RCPT: an address that is not a live, active
// inbox is refused there (550 5.1.1), so mail for nobody never reaches
// DATA. The message is read whole (at most MaxMessageBytes, advertised by
// SIZE; more is 552) and handed to receive. The stored raw message is the
// DATA exactly as the client sent it (dot-stuffing undone): no Received:
// trace header is added, so the download is byte for byte what arrived and
// its sha256 matches the sender's copy. A message a relay delivers again
// (same Message-ID, same bytes, same inbox: its retry after a timeout) is
// answered 250 and kept once (intake_dedupe.go).

// SMTP limits beyond the configured message size.
const (
	smtpMaxRecipients = 50
	smtpReadTimeout   = 2 * time.Minute
	smtpWriteTimeout  = time.Minute
	// smtpDataTimeout bounds storing one message once it has arrived.
	smtpDataTimeout = time.Minute
	// smtpMaxConnections bounds the sessions open at once: a sender that
	// opens connections and holds them (each may wait up to the read
	// timeout) cannot take the process's memory or file descriptors; more
	// connections wait in the kernel's backlog until one closes.
	smtpMaxConnections = 200
)

// smtpIntake is the SMTP intake of one service, started and stopped with
// the product's listener (spec.go, productkit.Builder.Lifecycle): the
// service stores what it receives, the intake only holds the listener.
type smtpIntake struct {
	s *service
	// mu guards running, the listener between start and shutdown (nil
	// when stopped).
	mu      sync.Mutex
	running *smtpListener
}

// smtpListener is a running SMTP listener.
type smtpListener struct {
	server   *smtp.Server
	listener net.Listener
	done     chan struct{}
}

// start starts the SMTP intake on cfg.SMTPAddr (Product.Start); "off"
// disables it. An address that cannot be bound, or a TLS configuration
// that cannot work, fails the start: mail would otherwise be refused (or
// sent in plain text) silently.
func (si *smtpIntake) start(ctx context.Context) error {
	s := si.s
	if s.cfg.SMTPAddr == "off" || s.cfg.SMTPAddr == "" {
		return nil
	}
	si.mu.Lock()
	defer si.mu.Unlock()
	if si.running != nil {
		return errors.New("inbox: the SMTP intake is already running")
	}
	tlsConfig, err := smtpTLS(s.cfg, s.logger())
	if err != nil {
		return err
	}
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "tcp", s.cfg.SMTPAddr)
	if err != nil {
		return fmt.Errorf("inbox: SMTP intake: %w%s", err, httpx.BindHint(err, s.cfg.SMTPAddr, "inbox-smtp-addr"))
	}
	l = netutil.LimitListener(l, smtpMaxConnections)
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		// go-smtp makes a new session after STARTTLS, so what the
		// connection is at its start is what it stays.
		_, onTLS := c.TLSConnectionState()
		return &smtpSession{s: s, onTLS: onTLS, loopback: peerOnLoopback(c.Conn().RemoteAddr())}, nil
	}))
	srv.TLSConfig = tlsConfig // nil: STARTTLS is not offered
	srv.Domain = s.cfg.MailDomain
	srv.MaxMessageBytes = s.cfg.MaxMessageBytes
	srv.MaxRecipients = smtpMaxRecipients
	srv.ReadTimeout = smtpReadTimeout
	srv.WriteTimeout = smtpWriteTimeout
	srv.ErrorLog = smtpLogger{s.logger()}
	in := &smtpListener{server: srv, listener: l, done: make(chan struct{})}
	si.running = in
	go func() {
		defer close(in.done)
		if err := srv.Serve(l); err != nil && !errors.Is(err, smtp.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
			s.logger().Error("inbox: SMTP intake stopped", "error", err)
		}
	}()
	s.logger().Info("inbox: SMTP intake listening", "addr", l.Addr().String(), "domain", s.cfg.MailDomain,
		"starttls", tlsConfig != nil, "require_tls", s.cfg.SMTPRequireTLS)
	return nil
}

// shutdown stops the SMTP intake (Product.Shutdown): no new connections,
// sessions finish the message they are on, until ctx ends; then the rest
// are closed.
func (si *smtpIntake) shutdown(ctx context.Context) error {
	si.mu.Lock()
	in := si.running
	si.running = nil
	si.mu.Unlock()
	if in == nil {
		return nil
	}
	err := in.server.Shutdown(ctx)
	if err != nil {
		_ = in.server.Close()
	}
	// go-smtp closes only the listeners Serve has registered: a shutdown
	// right after start, before Serve's goroutine ran, would leave Serve
	// accepting for ever. Closed here too, Serve's Accept fails and it
	// returns.
	_ = in.listener.Close()
	<-in.done
	if errors.Is(err, smtp.ErrServerClosed) {
		err = nil
	}
	return err
}

// addr is where the SMTP intake listens (nil when it is not running):
// with a ":0" address, the port the system picked.
func (si *smtpIntake) addr() net.Addr {
	si.mu.Lock()
	defer si.mu.Unlock()
	if si.running == nil {
		return nil
	}
	return si.running.listener.Addr()
}

// smtpSession is one SMTP transaction's state: the envelope, and what
// the connection is (TLS, a loopback peer) for Config.SMTPRequireTLS.
type smtpSession struct {
	s        *service
	onTLS    bool
	loopback bool
	from     string
	rcpts    []string
}

// Mail implements smtp.Session: any sender, the null sender included
// (bounces are mail too) — over TLS first when Config.SMTPRequireTLS
// asks for it and the peer is not on loopback.
func (ss *smtpSession) Mail(from string, _ *smtp.MailOptions) error {
	if ss.s.cfg.SMTPRequireTLS && !ss.onTLS && !ss.loopback {
		return errNeedsTLS
	}
	ss.from, ss.rcpts = from, nil
	return nil
}

// errNeedsTLS answers MAIL from a peer that must use STARTTLS first
// (Config.SMTPRequireTLS; docs/decisions.md, "The Autonomous Inbox").
var errNeedsTLS = &smtp.SMTPError{Code: 530, EnhancedCode: smtp.EnhancedCode{5, 7, 0}, Message: "Must issue a STARTTLS command first"}

// errNoSuchMailbox refuses a recipient that is not a live, active inbox.
var errNoSuchMailbox = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "No such mailbox here"}

// errTryLater is a local failure: the client keeps the message and retries.
var errTryLater = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "Temporary local problem, try again later"}

// errOrganizationRate refuses a recipient whose organization is over its
// write limit for now: a temporary refusal (the sending server keeps the
// message and retries: RFC 5321 section 4.2.1's 4yz replies, RFC 3463's
// X.2.1), like the 429 the HTTP intake answers.
var errOrganizationRate = &smtp.SMTPError{Code: 450, EnhancedCode: smtp.EnhancedCode{4, 2, 1},
	Message: "This mailbox is receiving mail at a rate that prevents more now; try again later"}

// Rcpt implements smtp.Session: only live, active inboxes receive, each
// recipient counted as one write of its organization (the product's rate
// limits, the same allowance its API calls and HTTP intake use): one
// organization's flood of mail waits its turn instead of taking the intake
// from the others (docs/decisions.md, "The built-in extractor runs at
// intake": "SMTP under the organization's rate").
func (ss *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	addr := normalizeAddress(to)
	if addr == "" {
		return errNoSuchMailbox
	}
	ctx, cancel := context.WithTimeout(context.Background(), smtpDataTimeout)
	defer cancel()
	ib, err := inboxByAddress(ctx, ss.s.db, addr)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return errNoSuchMailbox
	case err != nil:
		ss.s.logger().Error("inbox: SMTP recipient check failed", "error", err)
		return errTryLater
	case ib.Status != "active":
		return errNoSuchMailbox
	}
	if ss.s.limits != nil && !ss.s.limits.ChargeOrganization(ctx, ib.OrganizationID, true).Allowed {
		return errOrganizationRate
	}
	ss.rcpts = append(ss.rcpts, addr)
	return nil
}

// Data implements smtp.Session: read the whole message, then receive it.
func (ss *smtpSession) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err // smtp.ErrDataTooLarge answers 552
	}
	ctx, cancel := context.WithTimeout(context.Background(), smtpDataTimeout)
	defer cancel()
	ctx, span := ss.s.startIntake(ctx, len(ss.rcpts))
	got, err := ss.s.receive(ctx, raw, ss.from, ss.rcpts, intakeSMTP)
	endIntake(span, got, err)
	switch {
	case errors.Is(err, errNoRecipient):
		return errNoSuchMailbox
	case err != nil:
		ss.s.logger().Error("inbox: SMTP message not stored", "error", err)
		return errTryLater
	}
	return nil
}

// Reset implements smtp.Session.
func (ss *smtpSession) Reset() { ss.from, ss.rcpts = "", nil }

// Logout implements smtp.Session.
func (ss *smtpSession) Logout() error { return nil }

// smtpLogger sends go-smtp's own messages to the service's log.
type smtpLogger struct{ log *slog.Logger }

func (l smtpLogger) Printf(format string, v ...any) { l.log.Warn("smtp: " + fmt.Sprintf(format, v...)) }
func (l smtpLogger) Println(v ...any)               { l.log.Warn("smtp: " + fmt.Sprint(v...)) }
