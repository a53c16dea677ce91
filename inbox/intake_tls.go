package inbox

import (
	"bytes"
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// STARTTLS on the SMTP intake (docs/decisions.md, "The Autonomous Inbox").
// With a certificate configured (Config.SMTPTLSCertFile and
// SMTPTLSKeyFile) the intake advertises STARTTLS. It is offered, not
// required: relays on loopback or on a private network, and senders that
// cannot encrypt, keep delivering in plain text, as they would to any MX —
// unless Config.SMTPRequireTLS says otherwise, and then only loopback
// peers may skip it.
//
// Certificates are renewed while the process runs (ACME clients rewrite
// the files every few weeks), so the intake reads the pair again when its
// contents change: at most once per smtpCertCheckInterval, on a
// handshake, so an idle intake reads nothing. A pair that does not load
// (a half-written renewal, a key that does not match) is logged and the
// last good certificate stays in use; a start with a pair that does not
// load fails, like an address that cannot be bound.

// smtpCertCheckInterval is how often, at most, a handshake looks at the
// certificate files again.
const smtpCertCheckInterval = 2 * time.Second

// certReloader serves the intake's certificate from its PEM files,
// reloading them when their contents change. Handshakes read the current
// certificate without waiting; one of them at a time looks at the files.
type certReloader struct {
	certFile, keyFile string
	interval          time.Duration
	log               *slog.Logger

	cert atomic.Pointer[tls.Certificate]

	// mu is held by the handshake that checks the files; the others go on
	// with the current certificate meanwhile.
	mu      sync.Mutex
	checked time.Time // when the files were last read
	seen    [sha256.Size]byte
	lastErr string // the last failure logged, so it is logged once
}

// newCertReloader loads the pair, failing when it does not load.
func newCertReloader(certFile, keyFile string, log *slog.Logger) (*certReloader, error) {
	r := &certReloader{certFile: certFile, keyFile: keyFile, interval: smtpCertCheckInterval, log: log}
	certPEM, keyPEM, err := r.read()
	if err != nil {
		return nil, err
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("inbox: SMTP TLS certificate %s with key %s: %w", certFile, keyFile, err)
	}
	r.seen = pairSum(certPEM, keyPEM)
	r.checked = time.Now()
	r.cert.Store(&pair)
	r.logLoaded(&pair, "inbox: SMTP TLS certificate loaded")
	return r, nil
}

// tlsConfig is the intake's server TLS configuration. TLS 1.2 is the
// oldest version offered: MTAs that only speak older ones fall back to
// plain text, which the intake still accepts unless TLS is required.
func (r *certReloader) tlsConfig() *tls.Config {
	return &tls.Config{
		MinVersion:     tls.VersionTLS12,
		GetCertificate: r.getCertificate,
	}
}

// getCertificate is tls.Config.GetCertificate: the current certificate,
// after a look at the files when the last one is old enough.
func (r *certReloader) getCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	r.maybeReload()
	return r.cert.Load(), nil
}

// maybeReload reads the files when no other handshake is doing it and
// the interval has passed since the last read.
func (r *certReloader) maybeReload() {
	if !r.mu.TryLock() {
		return
	}
	defer r.mu.Unlock()
	now := time.Now()
	if now.Sub(r.checked) < r.interval {
		return
	}
	r.checked = now
	certPEM, keyPEM, err := r.read()
	if err != nil {
		r.fail(err)
		return
	}
	// Contents, not modification times, say whether the pair changed: a
	// renewal rewritten within the file system's timestamp resolution,
	// with the same size (renewed certificates usually have it), or
	// swapped in through a symbolic link is still seen.
	sum := pairSum(certPEM, keyPEM)
	if sum == r.seen {
		r.lastErr = ""
		return
	}
	r.seen = sum
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		r.fail(fmt.Errorf("inbox: SMTP TLS certificate %s with key %s: %w", r.certFile, r.keyFile, err))
		return
	}
	r.lastErr = ""
	r.cert.Store(&pair)
	r.logLoaded(&pair, "inbox: SMTP TLS certificate reloaded")
}

// read reads both files.
func (r *certReloader) read() (certPEM, keyPEM []byte, err error) {
	if certPEM, err = os.ReadFile(r.certFile); err != nil {
		return nil, nil, fmt.Errorf("inbox: SMTP TLS certificate: %w", err)
	}
	if keyPEM, err = os.ReadFile(r.keyFile); err != nil {
		return nil, nil, fmt.Errorf("inbox: SMTP TLS key: %w", err)
	}
	return certPEM, keyPEM, nil
}

// fail logs a pair that could not be read or loaded, once until it
// changes, and keeps the current certificate.
func (r *certReloader) fail(err error) {
	if err.Error() == r.lastErr {
		return
	}
	r.lastErr = err.Error()
	cur := r.cert.Load()
	attrs := []any{"error", err}
	if cur != nil && cur.Leaf != nil {
		attrs = append(attrs, "serving_serial", cur.Leaf.SerialNumber.String(), "serving_not_after", cur.Leaf.NotAfter)
	}
	r.log.Error("inbox: SMTP TLS certificate not reloaded, the last good one stays in use", attrs...)
}

func (r *certReloader) logLoaded(pair *tls.Certificate, msg string) {
	if pair.Leaf == nil {
		r.log.Info(msg, "file", r.certFile)
		return
	}
	r.log.Info(msg, "file", r.certFile, "subject", pair.Leaf.Subject.String(),
		"serial", pair.Leaf.SerialNumber.String(), "not_after", pair.Leaf.NotAfter)
}

// pairSum identifies a pair's contents.
func pairSum(certPEM, keyPEM []byte) [sha256.Size]byte {
	return sha256.Sum256(bytes.Join([][]byte{certPEM, keyPEM}, []byte{0}))
}

// smtpTLS is the intake's TLS configuration from cfg: nil when no
// certificate is configured, an error when the configuration is
// incomplete or the pair does not load.
func smtpTLS(cfg Config, log *slog.Logger) (*tls.Config, error) {
	switch {
	case cfg.SMTPTLSCertFile == "" && cfg.SMTPTLSKeyFile == "":
		if cfg.SMTPRequireTLS {
			return nil, errors.New("inbox: SMTP intake: requiring TLS needs a certificate and key file")
		}
		return nil, nil
	case cfg.SMTPTLSCertFile == "" || cfg.SMTPTLSKeyFile == "":
		return nil, errors.New("inbox: SMTP intake: TLS needs both a certificate file and a key file")
	}
	r, err := newCertReloader(cfg.SMTPTLSCertFile, cfg.SMTPTLSKeyFile, log)
	if err != nil {
		return nil, err
	}
	return r.tlsConfig(), nil
}

// peerOnLoopback reports whether a connection's remote address is a
// loopback address (127.0.0.0/8, ::1): a process on the same host, which
// Config.SMTPRequireTLS lets deliver in plain text (a local relay, a
// health check). Anything else, an unknown address type included, is not.
func peerOnLoopback(a net.Addr) bool {
	switch v := a.(type) {
	case *net.TCPAddr:
		return v.IP.IsLoopback()
	case nil:
		return false
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
