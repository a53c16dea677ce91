package ledger

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/kobana/kobana-mcp/platform/httpx"
	"github.com/kobana/kobana-mcp/productkit"
)

// The Pix webhook's mutual-TLS listener. The BCB's API Pix expects the
// receiver of webhooks to authenticate the PSP by mutual TLS (API Pix
// manual, "Webhooks": the PSP presents its client certificate; Resolução
// BCB nº 1/2020). A process behind a proxy that terminates TLS never
// sees the client's certificate, so the check happens here, on a
// listener of its own that terminates TLS itself and requires and
// verifies a client certificate against the configured CA bundle
// (tls.RequireAndVerifyClientCert) before any HTTP is read. It serves
// only PixWebhookMTLSPath. Off unless --dunning-pix-mtls-addr is set.

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

// start binds and serves h over mutual TLS.
func (l *pixMTLSListener) start(h http.Handler, log *slog.Logger) error {
	cfg := l.cfg.TLS.Clone()
	cfg.ClientAuth = tls.RequireAndVerifyClientCert
	cfg.MinVersion = max(cfg.MinVersion, tls.VersionTLS12)
	ln, err := net.Listen("tcp", l.cfg.Addr)
	if err != nil {
		return fmt.Errorf("dunning: the Pix webhook's mutual-TLS listener: %w%s", err, httpx.BindHint(err, l.cfg.Addr, "dunning-pix-mtls-addr"))
	}
	l.ln = tls.NewListener(ln, cfg)
	l.url = l.cfg.PublicURL
	if l.url == "" {
		l.url = "https://" + ln.Addr().String()
	}
	l.srv = httpx.NewServer(h, httpx.DefaultTimeouts, slog.NewLogLogger(log.Handler(), slog.LevelWarn))
	go func() {
		if err := l.srv.Serve(l.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("pix webhook mutual-TLS listener stopped", "error", err)
		}
	}()
	return nil
}

// MountPixWebhook mounts the Pix webhook's secret URL on the product's
// listener (both forms a PSP may call, PixWebhookSecretPath), and, when cfg has an address, starts the mutual-TLS listener
// with the product (b.Lifecycle); its URL is announced and shown by
// dunning_pix_webhook_get.
func MountPixWebhook(b *productkit.Builder, s *Service, cfg PixWebhookConfig) {
	b.Routes(func(mux *http.ServeMux) {
		mux.HandleFunc("POST "+PixWebhookSecretPath, s.servePixWebhook(PixViaSecret))
		mux.HandleFunc("POST "+PixWebhookMTLSPath, s.servePixWebhook(PixViaSecret))
	})
	if cfg.Addr == "" || cfg.TLS == nil || s.DB == nil {
		return
	}
	l := &pixMTLSListener{cfg: cfg}
	s.pixMTLS = l
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+PixWebhookMTLSPath, s.servePixWebhook(PixViaMTLS))
	b.Lifecycle(func(context.Context) error { return l.start(mux, s.Log) },
		func(ctx context.Context) error {
			if l.srv == nil {
				return nil
			}
			return l.srv.Shutdown(ctx)
		},
		func() []string {
			return []string{ServerName + " Pix webhook (mutual TLS): " + l.url + APIBase + "/pix-webhooks/{id}/pix"}
		})
}

// pixMTLSURL is the mutual-TLS listener's origin, "" without one.
func (s *Service) pixMTLSURL() string {
	if s.pixMTLS == nil {
		return ""
	}
	return s.pixMTLS.url
}
