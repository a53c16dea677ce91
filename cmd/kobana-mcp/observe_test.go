package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestServeHealthAndMetrics runs serve with a metrics listener: each product
// listener answers /healthz and /readyz without a token, every answer
// carries a request id, and /metrics counts what the endpoints served.
func TestServeHealthAndMetrics(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	args := []string{"serve", "--data-dir", t.TempDir(), "--inbox-addr", "127.0.0.1:0", "--dunning-addr", "127.0.0.1:0",
		"--kadu-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"}
	go func() { done <- run(ctx, args, pw, io.Discard); pw.Close() }()
	var inbox, metrics string
	lines := bufio.NewScanner(pr)
	for (inbox == "" || metrics == "") && lines.Scan() {
		if u, ok := strings.CutPrefix(lines.Text(), "kobana-autonomous-inbox MCP endpoint: "); ok {
			inbox = strings.TrimSuffix(u, "/mcp")
		}
		if u, ok := strings.CutPrefix(lines.Text(), "metrics: "); ok {
			metrics = u
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if inbox == "" || metrics == "" {
		t.Fatalf("serve printed no inbox or metrics URL")
	}
	get := func(url string) (int, http.Header, string) {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b)
	}
	if code, hdr, body := get(inbox + "/healthz"); code != 200 || hdr.Get("X-Request-Id") == "" {
		t.Fatalf("healthz: %d %v %s", code, hdr, body)
	}
	if code, _, body := get(inbox + "/readyz"); code != 200 || !strings.Contains(body, `"database":"ok"`) || !strings.Contains(body, `"jobs":"ok"`) {
		t.Fatalf("readyz: %d %s", code, body)
	}
	resp, err := http.Post(inbox+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 || resp.Header.Get("X-Request-Id") == "" {
		t.Fatalf("unauthenticated MCP call: %d %v", resp.StatusCode, resp.Header)
	}
	code, _, body := get(metrics)
	if code != 200 || !strings.Contains(body, `kobana_mcp_requests_total{era="unknown",method="none",outcome="http_401",product="inbox",tool=""} 1`) ||
		!strings.Contains(body, `kobana_http_requests_total{product="inbox",route="health",status="2xx"} 2`) ||
		// The job queue's depth by kind and state, and the webhook
		// dispatcher's counters, are on the same endpoint.
		!strings.Contains(body, `kobana_jobs_depth{kind="inbox.process_email",state="available"} 0`) ||
		!strings.Contains(body, `kobana_webhook_delivery_duration_seconds_count{product="inbox"} 0`) {
		t.Fatalf("metrics: %d\n%s", code, grep(body, "kobana_"))
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop")
	}
}

func grep(text, prefix string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
