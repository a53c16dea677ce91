package httpx_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/httpx"
)

// serve runs h on a loopback listener with the default timeouts and
// returns its base URL and server.
func serve(t *testing.T, h http.Handler, timeouts httpx.Timeouts) (string, *http.Server) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httpx.NewServer(h, timeouts, nil)
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close(); <-done })
	return "http://" + ln.Addr().String(), srv
}

type rpcError struct {
	JSONRPC string `json:"jsonrpc"`
	ID      any    `json:"id"`
	Error   struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// TestGuardRefusesPastTheBound fires bound+N requests at a handler that
// blocks: exactly N are refused at once with 503, Retry-After and a
// JSON-RPC error (-31003, id null); the others all succeed when released,
// and no goroutine is left behind.
func TestGuardRefusesPastTheBound(t *testing.T) {
	// Not parallel: it counts the process's goroutines, which parallel tests
	// would change.
	const bound, extra = 8, 5
	before := runtime.NumGoroutine()
	g := httpx.NewGuard(bound, 2*time.Second)
	release := make(chan struct{})
	var entered atomic.Int32
	base, srv := serve(t, g.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered.Add(1)
		<-release
		_, _ = io.WriteString(w, "done")
	})), httpx.DefaultTimeouts)

	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 0, MaxIdleConnsPerHost: bound + extra}}
	type answer struct {
		status  int
		body    string
		retry   string
		elapsed time.Duration
		err     error
	}
	answers := make(chan answer, bound+extra)
	var wg sync.WaitGroup
	send := func() {
		defer wg.Done()
		start := time.Now()
		resp, err := client.Post(base+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if err != nil {
			answers <- answer{err: err}
			return
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		answers <- answer{resp.StatusCode, string(b), resp.Header.Get("Retry-After"), time.Since(start), err}
	}
	// Fill the bound first, so which requests are refused is certain.
	for range bound {
		wg.Add(1)
		go send()
	}
	waitFor(t, func() bool { return entered.Load() == bound })
	for range extra {
		wg.Add(1)
		go send()
	}
	for range extra {
		a := <-answers
		var e rpcError
		if a.err != nil || a.status != 503 || a.retry != "2" || json.Unmarshal([]byte(a.body), &e) != nil ||
			e.Error.Code != mcp.CodeUnavailable || e.ID != nil || e.JSONRPC != "2.0" {
			t.Fatalf("past the bound: %+v", a)
		}
		if a.elapsed > 2*time.Second {
			t.Fatalf("the refusal took %v: it queued", a.elapsed)
		}
	}
	if g.InFlight() != bound || g.Refused() != extra {
		t.Fatalf("in flight %d, refused %d", g.InFlight(), g.Refused())
	}
	close(release)
	wg.Wait()
	close(answers)
	for a := range answers {
		if a.err != nil || a.status != 200 || a.body != "done" {
			t.Fatalf("within the bound: %+v", a)
		}
	}
	if g.InFlight() != 0 {
		t.Fatalf("in flight after all answered: %d", g.InFlight())
	}
	client.CloseIdleConnections()
	_ = srv.Close()
	waitFor(t, func() bool { return runtime.NumGoroutine() <= before+2 })
}

// TestRefuseShapes: the MCP endpoint gets a JSON-RPC error with the MCP
// headers; other paths the APIs' JSON error.
func TestRefuseShapes(t *testing.T) {
	t.Parallel()
	base, _ := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		status := http.StatusServiceUnavailable
		if r.URL.Query().Get("s") == "429" {
			status = http.StatusTooManyRequests
		}
		httpx.Refuse(w, r, status, 1500*time.Millisecond, "no")
	}), httpx.DefaultTimeouts)
	for _, c := range []struct {
		path, protocol string
		status         int
		want           string
	}{
		{"/mcp", "", 503, `{"jsonrpc":"2.0","id":null,"error":{"code":-31003,"message":"no"}}`},
		{"/mcp?s=429", "2026-07-28", 429, `{"jsonrpc":"2.0","id":null,"error":{"code":-31029,"message":"no"}}`},
		{"/api/v1/x", "", 503, `{"error":{"code":"unavailable","message":"no"}}`},
		{"/v1/x?s=429", "", 429, `{"error":{"code":"rate_limited","message":"no"}}`},
	} {
		req, _ := http.NewRequest("POST", base+c.path, nil)
		if c.protocol != "" {
			req.Header.Set("MCP-Protocol-Version", c.protocol)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || string(b) != c.want || resp.Header.Get("Retry-After") != "2" ||
			resp.Header.Get("Cache-Control") != "no-store" || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("%s: %d %v %s", c.path, resp.StatusCode, resp.Header, b)
		}
		if strings.HasPrefix(c.path, "/mcp") {
			want := c.protocol
			if want == "" {
				want = "2025-06-18"
			}
			if resp.Header.Get("MCP-Protocol-Version") != want {
				t.Fatalf("%s: MCP-Protocol-Version %q", c.path, resp.Header.Get("MCP-Protocol-Version"))
			}
		}
	}
}

// TestRefusalsSpeakTheListenersCodes: behind WithErrorCodes the guard's
// overload and drain refusals carry the listener's spelling of the code
// (the MCP endpoint keeps JSON-RPC); without it, the canonical code.
func TestRefusalsSpeakTheListenersCodes(t *testing.T) {
	t.Parallel()
	g := httpx.NewGuard(1, time.Second)
	release := make(chan struct{})
	inside := make(chan struct{}, 1)
	busy := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/block" {
			inside <- struct{}{}
			<-release
		}
	})
	mux := http.NewServeMux()
	mux.Handle("/upper/", http.StripPrefix("/upper", httpx.WithErrorCodes(g.Wrap(busy), strings.ToUpper)))
	mux.Handle("/", g.Wrap(busy))
	base, _ := serve(t, mux, httpx.DefaultTimeouts)
	go func() {
		resp, err := http.Get(base + "/block")
		if err == nil {
			resp.Body.Close()
		}
	}()
	<-inside
	get := func(path string) (int, string) {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for path, want := range map[string]string{
		"/upper/v1/x": `"code":"UNAVAILABLE"`,
		"/v1/x":       `"code":"unavailable"`,
		"/upper/mcp":  `"code":-31003`,
	} {
		if code, body := get(path); code != 503 || !strings.Contains(body, want) {
			t.Errorf("overloaded %s: %d %s", path, code, body)
		}
	}
	close(release)
	waitFor(t, func() bool { return g.InFlight() == 0 })
	g.Drain()
	if code, body := get("/upper/v1/x"); code != 503 || !strings.Contains(body, `"code":"UNAVAILABLE"`) || !strings.Contains(body, "shutting down") {
		t.Errorf("draining: %d %s", code, body)
	}
}

// TestShutdownUnderLoadLosesNoAcceptedRequest keeps a steady load of
// concurrent requests on a guarded server whose handler takes a while and
// writes its answer in pieces, then drains and shuts it down as serve
// does on SIGTERM. Every request that got response headers got its whole
// answer — 200 from the handler or 503 from the drain — and none was cut
// mid-response; the requests in flight at the signal all finished.
func TestShutdownUnderLoadLosesNoAcceptedRequest(t *testing.T) {
	t.Parallel()
	g := httpx.NewGuard(64, time.Second)
	var started, finished atomic.Int32
	base, srv := serve(t, g.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started.Add(1)
		defer finished.Add(1)
		w.Header().Set("Content-Type", "text/plain")
		for i := range 5 {
			fmt.Fprintf(w, "part %d;", i)
			http.NewResponseController(w).Flush()
			time.Sleep(20 * time.Millisecond)
		}
		_, _ = io.WriteString(w, "end")
	})), httpx.DefaultTimeouts)

	const workers = 16
	const complete = "part 0;part 1;part 2;part 3;part 4;end"
	var ok200, drained503, refusedBeforeHeaders atomic.Int32
	var broken []string
	var mu sync.Mutex
	stop := make(chan struct{})
	var wg sync.WaitGroup
	transport := &http.Transport{MaxIdleConnsPerHost: workers}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, Timeout: 10 * time.Second}
	for range workers {
		wg.Go(func() {
			for i := 0; i < 500; i++ {
				select {
				case <-stop:
					return
				default:
				}
				resp, err := client.Get(base + "/work")
				if err != nil {
					// No response header: the request was never accepted
					// (the listener closed, or an idle connection was
					// closed under it).
					refusedBeforeHeaders.Add(1)
					time.Sleep(5 * time.Millisecond)
					continue
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				mu.Lock()
				switch {
				case err != nil:
					broken = append(broken, fmt.Sprintf("%d cut mid-response: %v after %q", resp.StatusCode, err, b))
				case resp.StatusCode == 200 && string(b) == complete:
					ok200.Add(1)
				case resp.StatusCode == 503 && strings.Contains(string(b), `"unavailable"`) && resp.Header.Get("Retry-After") != "":
					drained503.Add(1)
				default:
					broken = append(broken, fmt.Sprintf("%d %q", resp.StatusCode, b))
				}
				mu.Unlock()
			}
		})
	}
	waitFor(t, func() bool { return ok200.Load() >= 3*workers })
	inFlightAtSignal := started.Load() - finished.Load()
	g.Drain()
	// Some time in drain mode before the listener closes, as when a load
	// balancer is still sending: those requests get 503.
	waitFor(t, func() bool { return drained503.Load() >= workers })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	close(stop)
	wg.Wait()
	if len(broken) > 0 {
		t.Fatalf("%d answers broken, first: %s", len(broken), broken[0])
	}
	if started.Load() != finished.Load() {
		t.Fatalf("%d handlers started, %d finished", started.Load(), finished.Load())
	}
	if inFlightAtSignal == 0 || drained503.Load() == 0 {
		t.Fatal("no request was in flight at the signal; the test proved nothing")
	}
	t.Logf("200: %d, 503 while draining: %d, not accepted: %d, in flight at the signal: %d",
		ok200.Load(), drained503.Load(), refusedBeforeHeaders.Load(), inFlightAtSignal)
}

// TestDrainClosesKeptAliveConnections: after Drain, a request on a
// connection kept alive from before gets 503 with Retry-After and
// Connection: close, and the server closes that connection.
func TestDrainClosesKeptAliveConnections(t *testing.T) {
	t.Parallel()
	g := httpx.NewGuard(4, 3*time.Second)
	base, _ := serve(t, g.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok")
	})), httpx.DefaultTimeouts)
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	get := func() *http.Response {
		t.Helper()
		fmt.Fprintf(conn, "GET /api/v1/x HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp
	}
	if resp := get(); resp.StatusCode != 200 || resp.Close {
		t.Fatalf("before the drain: %d close=%v", resp.StatusCode, resp.Close)
	}
	g.Drain()
	resp := get()
	if resp.StatusCode != 503 || !resp.Close || resp.Header.Get("Retry-After") != "3" {
		t.Fatalf("after the drain: %d close=%v %v", resp.StatusCode, resp.Close, resp.Header)
	}
	_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
		t.Fatalf("the connection stayed open after Connection: close: %v", err)
	}
}

// TestDefaultTimeoutsAreSensible: every bound is set, headers come well
// before the body, the answer may take longer than reading the request.
func TestDefaultTimeoutsAreSensible(t *testing.T) {
	t.Parallel()
	d := httpx.DefaultTimeouts
	if d.ReadHeader <= 0 || d.ReadHeader > 15*time.Second || d.Read < d.ReadHeader || d.Read > time.Minute ||
		d.Write <= d.Read || d.Write > 2*time.Minute || d.Idle <= 0 || d.Idle > 5*time.Minute ||
		d.MaxHeaderBytes < 8<<10 || d.MaxHeaderBytes > 1<<20 {
		t.Fatalf("default timeouts: %+v", d)
	}
	srv := httpx.NewServer(http.NotFoundHandler(), d, nil)
	if srv.ReadHeaderTimeout != d.ReadHeader || srv.ReadTimeout != d.Read || srv.WriteTimeout != d.Write || srv.IdleTimeout != d.Idle || srv.MaxHeaderBytes != d.MaxHeaderBytes {
		t.Fatalf("NewServer did not apply them: %+v", srv)
	}
}

// TestTimeoutsCutSlowClients shortens the timeouts and plays the slow
// clients they guard against: headers sent a byte at a time, a body that
// never ends, a connection left idle, headers too large.
func TestTimeoutsCutSlowClients(t *testing.T) {
	t.Parallel()
	short := httpx.Timeouts{ReadHeader: 300 * time.Millisecond, Read: 600 * time.Millisecond, Write: 2 * time.Second, Idle: 400 * time.Millisecond, MaxHeaderBytes: 4 << 10}
	base, _ := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		_, _ = io.WriteString(w, "ok")
	}), short)
	addr := strings.TrimPrefix(base, "http://")
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	// closedWithin reads until the server closes the connection.
	closedWithin := func(c net.Conn, limit time.Duration) time.Duration {
		t.Helper()
		start := time.Now()
		_ = c.SetReadDeadline(time.Now().Add(limit))
		_, err := io.Copy(io.Discard, c)
		if err != nil && !errors.Is(err, io.EOF) && !strings.Contains(err.Error(), "reset") {
			t.Fatalf("the server did not close the connection within %v: %v", limit, err)
		}
		return time.Since(start)
	}

	// Slowloris: the request line, then nothing.
	c := dial()
	fmt.Fprintf(c, "POST /x HTTP/1.1\r\nHost: x\r\n")
	if took := closedWithin(c, 3*time.Second); took > 1500*time.Millisecond {
		t.Fatalf("slow headers held the connection %v", took)
	}
	// A body that never arrives in full.
	c = dial()
	fmt.Fprintf(c, "POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc")
	if took := closedWithin(c, 3*time.Second); took > 2*time.Second {
		t.Fatalf("a slow body held the connection %v", took)
	}
	// An idle kept-alive connection.
	c = dial()
	fmt.Fprintf(c, "GET /x HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("a normal request: %v %v", resp, err)
	}
	if took := closedWithin(c, 3*time.Second); took > 2*time.Second {
		t.Fatalf("an idle connection stayed open %v", took)
	}
	// Headers over MaxHeaderBytes.
	req, _ := http.NewRequest("GET", base+"/x", nil)
	req.Header.Set("X-Big", strings.Repeat("a", 16<<10))
	r2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r2.Body.Close()
	if r2.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("huge headers: %d", r2.StatusCode)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
