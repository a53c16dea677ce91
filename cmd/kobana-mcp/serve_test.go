package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestServeStartsEveryProductAndStopsOnSignal runs the real command on
// loopback ports the kernel picks, talks to each endpoint it printed, then
// cancels the context as SIGTERM would and expects a clean exit. It starts
// twice on one database, on each engine: the first start creates the demo
// account and prints its sign-in, the second prints nothing of it.
func TestServeStartsEveryProductAndStopsOnSignal(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			dataDir := t.TempDir()
			dbURL := "" // SQLite: the default file in the data dir
			if engine == store.Postgres {
				dbURL = storetest.URL(t, engine)
			}
			for start, wantBanners := range []int{1, 0} {
				lines := serveOnce(t, dataDir, dbURL)
				banners, password := 0, ""
				for _, l := range lines {
					if strings.HasPrefix(l, demoBanner) {
						banners++
					}
					if p, ok := strings.CutPrefix(strings.TrimSpace(l), "password: "); ok {
						password = p
					}
				}
				if banners != wantBanners {
					t.Fatalf("start %d printed the demo sign-in %d times, want %d:\n%s", start+1, banners, wantBanners, strings.Join(lines, "\n"))
				}
				if start == 0 {
					db, err := store.Open(context.Background(), databaseURL(dataDir, dbURL))
					if err != nil {
						t.Fatal(err)
					}
					_, err = accounts.New(db, accounts.Options{}).VerifyPassword(context.Background(), accounts.DemoOwnerEmail, password)
					db.Close()
					if err != nil {
						t.Fatalf("the printed demo password %q does not sign in: %v", password, err)
					}
				}
			}
		})
	}
}

// serveOnce starts serve, checks every product's endpoint answers, stops
// it as SIGTERM would, and returns what it printed before the endpoints.
func serveOnce(t *testing.T, dataDir, dbURL string) []string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	args := []string{"--data-dir", dataDir, "--database-url", dbURL, "--inbox-addr", "127.0.0.1:0", "--dunning-addr", "127.0.0.1:0", "--kadu-addr", "127.0.0.1:0"}
	stderr := &syncWriter{}
	go func() { done <- run(ctx, append([]string{"serve"}, args...), pw, stderr); pw.Close() }()

	lines := bufio.NewScanner(pr)
	urls := map[string]string{}
	var printed []string
	for len(urls) < 3 && lines.Scan() {
		printed = append(printed, lines.Text())
		name, url, ok := strings.Cut(lines.Text(), " MCP endpoint: ")
		if ok {
			urls[name] = url
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if len(urls) < 3 {
		select {
		case code := <-done:
			t.Fatalf("serve exited with %d before printing its endpoints: %s", code, stderr.String())
		case <-time.After(10 * time.Second):
			t.Fatal("serve printed no endpoints")
		}
	}
	tokens := map[string]string{}
	for key, name := range map[string]string{"inbox": "kobana-autonomous-inbox", "dunning": "kobana-dunning", "kadu": "kadu"} {
		url := urls[name]
		if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") {
			t.Fatalf("%s: printed URL %q", name, url)
		}
		// Without a token: the challenge that sends a client to sign in.
		status, hdr, _ := initialize(t, url, "")
		base := strings.TrimSuffix(url, "/mcp")
		if status != 401 || !strings.Contains(hdr.Get("WWW-Authenticate"), `resource_metadata="`+base+`/.well-known/oauth-protected-resource/mcp"`) {
			t.Fatalf("%s without a token: %d %v", name, status, hdr)
		}
		// The built-in authorization server shares the listener; its issuer
		// is the listener's own origin.
		resp, err := http.Get(base + "/.well-known/oauth-authorization-server")
		if err != nil {
			t.Fatal(err)
		}
		meta, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(meta), `"issuer":"`+base+`"`) || !strings.Contains(string(meta), `"code_challenge_methods_supported":["S256"]`) {
			t.Fatalf("%s authorization server metadata: %d %s", name, resp.StatusCode, meta)
		}
		// With a developer token from the token command.
		var out, errOut strings.Builder
		code := run(context.Background(), []string{"token", "--data-dir", dataDir, "--database-url", dbURL, "--product", key,
			"--" + key + "-public-url", base, "--user", accounts.DemoOwnerEmail}, &out, &errOut)
		if code != 0 {
			t.Fatalf("token %s: %d %s", key, code, errOut.String())
		}
		tokens[key] = strings.TrimSpace(out.String())
		status, _, b := initialize(t, url, tokens[key])
		if status != 200 || !strings.Contains(b, `"name":"`+name+`"`) {
			t.Fatalf("%s: %d %s", name, status, b)
		}
	}
	// A token for the Dunning endpoint is refused by the Inbox endpoint.
	if status, hdr, _ := initialize(t, urls["kobana-autonomous-inbox"], tokens["dunning"]); status != 401 || !strings.Contains(hdr.Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Fatalf("a Dunning token on the Inbox: %d %v", status, hdr)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit code %d after shutdown", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop after the signal")
	}
	return printed
}

func initialize(t *testing.T, url, token string) (int, http.Header, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// syncWriter lets the test read what the server goroutine writes.
type syncWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestUnknownCommandAndHelp(t *testing.T) {
	t.Parallel()
	if code := run(context.Background(), []string{"nope"}, io.Discard, io.Discard); code != 2 {
		t.Fatalf("unknown command: %d", code)
	}
	var out strings.Builder
	if code := run(context.Background(), []string{"serve", "--help"}, io.Discard, &out); code != 0 || !strings.Contains(out.String(), "KOBANA_INBOX_ADDR") {
		t.Fatalf("serve --help: %d %s", code, out.String())
	}
}
