package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/oauth/server"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/ratelimit/ratelimittest"
)

// childEnv is the environment without the KOBANA_ settings of whoever runs
// the tests.
func childEnv() []string {
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "KOBANA_") {
			env = append(env, e)
		}
	}
	return env
}

// replica is one `kobana-mcp serve` process.
type replica struct {
	addr   string
	cmd    *exec.Cmd
	stderr *syncWriter
	// exited is closed when the process has been waited for; waitErr is
	// then its exit error.
	exited  chan struct{}
	waitErr error
}

// startReplica starts serve on addr and waits until it has printed its
// endpoint. freePort's port is free when chosen, not when serve binds it: with
// many tests at once another may take it first, so a serve that stops
// because its port is taken is started again, up to twice, on a port chosen
// anew (r.addr says which).
func startReplica(t *testing.T, bin, addr string, args ...string) *replica {
	t.Helper()
	for try := 1; ; try++ {
		r := startReplicaOn(t, bin, addr, args...)
		if r != nil {
			return r
		}
		if try == 3 {
			t.Fatalf("serve stopped three times on a port another test took (the last %s)", addr)
		}
		addr = freePort(t)
	}
}

// startReplicaOn is one try of startReplica: the replica, or nil when
// serve stopped because its port was taken (any other failure fails t).
func startReplicaOn(t *testing.T, bin, addr string, args ...string) *replica {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--products", "inbox", "--inbox-addr", addr, "--inbox-smtp-addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = childEnv()
	r := &replica{addr: addr, cmd: cmd, stderr: &syncWriter{}, exited: make(chan struct{})}
	cmd.Stderr = r.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan bool, 1)
	go func() {
		lines := bufio.NewScanner(stdout)
		found := false
		for lines.Scan() {
			if !found && strings.Contains(lines.Text(), " MCP endpoint: ") {
				found = true
				ready <- true
			}
		}
		if !found {
			ready <- false
		}
	}()
	go func() { r.waitErr = cmd.Wait(); close(r.exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // an error when it already exited
		<-r.exited
	})
	select {
	case ok := <-ready:
		if !ok {
			<-r.exited // its standard error is whole once it was waited for
			log := r.stderr.String()
			if strings.Contains(log, "address already in use") {
				t.Logf("serve on %s: the port was taken by another test; trying another", addr)
				return nil
			}
			t.Fatalf("serve on %s stopped before printing its endpoint: %s", addr, log)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("serve on %s printed no endpoint: %s", addr, r.stderr.String())
	}
	return r
}

// stop sends SIGTERM and expects exit status 0.
func (r *replica) stop(t *testing.T) {
	t.Helper()
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.exited:
		if err := r.waitErr; err != nil {
			t.Fatalf("serve on %s after SIGTERM: %v\n%s", r.addr, err, r.stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("serve on %s did not exit after SIGTERM", r.addr)
	}
}

// TestRateLimitsSharedAcrossReplicas starts two serve processes on one
// database and one Redis, as two replicas behind a load balancer (one
// public URL), and alternates requests between them: the per-token limit
// and then the per-organization limit hold across both, the headers count
// down from one replica to the other, and the refusal is 429 with
// Retry-After and a JSON-RPC error -31029. Both exit 0 on SIGTERM.
func TestRateLimitsSharedAcrossReplicas(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and starts the binary")
	}
	redisURL, prefix := ratelimittest.Redis(t)
	bin := buildBinary(t)
	dataDir := t.TempDir()
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	const public = "http://inbox.replicas.test"
	common := []string{"--data-dir", dataDir, "--state-secrets", hex.EncodeToString(secret), "--inbox-public-url", public,
		"--redis-url", redisURL, "--redis-prefix", prefix, "--rate-limits", "reads=5-M,org-reads=8-M"}
	// One after the other: the first creates the database and the demo
	// account.
	a := startReplica(t, bin, freePort(t), common...)
	b := startReplica(t, bin, freePort(t), common...)

	cmdOut := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = childEnv()
		out, err := cmd.Output()
		if err != nil {
			var stderr []byte
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = ee.Stderr
			}
			t.Fatalf("%v: %v %s", args, err, stderr)
		}
		return strings.TrimSpace(string(out))
	}
	cmdOut("users", "create", "--data-dir", dataDir, "--org", "Demo Company", "--email", "bia@demo.local", "--role", "member")
	token := func(email string) string {
		return cmdOut("token", "--data-dir", dataDir, "--state-secrets", hex.EncodeToString(secret), "--product", "inbox",
			"--inbox-public-url", public, "--user", email)
	}
	ana, bia := token(accounts.DemoOwnerEmail), token("bia@demo.local")

	type answer struct {
		status               int
		limit, remaining     int
		reset                int64
		retryAfter, rpcError int
	}
	call := func(r *replica, tok string) answer {
		t.Helper()
		req, _ := http.NewRequest("POST", "http://"+r.addr+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body struct {
			Error *struct{ Code int } `json:"error"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatal(err)
		}
		var ans answer
		ans.status = resp.StatusCode
		ans.limit, _ = strconv.Atoi(resp.Header.Get("X-RateLimit-Limit"))
		ans.remaining, _ = strconv.Atoi(resp.Header.Get("X-RateLimit-Remaining"))
		ans.reset, _ = strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64)
		ans.retryAfter, _ = strconv.Atoi(resp.Header.Get("Retry-After"))
		if body.Error != nil {
			ans.rpcError = body.Error.Code
		}
		if resp.Header.Get("X-RateLimit-Limit") == "" || resp.Header.Get("X-RateLimit-Remaining") == "" || ans.reset < time.Now().Unix() || ans.reset > time.Now().Unix()+62 {
			t.Fatalf("replica %s: rate limit headers %v", r.addr, resp.Header)
		}
		return ans
	}
	replicas := []*replica{a, b}

	// Ana's token: 5 reads across both replicas, counting down.
	for i := range 5 {
		got := call(replicas[i%2], ana)
		if got.status != 200 || got.limit != 5 || got.remaining != 4-i {
			t.Fatalf("ana's read %d on replica %d: %+v", i+1, i%2, got)
		}
	}
	got := call(b, ana)
	if got.status != 429 || got.limit != 5 || got.remaining != 0 || got.retryAfter < 1 || got.retryAfter > 61 || got.rpcError != mcp.CodeRateLimited {
		t.Fatalf("ana's 6th read: %+v", got)
	}
	if got := call(a, ana); got.status != 429 {
		t.Fatalf("ana's 7th read on the other replica: %+v", got)
	}
	// The organization has used 5 of its 8: Bia's token has 5 of its own,
	// the organization 3 left, and the headers show the tighter.
	for i := range 3 {
		got := call(replicas[i%2], bia)
		if got.status != 200 || got.limit != 8 || got.remaining != 2-i {
			t.Fatalf("bia's read %d on replica %d: %+v", i+1, i%2, got)
		}
	}
	if got := call(b, bia); got.status != 429 || got.limit != 8 || got.rpcError != mcp.CodeRateLimited {
		t.Fatalf("bia over the organization's limit: %+v", got)
	}
	keys := ratelimittest.Keys(t, ratelimittest.Client(t), prefix)
	if len(keys) < 3 {
		t.Fatalf("Redis keys under %s: %v", prefix, keys)
	}
	a.stop(t)
	b.stop(t)
}

// TestOAuthLimitsShareTheStore: with Redis configured, the authorization
// server's limits (sign-in, registration, token, metadata fetches) count
// in it, so two replicas share one allowance.
func TestOAuthLimitsShareTheStore(t *testing.T) {
	t.Parallel()
	redisURL, prefix := ratelimittest.Redis(t)
	open := func() *limits {
		var s settings
		f := addLimitFlags(&s)
		if err := s.Parse("serve", []string{"--redis-url", redisURL, "--redis-prefix", prefix}, io.Discard); err != nil {
			t.Fatal(err)
		}
		l, err := f.open(context.Background(), slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.store.Close() })
		return l
	}
	one := open().oauthLimiters("inbox")("sign-in-email", server.Limit{Every: time.Minute, Burst: 3})
	two := open().oauthLimiters("inbox")("sign-in-email", server.Limit{Every: time.Minute, Burst: 3})
	ctx := context.Background()
	if !one.Allow(ctx, "ana@x") || !two.Allow(ctx, "ana@x") || one.Exhausted(ctx, "ana@x") {
		t.Fatal("the first two failures")
	}
	if !one.Allow(ctx, "ana@x") || !two.Exhausted(ctx, "ana@x") || two.Allow(ctx, "ana@x") {
		t.Fatal("the third failure exhausts the allowance on both replicas")
	}
	if two.Exhausted(ctx, "bia@x") {
		t.Fatal("another key")
	}
	for _, k := range ratelimittest.Keys(t, ratelimittest.Client(t), prefix) {
		if strings.Contains(k, "ana@x") {
			t.Fatalf("an e-mail address in a Redis key: %s", k)
		}
	}
	// Without Redis the server keeps its own in-memory buckets.
	var s settings
	f := addLimitFlags(&s)
	_ = s.Parse("serve", nil, io.Discard)
	l, err := f.open(context.Background(), slog.New(slog.DiscardHandler))
	if err != nil || l.oauthLimiters("inbox") != nil {
		t.Fatalf("memory store: %v", err)
	}
}

// TestLimitSettings: bad values are usage errors (exit 2); an unreachable
// Redis is a failure to start (exit 1).
func TestLimitSettings(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--rate-limits", "reads=ten-M"}, 2, "--rate-limits"},
		{[]string{"--kadu-rate-limits", "deletes=1-M"}, 2, "--kadu-rate-limits"},
		{[]string{"--unauthenticated-limit", "5"}, 2, "--unauthenticated-limit"},
		{[]string{"--max-in-flight", "0"}, 2, "--max-in-flight"},
		{[]string{"--redis-url", "redis://127.0.0.1:1/0"}, 1, "--redis-url"},
	} {
		code, _, errOut := cli(t, append([]string{"serve", "--data-dir", t.TempDir(), "--inbox-addr", "127.0.0.1:0", "--dunning-addr", "127.0.0.1:0", "--kadu-addr", "127.0.0.1:0"}, c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.msg) {
			t.Errorf("%v: exit %d, %q", c.args, code, errOut)
		}
	}
}

// TestServeShutdownUnderLoad runs serve in this process under a steady
// load of MCP requests from several clients and cancels its context as
// SIGTERM does: every request that got response headers got a complete
// answer (200, or 503 from the drain), none was cut mid-response, and
// serve returns 0.
func TestServeShutdownUnderLoad(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url, done, stderr := inProcessServe(t, ctx, "--data-dir", dataDir, "--products", "inbox", "--inbox-addr", "127.0.0.1:0",
		"--rate-limits", "reads=1000000-M,org-reads=1000000-M")
	base := strings.TrimSuffix(url, "/mcp")
	code, out, errOut := cli(t, "token", "--data-dir", dataDir, "--product", "inbox", "--inbox-public-url", base, "--user", accounts.DemoOwnerEmail)
	if code != 0 {
		t.Fatalf("token: %s", errOut)
	}
	tok := strings.TrimSpace(out)

	const workers = 8
	var ok200, drained, notAccepted atomic.Int32
	var mu sync.Mutex
	var broken []string
	stop := make(chan struct{})
	transport := &http.Transport{MaxIdleConnsPerHost: workers}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, Timeout: 10 * time.Second}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := 0; i < 5000; i++ {
				select {
				case <-stop:
					return
				default:
				}
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":{}}`, w*10000+i)
				req, _ := http.NewRequest("POST", url, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("MCP-Protocol-Version", "2025-06-18")
				req.Header.Set("Authorization", "Bearer "+tok)
				resp, err := client.Do(req)
				if err != nil {
					notAccepted.Add(1)
					time.Sleep(5 * time.Millisecond)
					continue
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				var msg struct {
					Result json.RawMessage
					Error  *struct{ Code int }
				}
				jsonErr := json.Unmarshal(b, &msg)
				mu.Lock()
				switch {
				case err != nil:
					broken = append(broken, fmt.Sprintf("%d cut mid-response: %v", resp.StatusCode, err))
				case resp.StatusCode == 200 && jsonErr == nil && msg.Result != nil:
					ok200.Add(1)
				case resp.StatusCode == 503 && jsonErr == nil && msg.Error != nil && msg.Error.Code == mcp.CodeUnavailable && resp.Header.Get("Retry-After") != "":
					drained.Add(1)
				default:
					broken = append(broken, fmt.Sprintf("%d %s", resp.StatusCode, b))
				}
				mu.Unlock()
			}
		})
	}
	deadline := time.Now().Add(20 * time.Second)
	for ok200.Load() < 200 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("serve returned %d: %s", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
	close(stop)
	wg.Wait()
	if len(broken) > 0 {
		t.Fatalf("%d broken answers, first: %s", len(broken), broken[0])
	}
	if ok200.Load() < 200 {
		t.Fatalf("only %d requests answered before the signal", ok200.Load())
	}
	t.Logf("200: %d, 503 while draining: %d, not accepted: %d", ok200.Load(), drained.Load(), notAccepted.Load())
}
