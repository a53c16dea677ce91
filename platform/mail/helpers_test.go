package mail

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// A relay in the test process: go-smtp's server with a backend that
// records what it is given and refuses what the test says.

type received struct {
	from  string
	rcpts []string
	data  []byte
	tls   bool
	user  string
}

type backend struct {
	// users are the accepted AUTH PLAIN credentials; nil offers no AUTH.
	users map[string]string
	// rcptErr and dataErr answer RCPT TO for an address, and the end of
	// the message when its Subject header contains the key.
	rcptErr map[string]*smtp.SMTPError
	mailErr *smtp.SMTPError
	dataErr *smtp.SMTPError
	// hold, when set, keeps the relay silent after it has read the whole
	// message, until it is closed.
	hold chan struct{}

	mu        sync.Mutex
	msgs      []received
	authTries []string
	sessions  int
	// ended receives a value each time a session ends (the client quit
	// or the connection closed).
	ended chan struct{}
}

func (b *backend) messages() []received {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]received(nil), b.msgs...)
}

func (b *backend) counts() (sessions, authTries int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sessions, len(b.authTries)
}

func (b *backend) NewSession(c *smtp.Conn) (smtp.Session, error) {
	_, isTLS := c.TLSConnectionState()
	b.mu.Lock()
	b.sessions++
	b.mu.Unlock()
	s := &session{b: b, cur: received{tls: isTLS}}
	if b.users == nil {
		return s, nil
	}
	return &authSession{s}, nil
}

type session struct {
	b      *backend
	cur    received
	authed bool
}

func (s *session) Reset() { s.cur = received{tls: s.cur.tls, user: s.cur.user} }
func (s *session) Logout() error {
	if s.b.ended != nil {
		s.b.ended <- struct{}{}
	}
	return nil
}

func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	if s.b.users != nil && !s.authed {
		return &smtp.SMTPError{Code: 530, EnhancedCode: smtp.EnhancedCode{5, 7, 0}, Message: "Authentication required"}
	}
	if s.b.mailErr != nil {
		return s.b.mailErr
	}
	s.cur.from = from
	return nil
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if err, ok := s.b.rcptErr[to]; ok {
		return err
	}
	s.cur.rcpts = append(s.cur.rcpts, to)
	return nil
}

func (s *session) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if s.b.dataErr != nil {
		return s.b.dataErr
	}
	s.cur.data = data
	s.b.mu.Lock()
	s.b.msgs = append(s.b.msgs, s.cur)
	s.b.mu.Unlock()
	if s.b.hold != nil {
		<-s.b.hold
	}
	return nil
}

type authSession struct{ *session }

func (s *authSession) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *authSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, username, password string) error {
		s.b.mu.Lock()
		s.b.authTries = append(s.b.authTries, username)
		s.b.mu.Unlock()
		if want, ok := s.b.users[username]; !ok || want != password {
			return &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "Authentication credentials invalid"}
		}
		s.authed = true
		s.cur.user = username
		return nil
	}), nil
}

// relay is a running test server.
type relay struct {
	host string
	port int
}

type relayOptions struct {
	// tls offers STARTTLS with this certificate.
	tls *tls.Config
	// implicit speaks TLS from the first byte (with tls).
	implicit bool
	// insecureAuth offers AUTH without TLS.
	insecureAuth bool
	host         string
}

func startRelay(t *testing.T, b *backend, o relayOptions) relay {
	t.Helper()
	s := smtp.NewServer(b)
	s.Domain = "relay.test"
	s.ReadTimeout = 10 * time.Second
	s.WriteTimeout = 10 * time.Second
	s.AllowInsecureAuth = o.insecureAuth
	if o.host == "" {
		o.host = "127.0.0.1"
	}
	l, err := net.Listen("tcp", net.JoinHostPort(o.host, "0"))
	if err != nil {
		t.Fatal(err)
	}
	if o.implicit {
		l = tls.NewListener(l, o.tls)
	} else {
		s.TLSConfig = o.tls
	}
	go func() { _ = s.Serve(l) }()
	t.Cleanup(func() {
		if b.hold != nil {
			select {
			case <-b.hold:
			default:
				close(b.hold)
			}
		}
		_ = s.Close()
	})
	return relay{host: o.host, port: l.Addr().(*net.TCPAddr).Port}
}

// silentRelay accepts connections and never says a word: a relay that
// hangs before its greeting.
func silentRelay(t *testing.T) relay {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go func() { _, _ = io.Copy(io.Discard, c) }()
		}
	}()
	t.Cleanup(func() {
		_ = l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return relay{host: "127.0.0.1", port: l.Addr().(*net.TCPAddr).Port}
}

// selfSigned makes a certificate for localhost and 127.0.0.1 and a pool
// that trusts it.
func selfSigned(t *testing.T) (*tls.Config, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "relay.test"},
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}}}, pool
}

func newTestClient(t *testing.T, r relay, change func(*Config)) *Client {
	t.Helper()
	cfg := Config{
		Host: r.host, Port: r.port, TLS: TLSNone,
		From:    "Kobana Cobranças <cobranca@kobana.example>",
		HELO:    "sender.test",
		Timeout: 5 * time.Second, SendTimeout: 20 * time.Second,
	}
	if change != nil {
		change(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
