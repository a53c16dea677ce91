// Package sdktest runs official MCP client SDKs against the real
// kobana-mcp binary. This file: the official Go SDK client
// (github.com/modelcontextprotocol/go-sdk, a test-only dependency) confirms
// and declines a destructive Inbox tool, workspaces_delete.
package sdktest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/kobana/kobana-mcp/internal/childproc"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/store"
)

// kobana is a running `kobana-mcp serve` (Inbox only) on a loopback port
// with a fresh data dir (SQLite).
type kobana struct {
	bin, dataDir, base, endpoint string
}

// startKobana builds the binary and starts it; it is stopped (SIGTERM) when
// the test ends.
func startKobana(t *testing.T) *kobana {
	t.Helper()
	k := &kobana{bin: filepath.Join(t.TempDir(), "kobana-mcp"), dataDir: t.TempDir()}
	if out, err := childproc.GoBuild("-o", k.bin, "github.com/kobana/kobana-mcp/cmd/kobana-mcp").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	k.base = "http://" + addr
	// No SMTP intake: the default port is the walkthroughs' (docs/), which
	// may be running in another package's test at the same time.
	cmd := exec.Command(k.bin, "serve", "--data-dir", k.dataDir, "--products", "inbox", "--inbox-addr", addr, "--inbox-smtp-addr", "off", "--shutdown-grace", "2s")
	cmd.Env = childEnv()
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if _, url, ok := strings.Cut(sc.Text(), " MCP endpoint: "); ok {
				found <- strings.TrimSpace(url)
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case k.endpoint = <-found:
	case <-exited:
		t.Fatalf("serve exited before printing its endpoint:\n%s", stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("serve printed no endpoint in 60 s:\n%s", stderr.String())
	}
	return k
}

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

// token mints a developer token for the demo owner with the token command.
func (k *kobana) token(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(k.bin, "token", "--product", "inbox", "--user", accounts.DemoOwnerEmail, "--data-dir", k.dataDir, "--inbox-public-url", k.base)
	cmd.Env = childEnv()
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("token: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// accounts opens the server's database beside it.
func (k *kobana) accounts(t *testing.T) (*accounts.Store, string) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, "sqlite:"+filepath.Join(k.dataDir, "kobana.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	acc := accounts.New(db, accounts.Options{})
	u, err := acc.GetUserByEmail(ctx, accounts.DemoOwnerEmail)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := acc.Memberships(ctx, u.ID)
	if err != nil || len(ms) != 1 {
		t.Fatalf("memberships of the demo owner: %v %v", ms, err)
	}
	return acc, ms[0].OrganizationID
}

// wire records every JSON-RPC exchange the SDK makes, and adds the token.
type wire struct {
	token string
	mu    sync.Mutex
	log   []exchange
}

type exchange struct {
	method     string // JSON-RPC method
	header     http.Header
	body       []byte
	status     int
	resultType string
}

func (w *wire) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+w.token)
	var body []byte
	if r.Body != nil {
		body, _ = io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil || r.Method != http.MethodPost {
		return resp, err
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(bytes.NewReader(answer))
	var req struct{ Method string }
	_ = json.Unmarshal(body, &req)
	var res struct {
		Result struct {
			ResultType string `json:"resultType"`
		} `json:"result"`
	}
	_ = json.Unmarshal(answer, &res)
	w.mu.Lock()
	w.log = append(w.log, exchange{method: req.Method, header: r.Header.Clone(), body: body, status: resp.StatusCode, resultType: res.Result.ResultType})
	w.mu.Unlock()
	return resp, nil
}

func (w *wire) calls(method string) []exchange {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []exchange
	for _, e := range w.log {
		if e.method == method {
			out = append(out, e)
		}
	}
	return out
}

func (w *wire) methods() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, e := range w.log {
		out = append(out, e.method)
	}
	return out
}

// connect opens a Go SDK client session to the Inbox endpoint.
func connect(t *testing.T, k *kobana, w *wire, version string, elicit func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error)) *sdk.ClientSession {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "kobana-mcp-go-sdk-test", Version: "1.0.0"}, &sdk.ClientOptions{
		ElicitationHandler: elicit,
		Capabilities:       &sdk.ClientCapabilities{}, // no roots
	})
	transport := &sdk.StreamableClientTransport{Endpoint: k.endpoint, HTTPClient: &http.Client{Transport: w, Timeout: 20 * time.Second}, DisableStandaloneSSE: true, MaxRetries: -1}
	var opts *sdk.ClientSessionOptions
	if version != "" {
		opts = &sdk.ClientSessionOptions{ProtocolVersion: version}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, transport, opts)
	if err != nil {
		t.Fatalf("connect: %v (wire: %v)", err, w.methods())
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func resultText(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// TestGoSDKConfirmsDestructiveInboxTool: the official Go SDK client, on
// protocol 2026-07-28 (server/discover, no initialize), handles the
// input_required result of workspaces_delete with its elicitation handler:
// accepting deletes the workspace exactly once (the retry replayed by hand
// answers -32602); declining deletes nothing. On 2025-06-18 the same call is
// refused with confirmation_required, carrying the approval link, and the
// handler is never asked.
func TestGoSDKConfirmsDestructiveInboxTool(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the server")
	}
	k := startKobana(t)
	token := k.token(t)
	acc, orgID := k.accounts(t)
	ctx := context.Background()
	for _, w := range []accounts.NewWorkspace{
		{ExternalID: "sdk-accept", Label: "SDK Accept"},
		{ExternalID: "sdk-decline", Label: "SDK Decline"},
		{ExternalID: "sdk-legacy", Label: "SDK Legacy"},
	} {
		if _, err := acc.CreateWorkspace(ctx, orgID, w); err != nil {
			t.Fatal(err)
		}
	}
	live := func(ext string) bool {
		_, err := acc.GetWorkspaceByExternalID(ctx, orgID, ext)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			t.Fatal(err)
		}
		return err == nil
	}
	call := func(cs *sdk.ClientSession, ext string) *sdk.CallToolResult {
		t.Helper()
		cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		res, err := cs.CallTool(cctx, &sdk.CallToolParams{Name: "workspaces_delete", Arguments: map[string]any{"id": ext}})
		if err != nil {
			t.Fatalf("tools/call: %v", err)
		}
		return res
	}

	t.Run("accept", func(t *testing.T) {
		w := &wire{token: token}
		var asked []*sdk.ElicitParams
		cs := connect(t, k, w, "", func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			asked = append(asked, req.Params)
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
		})
		if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
			t.Fatalf("negotiated %q, want 2026-07-28", v)
		}
		if m := w.methods(); len(m) == 0 || m[0] != "server/discover" || strings.Contains(strings.Join(m, ","), "initialize") {
			t.Fatalf("the SDK connected with %v, want server/discover and no initialize", m)
		}
		res := call(cs, "sdk-accept")
		if res.IsError || resultText(res) != `{"status":204}` {
			t.Fatalf("result: error %v, %q", res.IsError, resultText(res))
		}
		if len(asked) != 1 || asked[0].Message != "Delete workspace 'SDK Accept' (external id sdk-accept)? Its inboxes stop receiving e-mail. This cannot be undone." {
			t.Fatalf("the elicitation handler was asked %d times: %+v", len(asked), asked)
		}
		if live("sdk-accept") {
			t.Fatal("the workspace is still there")
		}
		calls := w.calls("tools/call")
		if len(calls) != 2 || calls[0].resultType != "input_required" || calls[1].resultType != "complete" {
			t.Fatalf("tools/call exchanges: %+v", calls)
		}
		retry := calls[1]
		if !bytes.Contains(retry.body, []byte(`"requestState"`)) || !bytes.Contains(retry.body, []byte(`"inputResponses"`)) {
			t.Fatalf("the retry carries no requestState/inputResponses: %s", retry.body)
		}
		// Exactly once: the very same retry sent again runs nothing.
		req, _ := http.NewRequest(http.MethodPost, k.endpoint, bytes.NewReader(retry.body))
		req.Header = retry.header.Clone()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var again struct {
			Error *struct {
				Code    int
				Message string
			}
		}
		_ = json.NewDecoder(resp.Body).Decode(&again)
		if again.Error == nil || again.Error.Code != -32602 || !strings.Contains(again.Error.Message, "already used") {
			t.Fatalf("replayed retry: %d %+v", resp.StatusCode, again.Error)
		}
	})

	t.Run("decline", func(t *testing.T) {
		w := &wire{token: token}
		asked := 0
		cs := connect(t, k, w, "", func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			asked++
			return &sdk.ElicitResult{Action: "decline"}, nil
		})
		res := call(cs, "sdk-decline")
		if !res.IsError || !strings.Contains(resultText(res), "Nothing was done") || asked != 1 {
			t.Fatalf("decline: error %v, %q, asked %d", res.IsError, resultText(res), asked)
		}
		if !live("sdk-decline") {
			t.Fatal("a declined deletion deleted the workspace")
		}
	})

	t.Run("2025-06-18 is refused", func(t *testing.T) {
		w := &wire{token: token}
		asked := 0
		cs := connect(t, k, w, "2025-06-18", func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			asked++
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
		})
		if v := cs.InitializeResult().ProtocolVersion; v != "2025-06-18" {
			t.Fatalf("negotiated %q, want 2025-06-18", v)
		}
		res := call(cs, "sdk-legacy")
		// The refusal carries the approval link (serve has the built-in
		// sign-in): the way forward is the page, never a retry.
		var body struct {
			Error struct {
				Code, Message string
				ApprovalURL   string `json:"approval_url"`
				ApprovalID    string `json:"approval_id"`
				ExpiresAt     string `json:"expires_at"`
			}
		}
		_ = json.Unmarshal([]byte(resultText(res)), &body)
		if !res.IsError || body.Error.Code != "confirmation_required" || body.Error.ApprovalID == "" || body.Error.ExpiresAt == "" ||
			!strings.HasSuffix(body.Error.ApprovalURL, "/approvals/"+body.Error.ApprovalID) || !strings.Contains(body.Error.Message, body.Error.ApprovalURL) ||
			asked != 0 || !live("sdk-legacy") {
			t.Fatalf("2025: error %v, %q, asked %d", res.IsError, resultText(res), asked)
		}
	})
}
