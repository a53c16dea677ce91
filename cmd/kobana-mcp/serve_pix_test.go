package main

import (
	"bufio"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/dunning/pixpsptest"
)

// TestServePixWebhookMutualTLS runs serve with the --dunning-pix-mtls-*
// flags over PEM files of a test CA: it announces the Pix webhook's
// mutual-TLS listener, a PSP presenting a client certificate of that CA
// reaches Dunning's webhook there (an unknown hook id: 404 from the
// product, so the request went through TLS and routing), a client
// without a certificate is refused in the handshake, and serve stops
// cleanly.
func TestServePixWebhookMutualTLS(t *testing.T) {
	t.Parallel()
	pki, server, client := pixpsptest.TestPKI(t, "Test PSP CA")
	dir := t.TempDir()
	certFile, keyFile, caFile := pki.WriteFiles(t, dir, server)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	stderr := &syncWriter{}
	args := []string{"serve", "--data-dir", filepath.Join(dir, "data"), "--products", "dunning", "--dunning-addr", "127.0.0.1:0",
		"--dunning-pix-mtls-addr", "127.0.0.1:0", "--dunning-pix-mtls-cert", certFile,
		"--dunning-pix-mtls-key", keyFile, "--dunning-pix-mtls-client-ca", caFile}
	go func() { done <- run(ctx, args, pw, stderr); pw.Close() }()
	lines := bufio.NewScanner(pr)
	var url string
	for url == "" && lines.Scan() {
		if _, u, ok := strings.Cut(lines.Text(), "Pix webhook (mutual TLS): "); ok {
			url = u
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if !strings.HasPrefix(url, "https://127.0.0.1:") || !strings.HasSuffix(url, "/v1/pix-webhooks/{id}/pix") {
		select {
		case code := <-done:
			t.Fatalf("serve exited %d without announcing the listener (%q): %s", code, url, stderr.String())
		case <-time.After(10 * time.Second):
			t.Fatalf("announced %q", url)
		}
	}
	hook := strings.TrimSuffix(strings.Replace(url, "{id}", "6f1c1a53-6a43-4d0e-9a51-3f1f0f0f0f0f", 1), "/pix")
	at := time.Now().UTC()
	p := pixpsptest.Pix{EndToEndID: pixpsptest.EndToEndID("00360305", at, 1), Valor: "1.00", Horario: at.Format(time.RFC3339)}
	psp := &pixpsptest.PSP{URL: hook, Client: pixpsptest.Client(pki.Pool(), &client)}
	if r, err := psp.Notify(ctx, p); err != nil || r.Status != 404 || !strings.Contains(r.Body, "pix webhook not found") {
		t.Fatalf("with the PSP's certificate: %+v %v", r, err)
	}
	anon := &pixpsptest.PSP{URL: hook, Client: pixpsptest.Client(pki.Pool(), nil)}
	if r, err := anon.Notify(ctx, p); err == nil {
		t.Fatalf("without a certificate: heard, %+v", r)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("serve exited %d: %s", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
}
