// Command kobana-mcp serves the MCP endpoints of the Kobana products — the
// Autonomous Inbox, Dunning and Kadu — each on its own listener, beside the
// REST API its tools mirror.
//
//	kobana-mcp serve            start every product (embedded defaults)
//	kobana-mcp worker           run background jobs only (scale-out)
//	kobana-mcp migrate          bring the database schema up to date
//	kobana-mcp orgs …           create and list organizations
//	kobana-mcp users …          create users, set their password or role
//	kobana-mcp call …           a terminal MCP client of the products
//	kobana-mcp approvals …      answer an approval link from the terminal
//	kobana-mcp version          print the version
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	tuneGC(os.Getenv) // gc.go
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `kobana-mcp — MCP endpoints of the Kobana products

Usage:
  kobana-mcp serve [flags]   start every product, each on its own listener
  kobana-mcp worker [flags]  run background jobs only, beside serve --jobs=off
  kobana-mcp migrate         bring the database schema up to date
  kobana-mcp orgs ...        create and list organizations (orgs help)
  kobana-mcp users ...       create users, set their password or role (users help)
  kobana-mcp token [flags]   print an access token for a product (token --help)
  kobana-mcp call ...        call a product's MCP tools from the terminal (call --help)
  kobana-mcp approvals ...   answer an approval link from the terminal (approvals help)
  kobana-mcp version         print the version

Run "kobana-mcp serve --help" for the configuration.
`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:], stdout, stderr)
	case "worker":
		return worker(ctx, args[1:], stdout, stderr)
	// The database's operator commands (accounts_cmd.go).
	case "migrate":
		return migrateCmd(ctx, args[1:], stdout, stderr)
	case "orgs":
		return orgsCmd(ctx, args[1:], stdout, stderr)
	case "users":
		return usersCmd(ctx, args[1:], stdout, stderr)
	case "token":
		return tokenCmd(ctx, args[1:], stdout, stderr)
	case "call":
		return callCmd(ctx, args[1:], stdout, stderr) // call_cmd.go
	case "approvals":
		return approvalsCmd(ctx, args[1:], stdout, stderr) // approvals_cmd.go
	case "version", "--version", "-v":
		fmt.Fprintln(stdout, "kobana-mcp", version)
		return 0
	case "help", "--help", "-h":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "kobana-mcp: unknown command %q\n\n%s", args[0], usage)
	return 2
}
