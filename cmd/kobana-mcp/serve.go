package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/httpx"
	"github.com/kobana/kobana-mcp/platform/observe"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/productkit/approval"
	"github.com/kobana/kobana-mcp/productkit/toolreg"
)

func serve(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var s settings
	dataDir := s.Add("data-dir", "KOBANA_DATA_DIR", "./data", "where product data and generated secrets live")
	dbURL := s.Add("database-url", "KOBANA_DATABASE_URL", "", databaseURLHelp) // database.go
	only := s.Add("products", "KOBANA_PRODUCTS", productKeys(), "which products to start")
	secrets := s.Add("state-secrets", "KOBANA_STATE_SECRETS", "", "hex secrets sealing MCP requestState, shared by all replicas (first seals); empty: one generated in the data dir")
	logFormat := s.Add("log-format", "KOBANA_LOG_FORMAT", "text", "text (development) or json (production)")
	grace := s.Add("shutdown-grace", "KOBANA_SHUTDOWN_GRACE", "20s", "how long in-flight requests may finish after SIGTERM")
	specs := products()
	pf, productChecks := addProductFlags(&s, specs, true)
	authFlags := addAuthFlags(&s)
	limitFlags := addLimitFlags(&s) // limits.go: rate limits, overload bound
	metricsAddr := s.Add("metrics-addr", "KOBANA_METRICS_ADDR", "", "listen address of the Prometheus metrics endpoint (/metrics), separate from the products; empty: no metrics listener")
	pprofAddr := s.Add("pprof-addr", "KOBANA_PPROF_ADDR", "", "loopback listen address of the Go profiler (/debug/pprof/), for measuring; empty (default): none")
	// memlimit.go: the Go heap's soft limit (GOMEMLIMIT).
	memLimit := s.Add("memory-limit", "KOBANA_MEMORY_LIMIT", "", memoryLimitHelp)
	jf := addJobFlags(&s)     // jobs.go: where background jobs run
	wf := addWebhookFlags(&s) // jobs.go: how every product's webhooks are delivered
	tf := addTraceFlags(&s)   // traces.go: OpenTelemetry traces
	if err := s.Parse("serve", args, stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	// Log lines are written in batches, at most 100 ms apart; a warning
	// or an error at once (observe.LogWriter): one write per request was a
	// tenth of a signed-in read's cost.
	logOut := observe.NewLogWriter(stderr, 0)
	defer logOut.Close()
	stderr = logOut // what serve prints itself stays in order with its log
	var handler slog.Handler = slog.NewTextHandler(logOut, nil)
	if *logFormat == "json" {
		handler = slog.NewJSONHandler(logOut, nil)
	}
	// Every log line written inside a request carries its request id
	// (observe.go); the access log is observe.Instrument's.
	handler = observe.LogHandler{Handler: handler, Buffer: logOut}
	log := slog.New(handler)
	if err := applyMemoryLimit(*memLimit, os.Getenv, cgroupRoot, log); err != nil {
		fmt.Fprintln(stderr, "kobana-mcp:", err)
		return 2
	}
	metrics := observe.NewMetrics()
	if *pprofAddr != "" {
		if err := checkLoopback(*pprofAddr); err != nil {
			fmt.Fprintln(stderr, "kobana-mcp: --pprof-addr:", err)
			return 2
		}
	}
	graceDur, err := time.ParseDuration(*grace)
	if err != nil {
		fmt.Fprintln(stderr, "kobana-mcp: --shutdown-grace:", err)
		return 2
	}
	// Limits (limits.go): rate-limit counters in memory or in Redis, the
	// limit on unauthenticated traffic, the bound on requests in flight.
	lim, err := limitFlags.open(ctx, log)
	if err != nil {
		fmt.Fprintln(stderr, "kobana-mcp:", err)
		if errors.As(err, new(errUnavailable)) {
			return 1
		}
		return 2
	}
	defer lim.store.Close()
	// Storage (database.go): the data directory, the deployment secrets,
	// the database migrated. The demo organization comes once every
	// listener is bound (ensureDemo, below).
	// Traces (traces.go): off unless asked for; flushed as serve exits,
	// after the jobs stopped.
	traces, err := tf.start(ctx, "serve")
	if err != nil {
		fmt.Fprintln(stderr, "kobana-mcp:", err)
		return 2
	}
	defer flushTraces(traces, log)
	tp := traces.TracerProvider()
	sealer, secret, db, code := openDataDir(ctx, *dataDir, *secrets, *dbURL, tp, stderr)
	if code != 0 {
		return code
	}
	defer db.Close()
	// Identity (auth.go): the signing keys every replica shares, and how
	// each product's tokens are verified.
	verify, err := authFlags.verification(ctx, db, secret)
	if err != nil {
		fmt.Fprintln(stderr, "kobana-mcp:", err)
		return 1
	}

	hooks, err := wf.settings()
	if err == nil {
		err = runChecks(productChecks) // each product's own settings
	}
	if err != nil {
		fmt.Fprintln(stderr, "kobana-mcp:", err)
		return 2
	}
	// Background jobs (jobs.go): River on the same database, worked in
	// this process unless --jobs=off.
	queue, err := jf.open(ctx, db, false, tp, log)
	if err != nil {
		fmt.Fprintln(stderr, "kobana-mcp:", err)
		return 1
	}
	if err := metrics.Registry().Register(queue.Collector()); err != nil {
		fmt.Fprintln(stderr, "kobana-mcp:", err)
		return 1
	}

	enabled := map[string]bool{}
	for _, k := range splitList(*only) {
		enabled[k] = true
	}
	type running struct {
		name string
		srv  *http.Server
		ln   net.Listener
		// shutdown stops the product's background work (productkit.Product).
		shutdown func(context.Context) error
	}
	var starts []*productkit.Listener
	// One runner of approved calls on the queue, shared by every product's
	// approval link (productkit/approval Runners): a queue has one worker
	// per job kind.
	approvals := approval.NewRunners(db, queue)
	// Every product's MCP tools, added once it is assembled: what Kadu's
	// executions call in-process (productkit/toolreg).
	tools := toolreg.New()
	endpoints := map[string]string{}
	known := &places{}
	var servers []running
	// ready are the lines that say where each listener is, printed once
	// every one of them is bound and every product started.
	var ready []string
	closeAll := func() {
		for _, r := range servers {
			_ = r.ln.Close()
		}
	}
	for _, spec := range specs {
		if !enabled[spec.Key] {
			continue
		}
		f := pf[spec.Key]
		ln, err := net.Listen("tcp", *f.addr)
		if err != nil {
			closeAll()
			fmt.Fprintf(stderr, "kobana-mcp: %s: %v%s\n", spec.Key, err, httpx.BindHint(err, *f.addr, spec.Key+"-addr"))
			return 1
		}
		public := f.public(ln.Addr().String())
		known.add(spec.Title, spec.Key, public, verify.issuer(public), spec.APIBase)
		// The built-in authorization server shares the product's listener
		// (authserver.go): its issuer is the product's own origin.
		as, err := newAuthServer(spec, public, db, verify, authFlags, lim.oauthLimiters(spec.Key), log)
		if err != nil {
			closeAll()
			fmt.Fprintf(stderr, "kobana-mcp: %s: %v\n", spec.Key, err)
			return 1
		}
		p, err := productkit.Assemble(spec, productkit.Deps{
			DataDir:        filepath.Join(*dataDir, spec.Key),
			PublicURL:      public,
			AllowedOrigins: origins(f.origins),
			States:         sealer,
			Logger:         log.With("product", spec.Key),
			DB:             db,
			Issuer:         verify.issuer(public),
			Keys:           verify.keys,
			Roles:          verify.roles,
			Changes:        verify.changes,
			RateLimits:     lim.product(spec.Key),
			AuthServer:     as,
			Jobs:           queue,
			Approvals:      approvals,
			Secret:         secret,
			Webhooks:       hooks,
			Tools:          tools,
			Places:         known.lookup,
			Tracer:         tp,
		})
		if err == nil {
			err = tools.Add(spec.Key, p.Catalog.Tools)
		}
		if err != nil {
			closeAll()
			fmt.Fprintf(stderr, "kobana-mcp: %s: %v\n", spec.Key, err)
			return 1
		}
		listener := withAuthServer(as, p.Handler)
		// The overload guard and the unauthenticated limit wrap the whole
		// listener; the timeouts are httpx.DefaultTimeouts (header 10 s,
		// request 30 s, response 60 s, idle 120 s, 64 KB of headers).
		// Outermost, the request id, metrics and access log; then the
		// limits; then /healthz and /readyz, outside authentication. The
		// product's error-code style for the refusals comes with every
		// request's context from the server's base context
		// (p.BaseContext).
		checks := []observe.Check{{Name: "database", Ping: db.Ping}, {Name: "jobs", Ping: queue.Ready}}
		if lim.store.Shared() {
			checks = append(checks, observe.Check{Name: "redis", Ping: lim.store.Ping})
		}
		instrumented := observe.Instrument(spec.Key, metrics, log, lim.wrap(observe.Health(checks, listener)))
		srv := httpx.NewServer(instrumented, httpx.DefaultTimeouts, slog.NewLogLogger(handler, slog.LevelWarn))
		srv.BaseContext = p.BaseContext
		servers = append(servers, running{spec.Name, srv, ln, p.Shutdown})
		for _, c := range p.Collectors {
			if err := metrics.Registry().Register(c); err != nil {
				closeAll()
				fmt.Fprintf(stderr, "kobana-mcp: %s: %v\n", spec.Key, err)
				return 1
			}
		}
		if p.Start != nil {
			starts = append(starts, p)
		}
		ready = append(ready, fmt.Sprintf("%s MCP endpoint: %s%s", spec.Name, public, productkit.MCPPath))
		endpoints[spec.Key] = public
	}
	if len(servers) == 0 {
		fmt.Fprintln(stderr, "kobana-mcp: no product to start (see --products)")
		return 2
	}
	// `kobana-mcp token` reads where the products listen (endpoints.go).
	if err := recordEndpoints(*dataDir, endpoints); err != nil {
		log.Warn("could not record the endpoints in the data directory; token needs --<product>-addr", "error", err)
	}
	if *metricsAddr != "" {
		mln, err := net.Listen("tcp", *metricsAddr)
		if err != nil {
			closeAll()
			fmt.Fprintf(stderr, "kobana-mcp: --metrics-addr: %v%s\n", err, httpx.BindHint(err, *metricsAddr, "metrics-addr"))
			return 1
		}
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", metrics.Handler())
		msrv := httpx.NewServer(mux, httpx.DefaultTimeouts, slog.NewLogLogger(handler, slog.LevelWarn))
		servers = append(servers, running{name: "metrics", srv: msrv, ln: mln})
		ready = append(ready, fmt.Sprintf("metrics: http://%s/metrics", mln.Addr()))
	}
	if *pprofAddr != "" {
		pln, err := net.Listen("tcp", *pprofAddr)
		if err != nil {
			closeAll()
			fmt.Fprintf(stderr, "kobana-mcp: --pprof-addr: %v%s\n", err, httpx.BindHint(err, *pprofAddr, "pprof-addr"))
			return 1
		}
		// No write timeout: a CPU profile answers after its seconds.
		psrv := &http.Server{Handler: pprofMux(), ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(handler, slog.LevelWarn)}
		servers = append(servers, running{name: "pprof", srv: psrv, ln: pln})
		ready = append(ready, fmt.Sprintf("pprof: http://%s/debug/pprof/", pln.Addr()))
	}
	// The queue starts working, then the products' own listeners (the
	// Inbox's SMTP intake), before the HTTP listeners serve.
	if err := queue.Start(ctx); err != nil {
		closeAll()
		fmt.Fprintln(stderr, "kobana-mcp: jobs:", err)
		return 1
	}
	for _, p := range starts {
		if err := p.Start(ctx); err != nil {
			closeAll()
			fmt.Fprintln(stderr, "kobana-mcp:", err)
			return 1
		}
		if p.Announce != nil {
			ready = append(ready, p.Announce()...)
		}
	}
	// Every listener is bound and every product started: only now, on the
	// first start, the demo account and its one showing of the password.
	if err := ensureDemo(ctx, db, stdout); err != nil {
		closeAll()
		fmt.Fprintln(stderr, "kobana-mcp:", err)
		return 1
	}
	for _, line := range ready {
		fmt.Fprintln(stdout, line)
	}
	errc := make(chan error, len(servers))
	for _, r := range servers {
		go func() {
			if err := r.srv.Serve(r.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errc <- fmt.Errorf("%s: %w", r.name, err)
			}
		}()
	}
	select {
	case <-ctx.Done():
		log.Info("shutting down", "grace", graceDur)
	case err := <-errc:
		log.Error("listener failed", "error", err)
		closeAll()
		return 1
	}
	// Drain: new requests on kept-alive connections get 503 with
	// Retry-After and Connection: close; Shutdown stops accepting, closes
	// idle connections and waits for requests in flight, every listener
	// at once, for at most the grace period; then each product's
	// background work (Kadu's approved calls running) gets what is left of
	// it.
	lim.guard.Drain()
	sctx, cancel := context.WithTimeout(context.Background(), graceDur)
	defer cancel()
	var failed atomic.Bool
	var wg sync.WaitGroup
	for _, r := range servers {
		wg.Go(func() {
			if err := r.srv.Shutdown(sctx); err != nil {
				log.Error("shutdown: requests still in flight after the grace period; closing their connections", "server", r.name, "error", err)
				_ = r.srv.Close()
				failed.Store(true)
			}
			if r.shutdown != nil {
				if err := r.shutdown(sctx); err != nil {
					log.Error("shutdown: background work still running after the grace period", "server", r.name, "error", err)
					failed.Store(true)
				}
			}
		})
	}
	wg.Wait()
	// Jobs last: the products no longer enqueue; running jobs get what is
	// left of the grace period, and River retries any it had to cut.
	if err := queue.Stop(sctx); err != nil {
		log.Error("shutdown: jobs still running after the grace period", "error", err)
		failed.Store(true)
	}
	if failed.Load() {
		return 1
	}
	log.Info("stopped")
	return 0
}

func origins(list *string) []string {
	if list == nil {
		return nil
	}
	return splitList(*list)
}

// loadSealer builds the requestState sealer (and returns the deployment
// secret other sealed data derives its keys from) from configured secrets, or
// from a secret generated once in the data directory so that restarts keep
// accepting states minted before them.
func loadSealer(configured, dataDir string) (*mcp.StateSealer, []byte, error) {
	secrets, err := stateSecrets(configured)
	if err != nil {
		return nil, nil, fmt.Errorf("--state-secrets: %w", err)
	}
	if len(secrets) == 0 {
		path := filepath.Join(dataDir, "state-secret")
		b, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			secret := make([]byte, 32)
			if _, err := rand.Read(secret); err != nil {
				return nil, nil, err
			}
			b = []byte(hex.EncodeToString(secret))
			if err := os.WriteFile(path, b, 0o600); err != nil {
				return nil, nil, err
			}
		} else if err != nil {
			return nil, nil, err
		}
		if secrets, err = stateSecrets(strings.TrimSpace(string(b))); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	sealer, err := mcp.NewStateSealer(secrets, mcp.StateOptions{})
	return sealer, secrets[0], err
}
