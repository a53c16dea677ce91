package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
)

// pprofMux serves the Go runtime's profiles (net/http/pprof) for
// --pprof-addr. It is off by default and only ever listens on a loopback
// address: a CPU profile or a heap dump reveals request data and costs CPU,
// so it is an operator's tool on the host, never an endpoint
// (docs/performance.md, "Benchmarks", "The signed-in path"; docs/decisions.md,
// "Performance of the signed-in path").
func pprofMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	return mux
}

// checkLoopback refuses a listen address whose host is not a loopback IP
// (127.0.0.0/8, ::1) or "localhost"; an empty host would listen on every
// interface.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%q is not a loopback address (use 127.0.0.1:PORT or [::1]:PORT)", addr)
	}
	return nil
}
