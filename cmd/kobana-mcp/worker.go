package main

import (
	"context"

	"errors"
	"flag"
	"fmt"
	jose "github.com/go-jose/go-jose/v4"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/kobana/kobana-mcp/platform/httpx"
	"github.com/kobana/kobana-mcp/platform/observe"
	"github.com/kobana/kobana-mcp/productkit"
)

// workerKeys is the key source of the worker's assembled listeners, which
// serve nothing: no token is ever verified in a worker.
type workerKeys struct{}

func (workerKeys) Key(context.Context, string) (*jose.JSONWebKey, error) {
	return nil, errors.New("kobana-mcp worker verifies no access tokens")
}

// worker runs background jobs only: no product listener, no SMTP. At scale
// the API replicas run `serve --jobs=off` and any number of workers run
// this beside them on the same PostgreSQL; River hands each job to one of
// them.
func worker(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var s settings
	dataDir := s.Add("data-dir", "KOBANA_DATA_DIR", "./data", "where product data and generated secrets live")
	dbURL := s.Add("database-url", "KOBANA_DATABASE_URL", "", databaseURLHelp)
	only := s.Add("products", "KOBANA_PRODUCTS", productKeys(), "which products' jobs to work")
	secrets := s.Add("state-secrets", "KOBANA_STATE_SECRETS", "", "the deployment secrets, as given to serve (webhook secrets are sealed with the first)")
	logFormat := s.Add("log-format", "KOBANA_LOG_FORMAT", "text", "text (development) or json (production)")
	grace := s.Add("shutdown-grace", "KOBANA_SHUTDOWN_GRACE", "20s", "how long running jobs may finish after SIGTERM")
	metricsAddr := s.Add("metrics-addr", "KOBANA_METRICS_ADDR", "", "listen address of the Prometheus metrics endpoint (/metrics); empty: none")
	memLimit := s.Add("memory-limit", "KOBANA_MEMORY_LIMIT", "", memoryLimitHelp) // memlimit.go
	jf := addJobFlags(&s)
	wf := addWebhookFlags(&s)
	tf := addTraceFlags(&s) // traces.go
	// A worker takes the products' own settings too: their jobs read them
	// (the Inbox's agent provider, say).
	specs := products()
	pf, productChecks := addProductFlags(&s, specs, true)
	if err := s.Parse("worker", args, stderr); err != nil {
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
	if err := applyMemoryLimit(*memLimit, os.Getenv, cgroupRoot, log); err != nil { // memlimit.go
		fmt.Fprintln(stderr, "kobana-mcp:", err)
		return 2
	}
	graceDur, err := time.ParseDuration(*grace)
	if err != nil {
		fmt.Fprintln(stderr, "kobana-mcp: --shutdown-grace:", err)
		return 2
	}
	hooks, err := wf.settings()
	if err == nil {
		err = runChecks(productChecks)
	}
	if err != nil {
		fmt.Fprintln(stderr, "kobana-mcp:", err)
		return 2
	}
	traces, err := tf.start(ctx, "worker")
	if err != nil {
		fmt.Fprintln(stderr, "kobana-mcp:", err)
		return 2
	}
	defer flushTraces(traces, log) // after the jobs stopped
	tp := traces.TracerProvider()
	_, secret, db, code := openDataDir(ctx, *dataDir, *secrets, *dbURL, tp, stderr)
	if code != 0 {
		return code
	}
	defer db.Close()
	*jf.mode = "in-process" // a worker works, whatever the shared environment says
	queue, err := jf.open(ctx, db, true, tp, log)
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
	// Each product registers its job workers and periodic jobs from its
	// spec, exactly as serve does (headless.go).
	var enabledSpecs []*productkit.Spec
	public := map[string]string{}
	for _, spec := range specs {
		if enabled[spec.Key] {
			enabledSpecs = append(enabledSpecs, spec)
			public[spec.Key] = pf[spec.Key].public(*pf[spec.Key].addr)
		}
	}
	listeners, closeProducts, err := headless{DataDir: *dataDir, DB: db, Queue: queue, Secret: secret, Hooks: hooks, Log: log, Public: public, Tracer: tp}.assemble(ctx, enabledSpecs)
	if err != nil {
		fmt.Fprintf(stderr, "kobana-mcp: %v\n", err)
		return 1
	}
	defer closeProducts()
	for _, p := range listeners {
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
