package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"github.com/kobana/kobana-mcp/platform/httpx"
	"github.com/kobana/kobana-mcp/platform/observe"
	"github.com/kobana/kobana-mcp/productkit"
)

// worker runs background jobs only: no product listener, no SMTP. At scale
// the API replicas run `serve --jobs=off` and any number of workers run
// this beside them on the same PostgreSQL; River hands each job to one of
// them.
func worker(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var s settings
	dataDir := s.add("data-dir", "KOBANA_DATA_DIR", "./data", "where product data and generated secrets live")
	dbURL := s.add("database-url", "KOBANA_DATABASE_URL", "", databaseURLHelp)
	only := s.add("products", "KOBANA_PRODUCTS", "inbox,dunning,kadu", "which products' jobs to work")
	secrets := s.add("state-secrets", "KOBANA_STATE_SECRETS", "", "the deployment secrets, as given to serve (webhook secrets are sealed with the first)")
	logFormat := s.add("log-format", "KOBANA_LOG_FORMAT", "text", "text (development) or json (production)")
	grace := s.add("shutdown-grace", "KOBANA_SHUTDOWN_GRACE", "20s", "how long running jobs may finish after SIGTERM")
	metricsAddr := s.add("metrics-addr", "KOBANA_METRICS_ADDR", "", "listen address of the Prometheus metrics endpoint (/metrics); empty: none")
	jf := addJobFlags(&s)
	inf := addInboxFlags(&s)
	if err := s.parse("worker", args, stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	var handler slog.Handler = slog.NewTextHandler(stderr, nil)
	if *logFormat == "json" {
		handler = slog.NewJSONHandler(stderr, nil)
	}
	log := slog.New(handler)
	graceDur, err := time.ParseDuration(*grace)
	if err != nil {
		fmt.Fprintln(stderr, "kobana-mcp: --shutdown-grace:", err)
		return 2
	}
	inboxCfg, err := inf.config()
	if err != nil {
		fmt.Fprintln(stderr, "kobana-mcp:", err)
		return 2
	}
	_, secret, db, code := openDataDir(ctx, *dataDir, *secrets, *dbURL, stdout, stderr)
	if code != 0 {
		return code
	}
	defer db.Close()
	*jf.mode = "in-process" // a worker works, whatever the shared environment says
	queue, err := jf.open(ctx, db, true, log)
	if err != nil {
		fmt.Fprintln(stderr, "kobana-mcp:", err)
		return 1
	}
	metrics := observe.NewMetrics()
	_ = metrics.Registry().Register(queue.Collector())
	enabled := map[string]bool{}
	for _, k := range splitList(*only) {
		enabled[k] = true
	}
	// Building a product registers its job workers; its HTTP handler and
	// listeners stay unused here.
	for _, spec := range products {
		if !enabled[spec.key] {
			continue
		}
		p, err := spec.new(productkit.Deps{DataDir: filepath.Join(*dataDir, spec.key), Logger: log.With("product", spec.key), DB: db, Jobs: queue, Secret: secret, Config: productConfig(spec.key, inboxCfg)})
		if err != nil {
			fmt.Fprintf(stderr, "kobana-mcp: %s: %v\n", spec.key, err)
			return 1
		}
		for _, c := range p.Collectors {
			_ = metrics.Registry().Register(c)
		}
	}
	if err := queue.Start(ctx); err != nil {
		fmt.Fprintln(stderr, "kobana-mcp: jobs:", err)
		return 1
	}
	fmt.Fprintln(stdout, "kobana-mcp worker: working jobs")
	var msrv *http.Server
	if *metricsAddr != "" {
		mln, err := net.Listen("tcp", *metricsAddr)
		if err != nil {
			fmt.Fprintln(stderr, "kobana-mcp: --metrics-addr:", err)
			return 1
		}
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", metrics.Handler())
		mux.Handle("GET /readyz", observe.Health([]observe.Check{{Name: "database", Ping: db.Ping}, {Name: "jobs", Ping: queue.Ready}}, http.NotFoundHandler()))
		msrv = httpx.NewServer(mux, httpx.DefaultTimeouts, slog.NewLogLogger(handler, slog.LevelWarn))
		go func() { _ = msrv.Serve(mln) }()
		fmt.Fprintf(stdout, "metrics: http://%s/metrics\n", mln.Addr())
	}
	<-ctx.Done()
	log.Info("worker shutting down", "grace", graceDur)
	sctx, cancel := context.WithTimeout(context.Background(), graceDur)
	defer cancel()
	if msrv != nil {
		_ = msrv.Shutdown(sctx)
	}
	if err := queue.Stop(sctx); err != nil {
		log.Error("shutdown: jobs still running after the grace period", "error", err)
		return 1
	}
	log.Info("stopped")
	return 0
}
