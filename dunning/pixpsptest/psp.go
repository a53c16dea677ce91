// Package pixpsptest is the PSP side of the BCB API Pix webhook, for
// tests: it POSTs webhook calls to {webhookUrl}/pix with the body the API
// Pix specifies ({"pix":[{"endToEndId","txid","valor","horario",
// "infoPagador"}]}; the BCB's API Pix manual under Resolução BCB nº
// 1/2020), over mutual TLS with a client certificate or to a URL carrying
// a secret, and retries a call answered with anything but 2xx, as a PSP
// does. It also makes the certificates of a test PKI (a CA, a server
// certificate for loopback, client certificates), so the mutual-TLS
// listener is tested with real certificates. It is a local server's
// counterpart at a true external boundary, never a mock of Dunning.
package pixpsptest

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Pix is one Pix received, as the API Pix's webhook carries it. Valor is
// the decimal string the API uses ("123.45").
type Pix struct {
	EndToEndID  string `json:"endToEndId"`
	TxID        string `json:"txid,omitempty"`
	Valor       string `json:"valor"`
	Horario     string `json:"horario"`
	InfoPagador string `json:"infoPagador,omitempty"`
}

// Body is a webhook call's body.
func Body(pix ...Pix) []byte {
	b, err := json.Marshal(map[string][]Pix{"pix": pix})
	if err != nil {
		panic(err) // strings always marshal
	}
	return b
}

// EndToEndID is an SPI end-to-end id: "E", the payer institution's ISPB,
// the minute at, and 11 letters or digits made from seq.
func EndToEndID(ispb string, at time.Time, seq int) string {
	return fmt.Sprintf("E%s%s%011d", ispb, at.UTC().Format("200601021504"), seq)
}

// PSP sends webhook calls to one registered URL.
type PSP struct {
	// URL is the webhook URL as the receiver gave it; the PSP appends
	// "/pix".
	URL string
	// Client sends the calls (with a client certificate for mutual TLS);
	// nil: http.DefaultClient.
	Client *http.Client
	// Attempts is how many times a call is tried in all (0: once).
	Attempts int
	// Backoff is the wait between attempts.
	Backoff time.Duration
}

// Result is the last answer to a call, and how many attempts it took.
type Result struct {
	Status   int
	Body     string
	Attempts int
}

// Notify sends the Pix in one call, retrying as a PSP does.
func (p *PSP) Notify(ctx context.Context, pix ...Pix) (Result, error) {
	return p.Send(ctx, Body(pix...))
}

// Send posts body to URL + "/pix", retrying a transport error or an
// answer other than 2xx until Attempts are spent; the error is the last
// transport error, if the last attempt had one.
func (p *PSP) Send(ctx context.Context, body []byte) (Result, error) {
	client := p.Client
	if client == nil {
		client = http.DefaultClient
	}
	var r Result
	var err error
	for r.Attempts < max(p.Attempts, 1) {
		if r.Attempts > 0 {
			select {
			case <-ctx.Done():
				return r, ctx.Err()
			case <-time.After(p.Backoff):
			}
		}
		r.Attempts++
		r.Status, r.Body, err = post(ctx, client, strings.TrimRight(p.URL, "/")+"/pix", body)
		if err == nil && r.Status/100 == 2 {
			return r, nil
		}
	}
	return r, err
}

func post(ctx context.Context, client *http.Client, url string, body []byte) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	text, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(text), err
}

// PKI is a test certificate authority.
type PKI struct {
	CA    *x509.Certificate
	key   *ecdsa.PrivateKey
	CAPEM []byte
}

// NewPKI makes a CA named name.
func NewPKI(name string) (*PKI, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &PKI{CA: ca, key: key, CAPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// Pool is a pool holding only the CA.
func (p *PKI) Pool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(p.CA)
	return pool
}

// ServerCert is a server certificate for 127.0.0.1 and localhost.
func (p *PKI) ServerCert() (tls.Certificate, error) {
	return p.issue(&x509.Certificate{Subject: pkix.Name{CommonName: "localhost"}, DNSNames: []string{"localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
}

// ClientCert is a client certificate named cn (a PSP).
func (p *PKI) ClientCert(cn string) (tls.Certificate, error) {
	return p.issue(&x509.Certificate{Subject: pkix.Name{CommonName: cn}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
}

// CertPEM and KeyPEM are c's chain and key in PEM, for settings read
// from files.
func CertPEM(c tls.Certificate) []byte {
	var out []byte
	for _, der := range c.Certificate {
		out = append(out, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})...)
	}
	return out
}

// KeyPEM is c's private key in PKCS #8 PEM.
func KeyPEM(c tls.Certificate) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(c.PrivateKey)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

func (p *PKI) issue(tmpl *x509.Certificate) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl.SerialNumber = serial()
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.CA, &key.PublicKey, p.key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

// Client is an HTTP client trusting the CA roots and presenting cert
// (none when cert is nil).
func Client(roots *x509.CertPool, cert *tls.Certificate) *http.Client {
	cfg := &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	if cert != nil {
		cfg.Certificates = []tls.Certificate{*cert}
	}
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg}}
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		panic(err)
	}
	return n
}

// TestPKI is a test's CA named name, a server certificate of it and a
// client certificate for psp.example; t fails on any error.
func TestPKI(t testing.TB, name string) (pki *PKI, server, client tls.Certificate) {
	t.Helper()
	pki, err := NewPKI(name)
	if err == nil {
		server, err = pki.ServerCert()
	}
	if err == nil {
		client, err = pki.ClientCert("psp.example")
	}
	if err != nil {
		t.Fatal(err)
	}
	return pki, server, client
}

// WriteFiles writes server's certificate chain and key and the CA as PEM
// files in dir, as the --dunning-pix-mtls-* settings read them: their
// paths.
func (p *PKI) WriteFiles(t testing.TB, dir string, server tls.Certificate) (cert, key, ca string) {
	t.Helper()
	keyPEM, err := KeyPEM(server)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	return write("cert.pem", CertPEM(server)), write("key.pem", keyPEM), write("ca.pem", p.CAPEM)
}
