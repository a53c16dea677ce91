// Command approval is a test server for the approval link of destructive
// MCP tools (productkit/approval): one product listener with a real SQLite
// database, the real built-in authorization server (sign-in page and
// sessions), the approval policy and pages, a real MCP endpoint that
// verifies real access tokens, and a test catalog with two destructive
// tools: projects_delete, that only counts its runs, and projects_export,
// whose answer only queues an export the page then follows (approvaltest).
//
// It exists for the headless-Chromium test e2e/approval.test.mjs, which
// starts it, asks for a call through the MCP endpoint, and approves it on
// the page. It is not a product: its test-only endpoints mint tokens and
// report the run counts.
//
// Usage:
//
//	go run ./examples/approval -addr 127.0.0.1:0 [-approval-ttl 10m] [-data-dir DIR]
//
// Once listening it prints, on stdout,
//
//	approval test server: http://127.0.0.1:PORT
//	owner: ana@demo.local password: …
//	other: bruno@demo.local password: …
//
// and serves, besides /mcp, the pages and the authorization server:
//
//	GET /test/token?as=owner|other   an access token for /mcp (text)
//	GET /test/runs                   {"alpha": 1, …}: runs of projects_delete
//	GET /test/exports/{id}           {"export_id","status"}: where an export stands
//	POST /test/exports/{id}?state=S  moves it (queued, running, succeeded, failed…)
//
// It shuts down on SIGINT or SIGTERM, waiting for runs in progress.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/productkit/approval"
	"github.com/kobana/kobana-mcp/productkit/approval/approvaltest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on; port 0 picks a free port")
	ttl := flag.Duration("approval-ttl", 10*time.Minute, "how long an approval waits for Continuar")
	dataDir := flag.String("data-dir", "", "where the SQLite database goes (default: a temporary directory, removed at exit)")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(*addr, *ttl, *dataDir, logger); err != nil {
		logger.Error("approval test server: " + err.Error())
		os.Exit(1)
	}
}

func run(addr string, ttl time.Duration, dataDir string, logger *slog.Logger) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if dataDir == "" {
		dir, err := os.MkdirTemp("", "kobana-approval-test-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		dataDir = dir
	}
	db, err := store.Open(ctx, "sqlite:"+filepath.Join(dataDir, "approval-test.db"))
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Migrate(ctx, productkit.FrameworkMigrations()...); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	public := "http://" + ln.Addr().String()
	srv, err := approvaltest.New(ctx, db, public, approvaltest.Options{TTL: ttl, Logger: logger})
	if err != nil {
		return err
	}
	people := map[string]accounts.User{"owner": srv.Owner, "other": srv.Other}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /test/token", func(w http.ResponseWriter, r *http.Request) {
		u, ok := people[r.URL.Query().Get("as")]
		if !ok {
			http.Error(w, "as=owner or as=other", http.StatusBadRequest)
			return
		}
		tok, err := srv.Token(u, srv.Org.ID)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, tok)
	})
	mux.HandleFunc("GET /test/runs", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(srv.Projects.AllRuns())
	})
	mux.HandleFunc("GET "+approvaltest.ExportFollowPath+"{id}", exports{srv.Projects}.show)
	mux.HandleFunc("POST "+approvaltest.ExportFollowPath+"{id}", exports{srv.Projects}.move)
	mux.Handle("/", srv.Handler)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	fmt.Printf("approval test server: %s\n", public)
	fmt.Printf("owner: %s password: %s\n", approvaltest.OwnerEmail, approvaltest.OwnerPassword)
	fmt.Printf("other: %s password: %s\n", approvaltest.OtherEmail, approvaltest.OtherPassword)

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return err
	}
	if err := srv.Policy.Close(sctx); err != nil {
		return err
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// exports are the test endpoints of projects_export's exports.
type exports struct{ p *approvaltest.Projects }

// show is GET /test/exports/{id}: where the export stands.
func (e exports) show(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	state := e.p.Export(id)
	if state == "" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]string{"export_id": id, "status": string(state)})
}

// move is POST /test/exports/{id}?state=S.
func (e exports) move(w http.ResponseWriter, r *http.Request) {
	if !e.p.SetExport(r.PathValue("id"), approval.WorkState(r.URL.Query().Get("state"))) {
		http.NotFound(w, r)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
