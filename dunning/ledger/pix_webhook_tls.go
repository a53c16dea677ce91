package ledger

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"

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
