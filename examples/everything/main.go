// Command everything is an MCP server that implements the fixtures of the
// official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
// conformance/package.json), built on the mcp package and the standard
// library only.
//
// Why it exists: the suite tests a server by calling tools, prompts and
// resources with names it fixes (test_simple_text, test://static-text, …).
// This server provides exactly those, so conformance/run-everything.sh can
// check the mcp package's wire behaviour in both protocol eras — the
// stateless 2026-07-28 revision and the 2025-06-18 / 2025-03-26 handshake
// revisions — without any product code in the way.
//
// It has no authentication (the suite sends no token) and keeps the mcp
// package's default Origin policy, [mcp.LoopbackOrigins], which is what the
// suite's DNS-rebinding scenario expects of a local server.
//
// Usage:
//
//	go run ./examples/everything -addr 127.0.0.1:0
//
// Once listening it prints one line on stdout,
//
//	MCP endpoint: http://127.0.0.1:PORT/mcp
//
// which scripts wait for, and it shuts down on SIGINT or SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
)

// endpointPath is where the MCP endpoint is mounted.
const endpointPath = "/mcp"

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on; port 0 picks a free port")
	flag.Parse()

	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(*addr, logger); err != nil {
		logger.Error("everything: " + err.Error())
		os.Exit(1)
	}
}

// run serves until SIGINT or SIGTERM, then drains in-flight requests.
func run(addr string, logger *slog.Logger) error {
	handler, err := newHandler(logger)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle(endpointPath, handler)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	// The address comes from the listener, so port 0 prints the real port.
	fmt.Printf("MCP endpoint: http://%s%s\n", ln.Addr(), endpointPath)

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return err
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// newHandler assembles the catalog of fixtures. Lists come back in the order
// given here, and the suite relies on some of it: test_simple_text is the
// first tool and test://static-text the first resource.
func newHandler(logger *slog.Logger) (*mcp.Handler, error) {
	return mcp.NewHandler(mcp.Options{
		Name:         "kobana-mcp-everything",
		Title:        "Kobana MCP conformance fixtures",
		Version:      "1.0.0",
		Instructions: "Test fixtures for the MCP conformance suite. Nothing here has side effects.",
		Logger:       logger,
		// The fixtures declare no annotations, so the spec counts them all
		// destructive; the suite expects them to run (the input_required
		// ones ask for their own input), so the server's confirmation step
		// is off here.
		Confirm: mcp.ConfirmOptions{Disabled: true},
	}, mcp.Catalog{
		Tools:             append(tools(), mrtrTools()...),
		Resources:         resources(),
		ResourceTemplates: resourceTemplates(),
		Prompts:           prompts(),
	})
}
