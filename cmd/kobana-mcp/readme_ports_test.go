package main

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A walkthrough run while another server holds one of its ports must not
// pass: that server would answer the health loop and the calls in its
// place (docs/inbox.md "The Autonomous Inbox in five minutes"). Each block
// therefore starts with set -euo pipefail and a check of every port it
// needs, naming the flag that moves it, before anything else runs.

// walkthroughPortRE finds the loopback ports a walkthrough talks to, and
// walkthroughFreeRE the ports its opening check covers.
var (
	walkthroughPortRE = regexp.MustCompile(`127\.0\.0\.1:(\d+)`)
	walkthroughFreeRE = regexp.MustCompile(`(?m)(?:^|; )free (\d+) '`)
)

// TestWalkthroughsCheckPortsFirst reads every walkthrough: it sets -euo
// pipefail on its first line and checks each port it talks to before it
// builds or starts anything.
func TestWalkthroughsCheckPortsFirst(t *testing.T) {
	for name, script := range walkthroughs(t) {
		if first, _, _ := strings.Cut(script, "\n"); !strings.HasPrefix(first, "set -euo pipefail") {
			t.Errorf("walkthrough %s starts with %q, not set -euo pipefail", name, first)
		}
		build := strings.Index(script, "go build")
		if build < 0 {
			t.Errorf("walkthrough %s builds nothing", name)
			continue
		}
		checked := map[string]bool{}
		for _, m := range walkthroughFreeRE.FindAllStringSubmatchIndex(script[:build], -1) {
			checked[script[m[2]:m[3]]] = true
		}
		for _, m := range walkthroughPortRE.FindAllStringSubmatch(script, -1) {
			if !checked[m[1]] {
				t.Errorf("walkthrough %s talks to port %s without checking it is free before it builds", name, m[1])
			}
		}
	}
}

// TestWalkthroughPortTaken runs the Inbox's walkthrough while a listener
// holds 8081: it must exit non-zero, say what to do (the flag that moves
// the listener), and have built and started nothing. The Dunning one, with
// its SMTP receiver's port held, must fail the same way.
func TestWalkthroughPortTaken(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("the walkthroughs run with bash")
	}
	found := walkthroughs(t)
	cases := []struct {
		name, port string
		// before are ports the walkthrough checks first: when one is
		// taken by something else the message names it instead.
		before []string
		want   string
	}{
		{name: "inbox", port: "8081", want: "port 8081 is taken: stop what holds it or run serve with --inbox-addr"},
		{name: "dunning", port: "2526", before: []string{"8081", "8082", "8083", "2525"},
			want: "port 2526 is taken: stop what holds it or run smtp-receiver with -addr and serve with --dunning-smtp-port"},
		{name: "kadufiles", port: "8083", want: "port 8083 is taken: stop what holds it or run serve with --kadu-addr"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, p := range c.before {
				ln, err := net.Listen("tcp", "127.0.0.1:"+p)
				if err != nil {
					t.Skipf("port %s, checked before %s, is taken here: %v", p, c.port, err)
				}
				_ = ln.Close()
			}
			// Held by this test, or already by something else: either way
			// the walkthrough must stop at its check.
			if ln, err := net.Listen("tcp", "127.0.0.1:"+c.port); err == nil {
				defer ln.Close()
			}
			dir := repoView(t)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "bash", "-c", found[c.name])
			cmd.Dir = dir
			cmd.Env = cleanEnv()
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
			out, err := cmd.CombinedOutput()
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() == 0 {
				t.Fatalf("walkthrough %s with port %s taken: %v, want a non-zero exit\n%s", c.name, c.port, err, out)
			}
			if !strings.Contains(string(out), c.want) {
				t.Errorf("walkthrough %s with port %s taken printed no %q:\n%s", c.name, c.port, c.want, out)
			}
			for _, made := range []string{"kobana-mcp", "webhook-receiver", "smtp-receiver", "fake-model", "data"} {
				if _, err := os.Stat(filepath.Join(dir, made)); err == nil {
					t.Errorf("walkthrough %s made %s before its port check stopped it", c.name, made)
				}
			}
		})
	}
}
