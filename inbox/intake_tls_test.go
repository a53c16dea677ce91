package inbox

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"log/slog"
	"math/big"
	"net"
	"net/smtp"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/platform/webhooks"
)

// tlsPair is a self-signed certificate for inbox.localhost and 127.0.0.1,
// in PEM, with its parsed form.
type tlsPair struct {
	certPEM, keyPEM []byte
	cert            *x509.Certificate
}

func newTLSPair(t *testing.T, serial int64) tlsPair {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial),
		Subject:      pkix.Name{CommonName: "inbox.localhost"},
		DNSNames:     []string{"inbox.localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:         true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return tlsPair{
		certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyPEM:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}),
		cert:    cert,
	}
}

// write puts the pair in dir as cert.pem and key.pem, key first.
func (p tlsPair) write(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(keyFile, p.keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(certFile, p.certPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

// pool trusts the given certificates.
func pool(certs ...*x509.Certificate) *x509.CertPool {
	p := x509.NewCertPool()
	for _, c := range certs {
		p.AddCert(c)
	}
	return p
}

// logBuffer collects a service's log lines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) count(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Count(l.b.String(), s)
}

// tlsService is mailService with its log kept in logs.
func tlsService(t *testing.T, e *testEnv, cfg Config, logs *logBuffer) *mailServer {
	t.Helper()
	s := &service{db: e.DB, accounts: e.Acc, jobs: e.Jobs, cfg: cfg.withDefaults(), log: slog.New(slog.NewTextHandler(logs, nil))}
	s.hooks = webhooks.New(e.DB, e.Jobs, webhooks.Config{Product: "inbox"})
	return startMailServer(t, s)
}

// startTLS opens a session on addr, checks STARTTLS is offered, upgrades
// verifying the server against roots, and returns the client and the
// certificate the server presented.
func startTLS(t *testing.T, addr string, roots *x509.CertPool) (*smtp.Client, *x509.Certificate) {
	t.Helper()
	c, err := smtp.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Hello("client.test"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := c.Extension("STARTTLS"); !ok {
		c.Close()
		t.Fatal("STARTTLS is not offered")
	}
	if err := c.StartTLS(&tls.Config{RootCAs: roots, ServerName: "inbox.localhost"}); err != nil {
		c.Close()
		t.Fatalf("STARTTLS: %v", err)
	}
	state, ok := c.TLSConnectionState()
	if !ok || len(state.PeerCertificates) == 0 {
		c.Close()
		t.Fatal("no TLS after STARTTLS")
	}
	return c, state.PeerCertificates[0]
}

// sendOn sends one message on an open session and quits.
func sendOn(t *testing.T, c *smtp.Client, rcpt string, raw []byte) {
	t.Helper()
	defer c.Close()
	if err := c.Mail("bounces@fornecedor.example"); err != nil {
		t.Fatalf("MAIL: %v", err)
	}
	if err := c.Rcpt(rcpt); err != nil {
		t.Fatalf("RCPT: %v", err)
	}
	w, err := c.Data()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(raw); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("end of DATA: %v", err)
	}
	_ = c.Quit()
}

// stored asserts raw was stored once, exactly, for the inbox, over SMTP.
func stored(t *testing.T, db *store.DB, raw []byte, inboxID string) {
	t.Helper()
	rows := mailRowsBySum(t, db, raw)
	if len(rows) != 1 || rows[0].InboxID != inboxID || rows[0].Intake != intakeSMTP || string(mailRawOf(t, db, rows[0].ID)) != string(raw) {
		t.Fatalf("%d rows stored for the message", len(rows))
	}
}

// TestIntakeSMTPTLS: with a certificate the intake offers STARTTLS and
// stores what arrives over it; plain text still works; a rotated pair is
// served to new connections without a restart, and a broken one is
// logged once while the last good certificate stays in use.
func TestIntakeSMTPTLS(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := newTestEnv(t, db, Config{SMTPAddr: "off"})
		dir := t.TempDir()
		first := newTLSPair(t, 1001)
		certFile, keyFile := first.write(t, dir)
		logs := &logBuffer{}
		s := tlsService(t, e, Config{SMTPAddr: "127.0.0.1:0", SMTPTLSCertFile: certFile, SMTPTLSKeyFile: keyFile}, logs)
		addr := s.addr().String()
		contas := mailInbox(t, e, e.Owner, "contas@inbox.localhost", nil)

		c, leaf := startTLS(t, addr, pool(first.cert))
		if leaf.SerialNumber.Cmp(first.cert.SerialNumber) != 0 {
			t.Fatalf("served serial %v", leaf.SerialNumber)
		}
		if ok, _ := c.Extension("STARTTLS"); ok {
			t.Fatal("STARTTLS offered again inside TLS")
		}
		overTLS := dedupeMessage("contas@inbox.localhost", "tls-1@fornecedor.example", "por TLS")
		sendOn(t, c, "contas@inbox.localhost", overTLS)
		stored(t, db, overTLS, contas)

		plain := dedupeMessage("contas@inbox.localhost", "plain-1@fornecedor.example", "sem TLS")
		if err := smtpSend(t, addr, "bounces@fornecedor.example", []string{"contas@inbox.localhost"}, plain); err != nil {
			t.Fatalf("plain text refused: %v", err)
		}
		stored(t, db, plain, contas)

		// A broken certificate file: logged once, the first pair still
		// served.
		if err := os.WriteFile(certFile, []byte("-----BEGIN CERTIFICATE-----\nbroken\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		const notReloaded = "SMTP TLS certificate not reloaded"
		deadline := time.Now().Add(10 * time.Second)
		for logs.count(notReloaded) == 0 {
			if time.Now().After(deadline) {
				t.Fatal("a broken certificate file was never reported")
			}
			time.Sleep(200 * time.Millisecond)
			c, leaf := startTLS(t, addr, pool(first.cert))
			c.Close()
			if leaf.SerialNumber.Cmp(first.cert.SerialNumber) != 0 {
				t.Fatalf("served serial %v while the new file is broken", leaf.SerialNumber)
			}
		}
		time.Sleep(smtpCertCheckInterval + 200*time.Millisecond)
		c, _ = startTLS(t, addr, pool(first.cert))
		c.Close()
		if n := logs.count(notReloaded); n != 1 {
			t.Fatalf("the same broken file was reported %d times", n)
		}

		// A renewed pair: new connections get it.
		second := newTLSPair(t, 2002)
		second.write(t, dir)
		deadline = time.Now().Add(10 * time.Second)
		for {
			c, leaf := startTLS(t, addr, pool(first.cert, second.cert))
			if leaf.SerialNumber.Cmp(second.cert.SerialNumber) == 0 {
				after := dedupeMessage("contas@inbox.localhost", "tls-2@fornecedor.example", "depois da renovação")
				sendOn(t, c, "contas@inbox.localhost", after)
				stored(t, db, after, contas)
				break
			}
			c.Close()
			if time.Now().After(deadline) {
				t.Fatalf("still serving serial %v after the rotation", leaf.SerialNumber)
			}
			time.Sleep(200 * time.Millisecond)
		}
		if logs.count("SMTP TLS certificate reloaded") != 1 {
			t.Fatal("the reload was not logged")
		}
		c, leaf = startTLS(t, addr, pool(second.cert))
		c.Close()
		if leaf.SerialNumber.Cmp(second.cert.SerialNumber) != 0 {
			t.Fatalf("served serial %v after the rotation", leaf.SerialNumber)
		}
		plain2 := dedupeMessage("contas@inbox.localhost", "plain-2@fornecedor.example", "sem TLS de novo")
		if err := smtpSend(t, addr, "bounces@fornecedor.example", []string{"contas@inbox.localhost"}, plain2); err != nil {
			t.Fatalf("plain text refused after the rotation: %v", err)
		}
		stored(t, db, plain2, contas)
	})
}

// hostAddress is an IPv4 address of this host that is not loopback, for
// a peer that SMTPRequireTLS does not exempt ("" when there is none).
func hostAddress() string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return ""
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			return n.IP.String()
		}
	}
	return ""
}

// TestIntakeSMTPRequireTLS: with SMTPRequireTLS a peer that is not on
// loopback gets 530 at MAIL until STARTTLS, then delivers; a loopback
// peer delivers in plain text; without it the same peer delivers in plain
// text too.
func TestIntakeSMTPRequireTLS(t *testing.T) {
	t.Parallel()
	host := hostAddress()
	if host == "" {
		t.Skip("this host has no non-loopback IPv4 address to connect from")
	}
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := newTestEnv(t, db, Config{SMTPAddr: "off"})
		pair := newTLSPair(t, 3003)
		certFile, keyFile := pair.write(t, t.TempDir())
		cfg := func(addr string, require bool) Config {
			return Config{SMTPAddr: addr, SMTPTLSCertFile: certFile, SMTPTLSKeyFile: keyFile, SMTPRequireTLS: require}
		}
		remote := tlsService(t, e, cfg(net.JoinHostPort(host, "0"), true), &logBuffer{}).addr().String()
		local := tlsService(t, e, cfg("127.0.0.1:0", true), &logBuffer{}).addr().String()
		optional := tlsService(t, e, cfg(net.JoinHostPort(host, "0"), false), &logBuffer{}).addr().String()
		contas := mailInbox(t, e, e.Owner, "contas@inbox.localhost", nil)

		refused := dedupeMessage("contas@inbox.localhost", "req-1@fornecedor.example", "sem TLS")
		err := smtpSend(t, remote, "bounces@fornecedor.example", []string{"contas@inbox.localhost"}, refused)
		if smtpCode(err) != 530 || !strings.Contains(err.Error(), "5.7.0") {
			t.Fatalf("plain MAIL from %s: %v, want 530 5.7.0", host, err)
		}
		if rows := mailRowsBySum(t, db, refused); len(rows) != 0 {
			t.Fatal("a refused message was stored")
		}
		c, _ := startTLS(t, remote, pool(pair.cert))
		sendOn(t, c, "contas@inbox.localhost", refused)
		stored(t, db, refused, contas)

		fromLoopback := dedupeMessage("contas@inbox.localhost", "req-2@fornecedor.example", "loopback")
		if err := smtpSend(t, local, "bounces@fornecedor.example", []string{"contas@inbox.localhost"}, fromLoopback); err != nil {
			t.Fatalf("plain text from loopback: %v", err)
		}
		stored(t, db, fromLoopback, contas)

		offered := dedupeMessage("contas@inbox.localhost", "req-3@fornecedor.example", "opcional")
		if err := smtpSend(t, optional, "bounces@fornecedor.example", []string{"contas@inbox.localhost"}, offered); err != nil {
			t.Fatalf("plain text from %s with TLS offered, not required: %v", host, err)
		}
		stored(t, db, offered, contas)
	})
}

// TestIntakeSMTPTLSConfig: a TLS configuration that cannot work fails the
// start, and leaves nothing listening.
func TestIntakeSMTPTLSConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := newTLSPair(t, 1)
	certFile, keyFile := good.write(t, dir)
	other := newTLSPair(t, 2)
	otherKey := filepath.Join(dir, "other-key.pem")
	if err := os.WriteFile(otherKey, other.keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := map[string]Config{
		"certificate without key":    {SMTPTLSCertFile: certFile},
		"key without certificate":    {SMTPTLSKeyFile: keyFile},
		"required without a pair":    {SMTPRequireTLS: true},
		"missing certificate file":   {SMTPTLSCertFile: filepath.Join(dir, "nope.pem"), SMTPTLSKeyFile: keyFile},
		"key of another certificate": {SMTPTLSCertFile: certFile, SMTPTLSKeyFile: otherKey},
	}
	for name, cfg := range cases {
		cfg.SMTPAddr = "127.0.0.1:0"
		s := &smtpIntake{s: &service{cfg: cfg.withDefaults()}}
		if err := s.start(context.Background()); err == nil {
			_ = s.shutdown(context.Background())
			t.Fatalf("%s: started", name)
		}
		if s.addr() != nil {
			t.Fatalf("%s: listening after a failed start", name)
		}
	}
	s := &smtpIntake{s: &service{cfg: Config{SMTPAddr: "127.0.0.1:0", SMTPTLSCertFile: certFile, SMTPTLSKeyFile: keyFile, SMTPRequireTLS: true}.withDefaults()}}
	if err := s.start(context.Background()); err != nil {
		t.Fatalf("a valid pair: %v", err)
	}
	_ = s.shutdown(context.Background())
}

// TestIntakeTLSPeerOnLoopback: which peers SMTPRequireTLS exempts.
func TestIntakeTLSPeerOnLoopback(t *testing.T) {
	t.Parallel()
	for addr, want := range map[net.Addr]bool{
		&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}:  true,
		&net.TCPAddr{IP: net.IPv4(127, 8, 9, 10), Port: 1}: true,
		&net.TCPAddr{IP: net.IPv6loopback, Port: 1}:        true,
		&net.TCPAddr{IP: net.ParseIP("::ffff:127.0.0.1")}:  true,
		&net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 1}:   false,
		&net.TCPAddr{IP: net.IPv4(192, 0, 2, 2), Port: 1}:  false,
		&net.TCPAddr{IP: net.ParseIP("fe80::1"), Port: 1}:  false,
		&net.TCPAddr{IP: net.IPv4zero, Port: 1}:            false,
		&net.UnixAddr{Name: "/tmp/x", Net: "unix"}:         false,
	} {
		if got := peerOnLoopback(addr); got != want {
			t.Errorf("%v: %v, want %v", addr, got, want)
		}
	}
	if peerOnLoopback(nil) {
		t.Error("nil: loopback")
	}
}
