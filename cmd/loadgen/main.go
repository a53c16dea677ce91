// Command loadgen measures an MCP endpoint over loopback HTTP for
// scripts/bench.sh: a closed loop of workers, each sending its next request
// as soon as the previous answer is read, for a fixed time. It prints the
// requests per second and, given the server's process id, the server's CPU
// time per answered request, read from /proc (user + system), which is
// what the benchmark compares across targets (docs/performance.md,
// "Benchmarks", "The signed-in path").
//
//	loadgen -url http://127.0.0.1:8081/mcp -token $T -method tools/list -pid 1234
//	loadgen -floor 127.0.0.1:0 -answer answer.json   # the bare net/http floor
//	loadgen -intake 1000 -c 8 -url http://127.0.0.1:8081/api/v1 -token $T -to ADDRESS -pid 1234
//	loadgen -sdk 127.0.0.1:0                          # the official Go SDK's peer (sdk.go)
//	loadgen -url … -mix server/discover,tools/list,tools/call:emails_list -rss-every 5s -pid 1234
//	loadgen -watch watch.json                         # first refusal after a change (watch.go)
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	url := flag.String("url", "", "the MCP endpoint")
	token := flag.String("token", "", "bearer token (empty: none)")
	method := flag.String("method", "tools/list", "server/discover, tools/list or tools/call")
	tool := flag.String("tool", "", "the tool of tools/call")
	args := flag.String("args", "{}", "the tool's arguments (JSON)")
	workers := flag.Int("c", 16, "workers (requests in flight)")
	dur := flag.Duration("d", 5*time.Second, "how long to measure")
	warm := flag.Duration("warmup", time.Second, "load before measuring")
	pid := flag.Int("pid", 0, "server process id, for its CPU time per request")
	label := flag.String("label", "", "name of the line printed")
	floor := flag.String("floor", "", "serve the bare floor on this address instead: net/http writing -answer")
	answer := flag.String("answer", "", "file holding the floor's captured answer")
	capture := flag.String("capture", "", "send one request and write its answer to this file")
	intakeN := flag.Int("intake", 0, "instead: post this many e-mails to -url (the API base) for -to, then wait until all are processed")
	to := flag.String("to", "", "the inbox address of -intake")
	eml := flag.String("eml", "examples/inbox/boleto.eml", "the e-mail -intake posts")
	timeout := flag.Duration("timeout", 5*time.Minute, "how long -intake waits for processing")
	also := flag.String("also-pids", "", "-intake: comma-separated ids of more processes whose CPU counts (the workers beside serve --jobs=off)")
	protocol := flag.String("protocol", protocol2026, "protocol version of the requests (2025-06-18: no _meta, no Mcp-Method header)")
	mix := flag.String("mix", "", "instead of -method: cycle through these, e.g. server/discover,tools/list,tools/call:emails_list")
	rssEvery := flag.Duration("rss-every", 0, "also sample -pid's resident memory (VmRSS) this often while measuring")
	sdkAddr := flag.String("sdk", "", "serve the official Go SDK's stateless JSON handler with a trivial tool (hello) on this address instead")
	sdkTools := flag.Int("sdk-tools", 1, "-sdk: how many tools it registers (hello, hello_1, …)")
	watchFile := flag.String("watch", "", "instead: the refusal watch described in this JSON file (see watch.go); runs until SIGINT or SIGTERM")
	flag.Parse()
	if *intakeN > 0 {
		pids := []int{*pid}
		for _, f := range strings.Split(*also, ",") {
			if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n > 0 {
				pids = append(pids, n)
			}
		}
		intake(*url, *token, *to, *eml, *intakeN, *workers, pids, *timeout)
		return
	}
	if *floor != "" {
		serveFloor(*floor, *answer)
		return
	}
	if *sdkAddr != "" {
		serveSDK(*sdkAddr, *sdkTools)
		return
	}
	if *watchFile != "" {
		watchMain(*watchFile)
		return
	}
	calls := []call{{URL: *url, Token: *token, Method: *method, Tool: *tool, Args: *args, Protocol: *protocol}}
	if *mix != "" {
		calls = mixCalls(*mix, calls[0])
	}
	client := newClient(*workers)
	senders := make([]*sender, len(calls))
	for i, c := range calls {
		senders[i] = newSender(c, client)
	}
	for _, s := range senders {
		first, err := s.send()
		if err != nil {
			fatal(fmt.Errorf("%s: %w", s.c.Method, err))
		}
		if *capture != "" {
			if err := os.WriteFile(*capture, first, 0o644); err != nil {
				fatal(err)
			}
			return
		}
	}
	var measuring atomic.Bool
	var done, failed atomic.Int64
	var firstErr atomic.Value
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for w := range *workers {
		wg.Go(func() {
			// Worker w starts at its own place in the mix, so every
			// method is in flight at once.
			for i := w; ctx.Err() == nil; i++ {
				_, err := senders[i%len(senders)].send()
				if !measuring.Load() {
					continue
				}
				if err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				done.Add(1)
			}
		})
	}
	time.Sleep(*warm)
	var rss *rssSampler
	if *rssEvery > 0 {
		rss = startRSS(*pid, *rssEvery, &done)
	}
	cpu0 := cpuTime(*pid)
	start := time.Now()
	measuring.Store(true)
	time.Sleep(*dur)
	measuring.Store(false)
	elapsed := time.Since(start)
	cpu1 := cpuTime(*pid)
	n := done.Load()
	var series []rssSample
	if rss != nil {
		series = rss.stop()
	}
	cancel()
	wg.Wait()
	name := *label
	if name == "" {
		name = strings.TrimSpace(*method + " " + *tool)
		if *mix != "" {
			name = "mix " + *mix
		}
	}
	us := "-"
	if *pid > 0 && n > 0 {
		us = strconv.FormatFloat(float64((cpu1-cpu0).Microseconds())/float64(n), 'f', 1, 64)
	}
	out := map[string]any{"target": name, "requests": n, "errors": failed.Load(), "req_per_s": int(float64(n) / elapsed.Seconds()), "cpu_us_per_req": us}
	if e := firstErr.Load(); e != nil {
		out["first_error"] = e
	}
	if series != nil {
		out["rss"] = series
	}
	b, _ := json.Marshal(out)
	fmt.Println(string(b))
}

// mixCalls is the calls of -mix: comma-separated methods, a tools/call
// written tools/call:TOOL (its arguments are -args).
func mixCalls(mix string, base call) []call {
	var calls []call
	for _, m := range strings.Split(mix, ",") {
		c := base
		c.Method, c.Tool, _ = strings.Cut(strings.TrimSpace(m), ":")
		if c.Method != "tools/call" {
			c.Args = ""
		}
		calls = append(calls, c)
	}
	return calls
}

// cpuTime is a process's user + system CPU time from /proc/PID/stat.
func cpuTime(pid int) time.Duration {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// Fields after the command name (in parentheses, which may hold spaces).
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	const hz = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / hz
}

// serveFloor is the bare net/http floor: every POST gets the captured
// answer, with no parsing at all.
func serveFloor(addr, answerFile string) {
	answer, err := os.ReadFile(answerFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
	fmt.Printf("floor: http://%s/mcp\n", ln.Addr())
	_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	}))
}
