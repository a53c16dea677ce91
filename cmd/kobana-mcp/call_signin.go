package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/mcp/client"
	"github.com/kobana/kobana-mcp/mcp/client/signin"
)

// The OAuth sign-in of `kobana-mcp call` (docs/operating.md "kobana-mcp
// call", docs/decisions.md "kobana-mcp call signs in with OAuth"): with no
// --token, --token-file, KOBANA_TOKEN or --user, call uses the sign-in it
// keeps for the endpoint (credentialStore), refreshed when it expired; with
// none kept, it signs in when stdin is a terminal (or --sign-in says so),
// exactly as any MCP client does (package mcp/client/signin).

// signInClientName is what the consent page shows as the application.
const signInClientName = "kobana-mcp call"

// oauthToken finds the signed-in token for endpoint, signing in when
// needed and possible. fresh forces a new sign-in. code is -1 to go on
// ("" then means no token: the server will say it needs one).
func (f *callFlags) oauthToken(ctx context.Context, endpoint string, term terminal, stderr io.Writer, fresh bool) (string, int) {
	store := credentialStore{dir: f.credentials}
	if !fresh {
		tok, err := store.current(ctx, term.http, endpoint)
		switch {
		case err == nil && tok != "":
			return tok, -1
		case errors.Is(err, signin.ErrSignInAgain) && term.interactive:
			fmt.Fprintf(stderr, "kobana-mcp call: %v; signing in again.\n", err)
		case errors.Is(err, signin.ErrSignInAgain):
			fmt.Fprintf(stderr, "kobana-mcp call: %v: sign in again with --sign-in (on a terminal)\n", err)
			return "", 1
		case err != nil:
			fmt.Fprintf(stderr, "kobana-mcp call: %v\n", err)
			return "", 1
		case !term.interactive:
			// Nobody to sign in: the server's 401 says what is missing.
			return "", -1
		}
	}
	return f.browserSignIn(ctx, endpoint, term, stderr)
}

// browserSignIn runs the browser sign-in and keeps its credentials.
func (f *callFlags) browserSignIn(ctx context.Context, endpoint string, term terminal, stderr io.Writer) (string, int) {
	fail := func(err error) (string, int) {
		fmt.Fprintf(stderr, "kobana-mcp call: signing in to %s: %v\n", endpoint, err)
		return "", 1
	}
	// Discovery starts where any MCP client's does: the endpoint's 401.
	probe := &client.Client{URL: endpoint, HTTP: term.http}
	_, err := probe.Discover(ctx)
	var he *client.HTTPError
	switch {
	case err == nil:
		fmt.Fprintf(stderr, "kobana-mcp call: %s answers without a token: there is nothing to sign in to.\n", endpoint)
		return "", -1
	case !errors.As(err, &he) || he.Status != http.StatusUnauthorized:
		return fail(fmt.Errorf("expected the endpoint's 401 to start from: %w", err))
	}
	d, err := signin.Discover(ctx, term.http, endpoint, he.Challenge)
	if err != nil {
		return fail(err)
	}
	flow := &signin.Flow{HTTP: term.http, ClientName: signInClientName, ClientVersion: version, Timeout: f.signInTimeout,
		Show: browserOpener{out: stderr, launch: !f.noBrowser, timeout: f.signInTimeout}.show}
	creds, err := flow.SignIn(ctx, d)
	if err != nil {
		return fail(err)
	}
	store := credentialStore{dir: f.credentials}
	if err := store.keep(ctx, creds); err != nil {
		return fail(fmt.Errorf("keeping the token: %w", err))
	}
	f.signedInNow = true
	fmt.Fprintf(stderr, "Signed in to %s; the token is kept in %s (--sign-out forgets it).\n", endpoint, store.path(endpoint))
	return creds.Token.AccessToken, -1
}

// forgetSignIn forgets the endpoint's sign-in and revokes its grant at the
// authorization server (best effort: the file is gone either way).
func (f *callFlags) forgetSignIn(ctx context.Context, endpoint string, term terminal, stdout, stderr io.Writer) int {
	store := credentialStore{dir: f.credentials}
	c, err := store.forget(ctx, endpoint)
	if err != nil {
		fmt.Fprintf(stderr, "kobana-mcp call: --sign-out: %v\n", err)
		return 1
	}
	if c == nil {
		fmt.Fprintf(stdout, "Not signed in to %s: nothing to forget.\n", endpoint)
		return 0
	}
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := c.Revoke(rctx, term.http); err != nil {
		fmt.Fprintf(stderr, "kobana-mcp call: the server did not revoke the grant (%v); the token is forgotten here anyway.\n", err)
	}
	fmt.Fprintf(stdout, "Signed out of %s: the token is deleted and its grant revoked.\n", endpoint)
	return 0
}

// browserOpener shows the person the sign-in link and, unless told not to,
// tries to open it in their browser: $BROWSER, else xdg-open or open when
// installed. Opening is a convenience: the link printed is enough.
type browserOpener struct {
	out     io.Writer
	launch  bool
	timeout time.Duration
}

func (o browserOpener) show(authURL string) {
	fmt.Fprintf(o.out, "To sign in, open this link in a browser (it comes back to this terminal):\n\n  %s\n\nWaiting up to %s for the browser…\n", authURL, o.timeout)
	if !o.launch {
		return
	}
	cmd := browserCommand(authURL)
	if cmd == nil {
		return
	}
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(o.out, "(could not open a browser: %v)\n", err)
		return
	}
	go reap(cmd)
}

// browserCommand is the command that opens u in the person's browser, or
// nil when none is known: $BROWSER (its first entry, "%s" replaced by the
// link, else the link appended), else xdg-open or open on the PATH.
func browserCommand(u string) *exec.Cmd {
	if b := os.Getenv("BROWSER"); b != "" {
		first, _, _ := strings.Cut(b, ":")
		fields := strings.Fields(first)
		if len(fields) > 0 {
			replaced := false
			for i, a := range fields[1:] {
				if strings.Contains(a, "%s") {
					fields[i+1], replaced = strings.ReplaceAll(a, "%s", u), true
				}
			}
			if !replaced {
				fields = append(fields, u)
			}
			return exec.Command(fields[0], fields[1:]...)
		}
	}
	for _, name := range []string{"xdg-open", "open"} {
		if p, err := exec.LookPath(name); err == nil {
			return exec.Command(p, u)
		}
	}
	return nil
}

// reap waits for the browser launcher, so it leaves no zombie.
func reap(cmd *exec.Cmd) { _ = cmd.Wait() }
