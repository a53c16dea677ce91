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
--data-dir (so after "kobana-mcp serve" nothing else is needed). The token
is --token, --token-file or KOBANA_TOKEN; or --user EMAIL mints a developer
token for that person from the data directory, as "kobana-mcp token" does.

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
	yes, no                                                            bool
	timeout                                                            time.Duration
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
	if len(rest) == 0 {
		fs.Usage()
		return 2
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "kobana-mcp call: "+format+"\n", a...)
		return 2
	}
	if f.yes && f.no {
		return usageErr("--yes and --no contradict each other")
	}
	endpoint, err := f.endpoint()
	if err != nil {
		return usageErr("%v", err)
	}
	token, code := f.resolveToken(ctx, stderr)
	if code >= 0 {
		return code
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	ask := &terminalAnswerer{in: bufio.NewReader(term.in), out: stderr, interactive: term.interactive, yes: f.yes, no: f.no}
	c := &client.Client{URL: endpoint, HTTP: term.http, Token: token, Answer: ask,
		Info: mcp.Implementation{Name: "kobana-mcp-call", Title: "kobana-mcp call", Version: version}}
	verb, vargs := rest[0], rest[1:]
	run := callVerbs[verb]
	if run == nil {
		return usageErr("unknown verb %q (tools, tool, resources, read, prompts, prompt, info)", verb)
	}
	code, err = run(ctx, c, vargs, stdout)
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
	if errors.As(err, &he) && he.Status == http.StatusUnauthorized && f.token == "" && f.tokenFile == "" && f.user == "" && os.Getenv("KOBANA_TOKEN") == "" {
		product := f.product
		if product == "" {
			product = "PRODUCT"
		}
		fmt.Fprintf(w, "kobana-mcp call: this endpoint needs a token: add --user EMAIL (a developer token from the data directory), "+
			"or --token \"$(kobana-mcp token --product %s --user EMAIL)\"\n", product)
	}
}
