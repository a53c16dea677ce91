package ledger

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/kobana/kobana-mcp/productkit"
)

// PixWebhookConfig is the mutual-TLS listener's configuration.
type PixWebhookConfig struct {
	// Addr is where it listens ("" : no listener).
	Addr string
	// TLS carries the server's certificate and the client CAs; the
	// listener requires and verifies a client certificate whatever
	// ClientAuth says.
	TLS *tls.Config
	// PublicURL is its origin as PSPs reach it ("" : https:// and the
	// bound address).
	PublicURL string
}

// settings declares the --dunning-pix-mtls-* settings, filling c once
// they are parsed and checked.
func (c *PixWebhookConfig) settings(s *productkit.Settings) func() error {
	addr := s.Add("dunning-pix-mtls-addr", "KOBANA_DUNNING_PIX_MTLS_ADDR", "", "listen address of the Pix webhook's mutual-TLS listener, which PSPs reach with their client certificate as the BCB API Pix expects (docs/dunning.md \"Pix received\"); empty: none, PSPs use the secret URL")
	cert := s.Add("dunning-pix-mtls-cert", "KOBANA_DUNNING_PIX_MTLS_CERT", "", "PEM file of that listener's server certificate chain")
	key := s.Add("dunning-pix-mtls-key", "KOBANA_DUNNING_PIX_MTLS_KEY", "", "PEM file of that listener's private key")
	clientCA := s.Add("dunning-pix-mtls-client-ca", "KOBANA_DUNNING_PIX_MTLS_CLIENT_CA", "", "PEM bundle of the CAs whose client certificates that listener accepts (the PSPs')")
	public := s.Add("dunning-pix-mtls-public-url", "KOBANA_DUNNING_PIX_MTLS_PUBLIC_URL", "", "https origin of that listener as PSPs reach it (default https:// and its address)")
	return func() error {
		c.Addr, c.TLS, c.PublicURL = "", nil, ""
		if *addr == "" {
			if *cert != "" || *key != "" || *clientCA != "" || *public != "" {
				return errors.New("--dunning-pix-mtls-cert, -key, -client-ca and -public-url need --dunning-pix-mtls-addr")
			}
			return nil
		}
		if *cert == "" || *key == "" || *clientCA == "" {
			return errors.New("--dunning-pix-mtls-addr needs --dunning-pix-mtls-cert, --dunning-pix-mtls-key and --dunning-pix-mtls-client-ca")
		}
		pair, err := tls.LoadX509KeyPair(*cert, *key)
		if err != nil {
			return fmt.Errorf("--dunning-pix-mtls-cert/-key: %w", err)
		}
		pem, err := os.ReadFile(*clientCA)
		if err != nil {
			return fmt.Errorf("--dunning-pix-mtls-client-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return fmt.Errorf("--dunning-pix-mtls-client-ca: no PEM certificate in %s", *clientCA)
		}
		if *public != "" && !strings.HasPrefix(*public, "https://") {
			return errors.New("--dunning-pix-mtls-public-url must be an https URL")
		}
		c.Addr, c.PublicURL = *addr, strings.TrimRight(*public, "/")
		c.TLS = &tls.Config{Certificates: []tls.Certificate{pair}, ClientCAs: pool}
		return nil
	}
}

// pixMTLSListener is the running listener.
type pixMTLSListener struct {
	cfg PixWebhookConfig
	srv *http.Server
	ln  net.Listener
	// url is its public origin once bound.
	url string
}
