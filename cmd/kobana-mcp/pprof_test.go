package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestPprofAddrOnlyOnLoopback: the profiler may listen on loopback only;
// any other address stops serve before it opens anything.
func TestPprofAddrOnlyOnLoopback(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"127.0.0.1:0", "[::1]:6060", "localhost:6060"} {
		if err := checkLoopback(addr); err != nil {
			t.Errorf("%s refused: %v", addr, err)
		}
	}
	for _, addr := range []string{":6060", "0.0.0.0:6060", "10.0.0.1:6060", "example.com:6060", "[::]:6060", "6060"} {
		if checkLoopback(addr) == nil {
			t.Errorf("%s accepted", addr)
		}
		stderr := &syncWriter{}
		code := run(context.Background(), []string{"serve", "--data-dir", t.TempDir(), "--pprof-addr", addr}, io.Discard, stderr)
		if code != 2 || !strings.Contains(stderr.String(), "--pprof-addr") {
			t.Errorf("serve --pprof-addr %s: exit %d, stderr %q", addr, code, stderr.String())
		}
	}
}

// TestPprofMuxServesProfiles: the profiler's index and the command line
// answer; nothing else of the process is on that listener.
func TestPprofMuxServesProfiles(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(pprofMux())
	defer srv.Close()
	for path, want := range map[string]int{"/debug/pprof/": 200, "/debug/pprof/cmdline": 200, "/mcp": 404, "/metrics": 404} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%s: %d, want %d", path, resp.StatusCode, want)
		}
	}
}
