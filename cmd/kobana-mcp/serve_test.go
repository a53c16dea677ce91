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

// TestServeStartsEveryProductAndStopsOnSignal runs the real command on
// loopback ports the kernel picks, talks to each endpoint it printed, then
// cancels the context as SIGTERM would and expects a clean exit.
func TestServeStartsEveryProductAndStopsOnSignal(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	args := []string{"--data-dir", t.TempDir(), "--inbox-addr", "127.0.0.1:0", "--dunning-addr", "127.0.0.1:0", "--kadu-addr", "127.0.0.1:0"}
	go func() { done <- run(ctx, append([]string{"serve"}, args...), pw, io.Discard); pw.Close() }()

	lines := bufio.NewScanner(pr)
	urls := map[string]string{}
	for len(urls) < 3 && lines.Scan() {
		name, url, ok := strings.Cut(lines.Text(), " MCP endpoint: ")
		if ok {
			urls[name] = url
		}
	}
	for _, name := range []string{"kobana-autonomous-inbox", "kobana-dunning", "kadu"} {
		url := urls[name]
		if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") {
			t.Fatalf("%s: printed URL %q", name, url)
		}
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`
		resp, err := http.Post(url, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), `"name":"`+name+`"`) {
			t.Fatalf("%s: %d %s", name, resp.StatusCode, b)
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit code %d after shutdown", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop after the signal")
	}
}

func TestUnknownCommandAndHelp(t *testing.T) {
	if code := run(context.Background(), []string{"nope"}, io.Discard, io.Discard); code != 2 {
		t.Fatalf("unknown command: %d", code)
	}
	var out strings.Builder
	if code := run(context.Background(), []string{"serve", "--help"}, io.Discard, &out); code != 0 || !strings.Contains(out.String(), "KOBANA_INBOX_ADDR") {
		t.Fatalf("serve --help: %d %s", code, out.String())
	}
}
