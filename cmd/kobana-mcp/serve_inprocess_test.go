package main

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
)

// inProcessServe runs `kobana-mcp serve args…` in this process until ctx
// ends and returns the first MCP endpoint it printed, the channel its exit
// code arrives on, and its standard error. A serve that prints no endpoint
// fails the test with what it wrote to standard error.
func inProcessServe(t *testing.T, ctx context.Context, args ...string) (string, <-chan int, *syncWriter) {
	t.Helper()
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	stderr := &syncWriter{}
	go func() {
		done <- run(ctx, append([]string{"serve"}, args...), pw, stderr)
		pw.Close()
	}()
	var url string
	lines := bufio.NewScanner(pr)
	for lines.Scan() {
		if _, u, ok := strings.Cut(lines.Text(), " MCP endpoint: "); ok {
			url = u
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if url == "" {
		t.Fatalf("serve printed no endpoint: %s", stderr.String())
	}
	return url, done, stderr
}
