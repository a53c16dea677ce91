package dunning

import (
	"context"
	"crypto/tls"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/pixpsptest"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit"
)

// TestPixWebhookMutualTLS: with the mutual-TLS listener configured (real
// certificates of a test CA), a PSP presenting a client certificate of
// that CA is heard at the URL dunning_pix_webhook_get shows and the
// listener's announcement names, and its Pix pays the charge (received
// via mtls); a client without a certificate, or with one of another CA,
// is refused in the TLS handshake; the listener serves nothing else (the
// secret URL is not there), and the main listener does not take the
// mutual-TLS URL without a certificate. Nothing refused is kept.
func TestPixWebhookMutualTLS(t *testing.T) {
	t.Parallel()
	pki, server, client := pixpsptest.TestPKI(t, "Test PSP CA")
	_, _, stranger := pixpsptest.TestPKI(t, "Another CA")
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		fe := newEnv(t, db, envOptions{channels: ledger.ChannelConfig{PixWebhook: ledger.PixWebhookConfig{Addr: "127.0.0.1:0",
			TLS: &tls.Config{Certificates: []tls.Certificate{server}, ClientCAs: pki.Pool()}}}})
		ctx := context.Background()
		secretPSP := fe.pixWebhook()
		hook := fe.ok(200, "GET", "/v1/settings/pix-webhook", nil)
		mtlsURL, _ := hook["mtls_url"].(string)
		if !strings.HasPrefix(mtlsURL, "https://127.0.0.1:") || !strings.HasSuffix(mtlsURL, "/v1/pix-webhooks/"+hook["id"].(string)) {
			t.Fatalf("mtls_url: %v", hook)
		}
		origin := mtlsURL[:strings.Index(mtlsURL, "/v1/")]
		if got := strings.Join(fe.Product.Announce(), "\n"); !strings.Contains(got, "Pix webhook (mutual TLS): "+origin+"/v1/pix-webhooks/{id}/pix") {
			t.Fatalf("announcement: %s", got)
		}
		fe.debtor("maria", "Maria da Silva", cpfOK)
		c := fe.charge(obj{"debtor_id": "maria", "external_id": "mtls", "amount": 80, "due_date": "2026-04-10"})["id"].(string)

		for name, cert := range map[string]*tls.Certificate{"no certificate": nil, "another CA's": &stranger} {
			psp := &pixpsptest.PSP{URL: mtlsURL, Client: pixpsptest.Client(pki.Pool(), cert)}
			if r, err := psp.Notify(ctx, pixOf(t, c, "80.00", 1)); err == nil {
				t.Errorf("%s: heard: %+v", name, r)
			}
		}
		// The secret URL is not on the mutual-TLS listener, and the
		// mutual-TLS URL on the main listener is no way around it.
		good := pixpsptest.Client(pki.Pool(), &client)
		inside := &pixpsptest.PSP{URL: origin + strings.TrimPrefix(secretPSP.URL, fe.URL), Client: good}
		if r, err := inside.Notify(ctx, pixOf(t, c, "80.00", 1)); err != nil || r.Status != 404 {
			t.Fatalf("secret URL on the mutual-TLS listener: %+v %v", r, err)
		}
		plain := &pixpsptest.PSP{URL: fe.URL + strings.TrimPrefix(mtlsURL, origin)}
		if r, err := plain.Notify(ctx, pixOf(t, c, "80.00", 1)); err != nil || r.Status/100 == 2 {
			t.Fatalf("mutual-TLS URL on the main listener: %+v %v", r, err)
		}
		if p, n := pixRows(t, db, fe.Mine.ID); p != 0 || n != 0 {
			t.Fatalf("refused calls kept %d pix and %d payments", p, n)
		}

		psp := &pixpsptest.PSP{URL: mtlsURL, Client: good}
		r, err := psp.Notify(ctx, pixOf(t, c, "80.00", 1))
		if err != nil || r.Status != 200 || !strings.Contains(r.Body, `"reconciled":1`) {
			t.Fatalf("with the PSP's certificate: %+v %v", r, err)
		}
		if ch := fe.ok(200, "GET", "/v1/charges/mtls", nil); ch["status"] != "paid" {
			t.Fatalf("charge: %v", ch)
		}
		var via string
		if err := db.Get(ctx, &via, `SELECT received_via FROM dunning_pix_received WHERE organization_id = ?`, fe.Mine.ID); err != nil || via != ledger.PixViaMTLS {
			t.Fatalf("received via %q %v", via, err)
		}
	})
}

// TestPixWebhookTLSSettings: the --dunning-pix-mtls-* settings load the
// listener's certificate, key and client CAs from PEM files; half a
// configuration, a missing file or a bundle without a certificate is
// refused naming the setting; none configures no listener.
func TestPixWebhookTLSSettings(t *testing.T) {
	t.Parallel()
	pki, server, _ := pixpsptest.TestPKI(t, "Test PSP CA")
	dir := t.TempDir()
	certFile, keyFile, caFile := pki.WriteFiles(t, dir, server)
	notPEM := filepath.Join(dir, "empty.pem")
	if err := os.WriteFile(notPEM, []byte("nothing here"), 0o600); err != nil {
		t.Fatal(err)
	}
	parse := func(args ...string) (ledger.ChannelConfig, error) {
		var c ledger.ChannelConfig
		s := &productkit.Settings{}
		check := c.Settings(s)
		if err := s.Parse("serve", args, io.Discard); err != nil {
			return c, err
		}
		return c, check()
	}
	if c, err := parse(); err != nil || c.PixWebhook.Addr != "" || c.PixWebhook.TLS != nil {
		t.Fatalf("defaults: %+v %v", c.PixWebhook, err)
	}
	c, err := parse("--dunning-pix-mtls-addr", "127.0.0.1:0", "--dunning-pix-mtls-cert", certFile, "--dunning-pix-mtls-key", keyFile,
		"--dunning-pix-mtls-client-ca", caFile, "--dunning-pix-mtls-public-url", "https://pix.example.com/")
	if err != nil || c.PixWebhook.TLS == nil || len(c.PixWebhook.TLS.Certificates) != 1 || c.PixWebhook.TLS.ClientCAs == nil ||
		c.PixWebhook.PublicURL != "https://pix.example.com" {
		t.Fatalf("configured: %+v %v", c.PixWebhook, err)
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"--dunning-pix-mtls-addr", "127.0.0.1:0"}, "--dunning-pix-mtls-cert"},
		{[]string{"--dunning-pix-mtls-cert", certFile}, "need --dunning-pix-mtls-addr"},
		{[]string{"--dunning-pix-mtls-addr", ":0", "--dunning-pix-mtls-cert", certFile, "--dunning-pix-mtls-key", keyFile, "--dunning-pix-mtls-client-ca", notPEM}, "no PEM certificate"},
		{[]string{"--dunning-pix-mtls-addr", ":0", "--dunning-pix-mtls-cert", certFile, "--dunning-pix-mtls-key", caFile, "--dunning-pix-mtls-client-ca", caFile}, "--dunning-pix-mtls-cert/-key"},
		{[]string{"--dunning-pix-mtls-addr", ":0", "--dunning-pix-mtls-cert", certFile, "--dunning-pix-mtls-key", keyFile, "--dunning-pix-mtls-client-ca", caFile,
			"--dunning-pix-mtls-public-url", "http://pix.example.com"}, "https"},
	} {
		if _, err := parse(bad.args...); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%v: %v, want an error naming %q", bad.args, err, bad.want)
		}
	}
}
