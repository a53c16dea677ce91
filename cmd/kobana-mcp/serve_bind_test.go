package main

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/store"
)

// A first start whose port another process holds fails before anything
// else happens, naming the flag that moves the listener — and spends
// nothing: the demo account is not created, so the next start, on a free
// port, still shows its one-time password. The same for the Inbox's SMTP
// intake, a listener of its own.
func TestServeWithAPortTakenNamesTheFlagAndKeepsTheDemo(t *testing.T) {
	t.Parallel()
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	taken := held.Addr().String()
	dataDir := t.TempDir()
	free := []string{"--inbox-addr", "127.0.0.1:0", "--dunning-addr", "127.0.0.1:0", "--kadu-addr", "127.0.0.1:0"}
	for _, c := range []struct {
		flag string
		args []string
	}{
		{"--dunning-addr", []string{"--inbox-addr", "127.0.0.1:0", "--dunning-addr", taken, "--kadu-addr", "127.0.0.1:0", "--inbox-smtp-addr", "127.0.0.1:0"}},
		{"--inbox-smtp-addr", append(append([]string(nil), free...), "--inbox-smtp-addr", taken)},
	} {
		stdout, stderr := &syncWriter{}, &syncWriter{}
		code := run(context.Background(), append([]string{"serve", "--data-dir", dataDir}, c.args...), stdout, stderr)
		if code != 1 {
			t.Fatalf("%s taken: exit %d, want 1; stderr:\n%s", c.flag, code, stderr)
		}
		for _, want := range []string{"address already in use", "another process is listening on " + taken, c.flag + " 127.0.0.1:0"} {
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("%s taken: stderr lacks %q:\n%s", c.flag, want, stderr)
			}
		}
		if strings.Contains(stdout.String(), demoBanner) {
			t.Errorf("%s taken: the demo sign-in was printed by a start that failed:\n%s", c.flag, stdout)
		}
	}
	db, err := store.Open(context.Background(), databaseURL(dataDir, ""))
	if err != nil {
		t.Fatal(err)
	}
	orgs, err := accounts.New(db, accounts.Options{}).ListOrganizations(context.Background())
	db.Close()
	if err != nil || len(orgs) != 0 {
		t.Fatalf("after the failed starts: %d organizations (%v), want none", len(orgs), err)
	}
	lines := serveOnce(t, dataDir, "")
	if !strings.Contains(strings.Join(lines, "\n"), demoBanner) {
		t.Fatalf("the first start that served did not print the demo sign-in:\n%s", strings.Join(lines, "\n"))
	}
}
