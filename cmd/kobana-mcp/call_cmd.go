package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/client"
)

const callUsage = `Usage: kobana-mcp call [flags] VERB [ARGS]

A terminal MCP client (2026-07-28) for a product's MCP endpoint:

  tools                          list the tools: name, title, hints
  tool NAME [JSON | key=value…]  call a tool; prints its text, and structuredContent as JSON
  resources                      list the resources and resource templates
  read URI                       read a resource
  prompts                        list the prompts and their arguments (* required)
  prompt NAME [key=value…]       render a prompt
  info                           what the server is and speaks (server/discover)

The endpoint is --url, or --product's as the running serve recorded it in
--data-dir (so after "kobana-mcp serve" nothing else is needed).

The token: --token, --token-file or KOBANA_TOKEN; or --user EMAIL mints a
developer token for that person from the data directory, as "kobana-mcp
token" does. With none of these, call signs in with OAuth, as any MCP
client does: it follows the endpoint's 401 to its authorization server,
registers itself, prints a link to open in a browser (and opens one when it
can), and waits for the browser to come back to 127.0.0.1. The token and
its refresh token are kept in --credentials, one file per endpoint (0600),
refreshed when they expire, so later calls need no browser. It signs in on
its own only when stdin is a terminal; --sign-in signs in again whatever is
kept (without VERB it only signs in), and --sign-out forgets the sign-in
and revokes it.

A destructive tool asks for confirmation: the server's message is shown and
y/N read from the terminal; --yes accepts and --no declines without asking.
A key=value argument takes the type its schema declares (a JSON value for
numbers, booleans, arrays and objects).

Exit status: 0 done, 1 an error (the tool's, the server's or the
connection's, printed on stderr), 2 a usage error, 3 not confirmed (declined,
or no terminal to ask): nothing was done.

Flags:
`

// Exit statuses of call beyond 0, 1 and 2.
const exitNotConfirmed = 3

// terminal is where call asks the person: stdin, and whether it is a
// terminal (tests inject a pipe that acts as one).
type terminal struct {
	in          io.Reader
	interactive bool
	// http, when set, sends the requests (tests count them).
	http *http.Client
}

func callCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return callWith(ctx, args, stdout, stderr, terminal{in: os.Stdin, interactive: isTerminal(os.Stdin)})
}

// isTerminal reports whether f is a character device (a terminal), so a
// confirmation can be asked there rather than read from a pipe or file.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// callFlags are call's flags. They are plain flags (booleans included),
// not serve's settings table: call configures a client, not a server.
type callFlags struct {
	product, url, token, tokenFile, dataDir, dbURL, secrets, user, org string
	credentials                                                        string
	yes, no, signIn, signOut, noBrowser                                bool
	timeout, signInTimeout                                             time.Duration
	// signedInNow: this run signed in (so a refusal is not the kept
	// sign-in's staleness).
	signedInNow bool
}

// explicitToken reports whether the command line or environment names a
// token source, so the OAuth sign-in stays out of the way.
func (f *callFlags) explicitToken() bool {
	return f.token != "" || f.tokenFile != "" || f.user != "" || os.Getenv("KOBANA_TOKEN") != ""
}

func callWith(ctx context.Context, args []string, stdout, stderr io.Writer, term terminal) int {
	var f callFlags
	fs := flag.NewFlagSet("call", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.product, "product", "", "inbox, dunning or kadu: the endpoint the running serve recorded in --data-dir")
	fs.StringVar(&f.url, "url", "", "the MCP endpoint's URL (instead of --product)")
	fs.StringVar(&f.token, "token", "", "the access token (also KOBANA_TOKEN)")
	fs.StringVar(&f.tokenFile, "token-file", "", "a file holding the access token")
	fs.StringVar(&f.user, "user", "", "mint a developer token for this person's e-mail (needs --product and the serve's data directory)")
	fs.StringVar(&f.org, "org", "", "with --user: the organization, when the person belongs to several")
	fs.StringVar(&f.dataDir, "data-dir", envOr("KOBANA_DATA_DIR", "./data"), "the data directory of the running serve")
	fs.StringVar(&f.dbURL, "database-url", os.Getenv("KOBANA_DATABASE_URL"), "with --user: the serve's database URL, when it is not the data directory's SQLite")
	fs.StringVar(&f.secrets, "state-secrets", os.Getenv("KOBANA_STATE_SECRETS"), "with --user: the serve's state secrets, when it was given some")
	fs.BoolVar(&f.yes, "yes", false, "accept every confirmation without asking")
	fs.BoolVar(&f.no, "no", false, "decline every confirmation without asking")
	fs.DurationVar(&f.timeout, "timeout", 2*time.Minute, "how long one command may take")
	fs.BoolVar(&f.signIn, "sign-in", false, "sign in with OAuth in a browser now, even when a sign-in is kept (without VERB: only sign in)")
	fs.BoolVar(&f.signOut, "sign-out", false, "forget the endpoint's kept sign-in and revoke it, then stop")
	fs.BoolVar(&f.noBrowser, "no-browser", false, "when signing in, only print the link (do not try to open a browser)")
	fs.StringVar(&f.credentials, "credentials", defaultCredentialsDir(), "where OAuth sign-ins are kept, one file per endpoint (also KOBANA_CREDENTIALS_DIR)")
	fs.DurationVar(&f.signInTimeout, "sign-in-timeout", 5*time.Minute, "how long a sign-in waits for the browser")
	fs.Usage = func() {
		fmt.Fprint(stderr, callUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	rest := fs.Args()
	if len(rest) == 0 && !f.signIn && !f.signOut {
		fs.Usage()
		return 2
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "kobana-mcp call: "+format+"\n", a...)
		return 2
	}
	switch {
	case f.yes && f.no:
		return usageErr("--yes and --no contradict each other")
	case f.signIn && f.signOut:
		return usageErr("--sign-in and --sign-out contradict each other")
	case (f.signIn || f.signOut) && f.explicitToken():
		return usageErr("--sign-in and --sign-out are for the OAuth sign-in; --token, --token-file, KOBANA_TOKEN and --user give a token without it")
	case f.signOut && len(rest) > 0:
		return usageErr("--sign-out takes no verb")
	}
	endpoint, err := f.endpoint()
	if err != nil {
		return usageErr("%v", err)
	}
	if f.signOut {
		return f.forgetSignIn(ctx, endpoint, term, stdout, stderr)
	}
	var verb string
	var vargs []string
	var run callVerb
	if len(rest) > 0 {
		verb, vargs = rest[0], rest[1:]
		if run = callVerbs[verb]; run == nil {
			return usageErr("unknown verb %q (tools, tool, resources, read, prompts, prompt, info)", verb)
		}
	}
	token, code := f.resolveToken(ctx, stderr)
	if code >= 0 {
		return code
	}
	// The OAuth sign-in's own deadline is --sign-in-timeout, not the
	// command's: a person may take a while in the browser.
	if !f.explicitToken() {
		if token, code = f.oauthToken(ctx, endpoint, term, stderr, f.signIn); code >= 0 {
			return code
		}
	}
	if run == nil {
		return 0
	}
	base := ctx
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	ask := &terminalAnswerer{in: bufio.NewReader(term.in), out: stderr, interactive: term.interactive, yes: f.yes, no: f.no}
	c := &client.Client{URL: endpoint, HTTP: term.http, Token: token, Answer: ask,
		Info: mcp.Implementation{Name: "kobana-mcp-call", Title: "kobana-mcp call", Version: version}}
	code, err = run(ctx, c, vargs, stdout)
	var he *client.HTTPError
	if errors.As(err, &he) && he.Status == http.StatusUnauthorized && token != "" && !f.explicitToken() && !f.signedInNow && term.interactive {
		// The kept sign-in was refused before anything ran (its grant
		// revoked, the server's keys replaced): a person is here to sign
		// in again, and the verb runs once more.
		fmt.Fprintf(stderr, "kobana-mcp call: the kept sign-in was refused (%v); signing in again.\n", err)
		if c.Token, code = f.oauthToken(base, endpoint, term, stderr, true); code >= 0 {
			return code
		}
		code, err = run(ctx, c, vargs, stdout)
	}
	switch {
	case errors.Is(err, errUsage):
		return usageErr("%v", err)
	case ask.declined && (err != nil || code != 0):
		if err != nil {
			printCallError(stderr, err, f)
		}
		return exitNotConfirmed
	case err != nil:
		printCallError(stderr, err, f)
		return 1
	}
	if code == 1 {
		fmt.Fprintln(stderr, "kobana-mcp call: the tool answered an error (above)")
	}
	return code
}

func envOr(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

// endpoint is --url, or --product's MCP endpoint: as the running serve
// recorded it in the data directory, else the product's default address.
func (f *callFlags) endpoint() (string, error) {
	switch {
	case f.url != "" && f.product != "":
		return "", errors.New("give --url or --product, not both")
	case f.url != "":
		return f.url, nil
	case f.product == "":
		return "", errors.New("which endpoint? --product inbox|dunning|kadu, or --url URL")
	}
	for _, p := range products() {
		if p.Key != f.product {
			continue
		}
		if u := recordedEndpoint(f.dataDir, p.Key); u != "" {
			return u + "/mcp", nil
		}
		return "http://" + p.DefaultAddr + "/mcp", nil
	}
	return "", fmt.Errorf("unknown product %q (%s)", f.product, productKeys())
}

// resolveToken finds the token: --token, --token-file, KOBANA_TOKEN, or
// one minted for --user by the token command itself (same keys, issuer
// and audience as serve verifies). No token at all is allowed: an open
// endpoint needs none, and a guarded one says so. code is -1 to go on.
func (f *callFlags) resolveToken(ctx context.Context, stderr io.Writer) (string, int) {
	switch {
	case f.token != "":
		return f.token, -1
	case f.tokenFile != "":
		b, err := os.ReadFile(f.tokenFile)
		if err != nil {
			fmt.Fprintf(stderr, "kobana-mcp call: --token-file: %v\n", err)
			return "", 1
		}
		return strings.TrimSpace(string(b)), -1
	case os.Getenv("KOBANA_TOKEN") != "":
		return strings.TrimSpace(os.Getenv("KOBANA_TOKEN")), -1
	case f.user == "":
		return "", -1
	case f.product == "":
		fmt.Fprintln(stderr, "kobana-mcp call: --user mints a token for --product's local endpoint; with --url give --token")
		return "", 2
	}
	args := []string{"--product", f.product, "--user", f.user, "--data-dir", f.dataDir, "--resource", "mcp",
		"--database-url", f.dbURL, "--state-secrets", f.secrets}
	if f.org != "" {
		args = append(args, "--org", f.org)
	}
	var out strings.Builder
	if code := tokenCmd(ctx, args, &out, stderr); code != 0 {
		return "", code
	}
	return strings.TrimSpace(out.String()), -1
}

// printCallError says what went wrong, in the server's words, and for a
// refused or missing token how to get one.
func printCallError(w io.Writer, err error, f callFlags) {
	fmt.Fprintf(w, "kobana-mcp call: %v\n", err)
	var he *client.HTTPError
	if errors.As(err, &he) && he.Status == http.StatusUnauthorized && !f.explicitToken() {
		product := f.product
		if product == "" {
			product = "PRODUCT"
		}
		fmt.Fprintf(w, "kobana-mcp call: this endpoint needs a token: add --sign-in (OAuth, in a browser; also what a call on a terminal does), "+
			"add --user EMAIL (a developer token from the data directory), "+
			"or --token \"$(kobana-mcp token --product %s --user EMAIL)\"\n", product)
	}
}
