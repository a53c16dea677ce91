package main

// The official MCP Go SDK client (github.com/modelcontextprotocol/go-sdk,
// a test-only dependency, pinned in go.mod) against the Inbox and Dunning
// endpoints of a real `serve` (run in-process, so the race detector watches
// both sides), in every protocol era the endpoints speak (Kadu's test is
// clients_kadu_test.go):
//
//   - 2026-07-28 through server/discover; the test fails if the SDK fell
//     back to initialize (the SDK does that silently on any discover error);
//   - 2025-06-18 and 2025-03-26 through initialize, at exactly that version.
//
// In each era, on the Inbox: list tools, resources, resource templates and
// prompts; call a read tool; read a resource; get a prompt; complete an
// argument; run the destructive tool (workspaces_delete) through the
// client's elicitation handler. The Inbox offers resources, templates,
// prompts and completions, so the test lists them and reads, gets and
// completes the first one; a feature an endpoint does not offer is checked
// as absent instead (-32601 for resources/list, resources/templates/list,
// resources/read, and likewise prompts and completions). On Dunning: list
// tools (every one annotated), call dunning_me and a write tool, read a
// resource template, complete its id, get prompts, and run a destructive
// tool (dunning_debtors_archive) the same way.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/kobana/kobana-mcp/internal/childproc"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kobana/kobana-mcp/platform/accounts"
)

// sdkcServer is an in-process `serve` of one product (inbox, dunning or
// kadu), with a fresh SQLite data dir on a loopback port the kernel
// picked.
type sdkcServer struct {
	product, dataDir, base, endpoint string
}

// sdkcStart runs serve with product alone, or beside the products in also
// (Kadu's executions call their tools), until the test ends (then cancels
// it as SIGTERM would, and waits for it). endpoint is product's.
// serveReadyWithin bounds a test's wait for serve to print its endpoint:
// its migrations and listeners, under the race detector, at the start of
// a CI run that compiles every package beside it (a Kadu start once took
// 63 s there, River's SQLite migrations 20 s of it). A bound, never a
// speed target.
const serveReadyWithin = 3 * time.Minute

func sdkcStart(t *testing.T, product string, also ...string) *sdkcServer {
	t.Helper()
	s := &sdkcServer{product: product, dataDir: t.TempDir()}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	stderr := &syncWriter{}
	done := make(chan int, 1)
	products := append([]string{product}, also...)
	args := []string{"serve", "--data-dir", s.dataDir, "--database-url", "", "--products", strings.Join(products, ","), "--shutdown-grace", "2s"}
	for _, p := range products {
		args = append(args, "--"+p+"-addr", "127.0.0.1:0", "--"+p+"-public-url", "")
	}
	go func() {
		done <- run(ctx, args, pw, stderr)
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			t.Errorf("serve did not stop within 15 s of its context ending")
		}
	})
	found := make(chan string, 1)
	go func() {
		lines := bufio.NewScanner(pr)
		for lines.Scan() {
			// "<server name> MCP endpoint: <url>"; the names contain the
			// product key (kobana-autonomous-inbox, kobana-dunning, kadu).
			if name, url, ok := strings.Cut(lines.Text(), " MCP endpoint: "); ok && strings.Contains(name, product) {
				found <- strings.TrimSpace(url)
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	select {
	case s.endpoint = <-found:
	case code := <-done:
		t.Fatalf("serve exited with %d before printing the %s endpoint: %s", code, product, stderr.String())
	case <-time.After(serveReadyWithin):
		t.Fatalf("serve printed no %s endpoint within %s: %s", product, serveReadyWithin, stderr.String())
	}
	s.base = strings.TrimSuffix(s.endpoint, "/mcp")
	return s
}

// cmd runs one kobana-mcp command against the server's data dir and
// returns its standard output.
func (s *sdkcServer) cmd(t *testing.T, args ...string) string {
	t.Helper()
	var out, errOut strings.Builder
	args = append(args, "--data-dir", s.dataDir, "--database-url", "")
	if code := run(context.Background(), args, &out, &errOut); code != 0 {
		t.Fatalf("kobana-mcp %s: exit %d: %s", strings.Join(args, " "), code, errOut.String())
	}
	return strings.TrimSpace(out.String())
}

// sdkcWire is the client's HTTP transport: it adds the token and records
// every JSON-RPC request the SDK posts (method, protocolVersion of an
// initialize or a 2026 _meta, the MCP-Protocol-Version header) and the
// answer's status.
type sdkcWire struct {
	token string
	mu    sync.Mutex
	log   []sdkcExchange
}

type sdkcExchange struct {
	Method, ParamsVersion, HeaderVersion string
	Status                               int
	AnswerVersion                        string // result.protocolVersion of an initialize answer
}

func (w *sdkcWire) RoundTrip(r *http.Request) (*http.Response, error) {
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
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(answer))
	var req struct {
		Method string
		Params struct {
			ProtocolVersion string         `json:"protocolVersion"`
			Meta            map[string]any `json:"_meta"`
		}
	}
	_ = json.Unmarshal(body, &req)
	var res struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
	}
	_ = json.Unmarshal(answer, &res)
	e := sdkcExchange{Method: req.Method, ParamsVersion: req.Params.ProtocolVersion, HeaderVersion: r.Header.Get("MCP-Protocol-Version"),
		Status: resp.StatusCode, AnswerVersion: res.Result.ProtocolVersion}
	if v, ok := req.Params.Meta["io.modelcontextprotocol/protocolVersion"].(string); ok {
		e.ParamsVersion = v
	}
	w.mu.Lock()
	w.log = append(w.log, e)
	w.mu.Unlock()
	return resp, nil
}

func (w *sdkcWire) exchanges() []sdkcExchange {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]sdkcExchange(nil), w.log...)
}

func (w *sdkcWire) methods() []string {
	var m []string
	for _, e := range w.exchanges() {
		m = append(m, e.Method)
	}
	return m
}

// sdkcElicitor answers the server's elicitation requests as the test says,
// and remembers what it was asked.
type sdkcElicitor struct {
	mu     sync.Mutex
	action string // accept (with confirm: true) or decline
	asked  []*sdk.ElicitParams
}

func (e *sdkcElicitor) handle(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.asked = append(e.asked, req.Params)
	if e.action == "accept" {
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
	}
	return &sdk.ElicitResult{Action: e.action}, nil
}

func (e *sdkcElicitor) set(action string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.action, e.asked = action, nil
}

func (e *sdkcElicitor) questions() []*sdk.ElicitParams {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]*sdk.ElicitParams(nil), e.asked...)
}

// sdkcStep bounds one client call, so a stuck call fails the test with the
// step's name instead of hanging it.
func sdkcStep(t *testing.T) (context.Context, context.CancelFunc) {
	t.Helper()
	return context.WithTimeout(context.Background(), 20*time.Second)
}

// sdkcWantCode fails unless err is a JSON-RPC error with this code.
func sdkcWantCode(t *testing.T, step string, err error, code int64) {
	t.Helper()
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) {
		t.Fatalf("%s: want JSON-RPC error %d, got %v", step, code, err)
	}
	if werr.Code != code {
		t.Fatalf("%s: JSON-RPC error %d (%s), want %d", step, werr.Code, werr.Message, code)
	}
}

func sdkcText(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func TestGoSDKClientOnTheInboxInEveryEra(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the server and drives it with the Go SDK client")
	}
	srv := sdkcStart(t, "inbox")
	const org = "Demo Company"
	eras := []string{"2026-07-28", "2025-06-18", "2025-03-26"}
	for _, era := range eras {
		// One workspace per era to delete (the organization keeps its
		// default one, and deleting the last workspace is refused).
		srv.cmd(t, "orgs", "add-workspace", "--org", org, "--label", "Go SDK "+era, "--external-id", "gosdk-"+era)
	}
	srv.cmd(t, "orgs", "add-workspace", "--org", org, "--label", "Go SDK keep", "--external-id", "gosdk-keep")
	token := srv.cmd(t, "token", "--product", "inbox", "--user", accounts.DemoOwnerEmail, "--inbox-public-url", srv.base, "--ttl", "30m")

	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			wire := &sdkcWire{token: token}
			elicitor := &sdkcElicitor{action: "decline"}
			cs := sdkcConnect(t, srv.endpoint, era, wire, elicitor)
			init := cs.InitializeResult()
			if init.ServerInfo == nil || init.ServerInfo.Name != "kobana-autonomous-inbox" {
				t.Fatalf("serverInfo %+v", init.ServerInfo)
			}
			caps := init.Capabilities
			if caps == nil || caps.Tools == nil {
				t.Fatalf("capabilities %+v: no tools", caps)
			}
			t.Logf("%s: capabilities tools=%v resources=%v prompts=%v completions=%v", era, caps.Tools != nil, caps.Resources != nil, caps.Prompts != nil, caps.Completions != nil)

			// tools/list
			ctx, cancel := sdkcStep(t)
			tools, err := cs.ListTools(ctx, nil)
			cancel()
			if err != nil {
				t.Fatalf("tools/list: %v", err)
			}
			byName := map[string]*sdk.Tool{}
			for _, tool := range tools.Tools {
				byName[tool.Name] = tool
				if tool.Annotations == nil {
					t.Errorf("tool %s has no annotations", tool.Name)
				}
			}
			for _, name := range []string{"workspaces_list", "workspaces_get"} {
				if byName[name] == nil || byName[name].Annotations == nil || !byName[name].Annotations.ReadOnlyHint {
					t.Fatalf("tools/list: no read-only %s among %d tools", name, len(tools.Tools))
				}
			}

			// A read tool: list the workspaces, then get one of them.
			ctx, cancel = sdkcStep(t)
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "workspaces_list", Arguments: map[string]any{}})
			cancel()
			if err != nil || res.IsError {
				t.Fatalf("tools/call workspaces_list: %v %v", err, res)
			}
			var list struct {
				Data []struct {
					ID         string `json:"id"`
					ExternalID string `json:"external_id"`
				} `json:"data"`
			}
			if err := json.Unmarshal([]byte(sdkcText(res)), &list); err != nil || len(list.Data) < 2 {
				t.Fatalf("workspaces_list result %q: %v", sdkcText(res), err)
			}
			ctx, cancel = sdkcStep(t)
			res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "workspaces_get", Arguments: map[string]any{"id": "gosdk-keep"}})
			cancel()
			if err != nil || res.IsError || !strings.Contains(sdkcText(res), `"external_id":"gosdk-keep"`) {
				t.Fatalf("tools/call workspaces_get: %v %q", err, func() string {
					if res == nil {
						return ""
					}
					return sdkcText(res)
				}())
			}

			sdkcResources(t, cs, caps)
			sdkcPrompts(t, cs, caps)
			sdkcDestructive(t, cs, byName, elicitor, era)

			var wireLog []string
			for _, e := range wire.exchanges() {
				wireLog = append(wireLog, fmt.Sprintf("%s→%d", e.Method, e.Status))
			}
			t.Logf("%s wire: %s", era, strings.Join(wireLog, ", "))
		})
	}
}

// sdkcConnect connects the Go SDK client at era through wire, answering
// elicitations with elicitor (nil: a client that declares no elicitation),
// and checks the handshake on the wire: a 200 server/discover and no
// initialize at 2026-07-28; an initialize offering and answered era
// otherwise. The session is closed when the test ends.
func sdkcConnect(t *testing.T, endpoint, era string, wire *sdkcWire, elicitor *sdkcElicitor) *sdk.ClientSession {
	t.Helper()
	opts := &sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}} // no roots
	if elicitor != nil {
		opts.ElicitationHandler = elicitor.handle
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "kobana-mcp-clients-test", Version: "1.0.0"}, opts)
	// The standalone GET stream is left on, as a real client has it:
	// the stateless endpoint answers it 405, which the SDK must accept.
	transport := &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: wire, Timeout: 30 * time.Second}, MaxRetries: -1}
	ctx, cancel := sdkcStep(t)
	cs, err := client.Connect(ctx, transport, &sdk.ClientSessionOptions{ProtocolVersion: era})
	cancel()
	if err != nil {
		t.Fatalf("connect at %s: %v (wire: %v)", era, err, wire.methods())
	}
	t.Cleanup(func() { _ = cs.Close() })

	// The handshake on the wire.
	init := cs.InitializeResult()
	if init.ProtocolVersion != era {
		t.Fatalf("negotiated %q, want %q (wire: %+v)", init.ProtocolVersion, era, wire.exchanges())
	}
	first := wire.exchanges()[0]
	if era == "2026-07-28" {
		for _, e := range wire.exchanges() {
			if e.Method == "initialize" {
				t.Fatalf("the SDK fell back to initialize after server/discover: %+v", wire.exchanges())
			}
		}
		if first.Method != "server/discover" || first.Status != 200 || first.ParamsVersion != era || first.HeaderVersion != era {
			t.Fatalf("first exchange %+v, want a 200 server/discover at %s", first, era)
		}
	} else if first.Method != "initialize" || first.ParamsVersion != era || first.AnswerVersion != era || first.Status != 200 {
		t.Fatalf("first exchange %+v, want initialize offering and answered %s", first, era)
	}
	return cs
}

// sdkcResources lists resources and templates and reads the first
// resource when the server offers resources; otherwise each method must
// answer -32601 (Method not found).
func sdkcResources(t *testing.T, cs *sdk.ClientSession, caps *sdk.ServerCapabilities) {
	t.Helper()
	ctx, cancel := sdkcStep(t)
	defer cancel()
	if caps.Resources == nil {
		_, err := cs.ListResources(ctx, nil)
		sdkcWantCode(t, "resources/list without the resources capability", err, jsonrpc.CodeMethodNotFound)
		_, err = cs.ListResourceTemplates(ctx, nil)
		sdkcWantCode(t, "resources/templates/list without the resources capability", err, jsonrpc.CodeMethodNotFound)
		_, err = cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "kobana://inbox/nothing"})
		sdkcWantCode(t, "resources/read without the resources capability", err, jsonrpc.CodeMethodNotFound)
		return
	}
	resources, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatalf("resources/list: %v", err)
	}
	templates, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatalf("resources/templates/list: %v", err)
	}
	t.Logf("%d resources, %d templates", len(resources.Resources), len(templates.ResourceTemplates))
	if len(resources.Resources) > 0 {
		uri := resources.Resources[0].URI
		read, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("resources/read %s: %v", uri, err)
		}
		if len(read.Contents) == 0 || read.Contents[0].URI == "" {
			t.Fatalf("resources/read %s: contents %+v", uri, read.Contents)
		}
	}
	if caps.Completions != nil && len(templates.ResourceTemplates) > 0 {
		tpl := templates.ResourceTemplates[0]
		if start := strings.Index(tpl.URITemplate, "{"); start >= 0 {
			end := strings.Index(tpl.URITemplate[start:], "}")
			name := strings.TrimLeft(tpl.URITemplate[start+1:start+end], "+#./;?&")
			name, _, _ = strings.Cut(name, ",")
			name = strings.TrimSuffix(name, "*")
			done, err := cs.Complete(ctx, &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/resource", URI: tpl.URITemplate},
				Argument: sdk.CompleteParamsArgument{Name: name, Value: ""}})
			if err != nil {
				t.Fatalf("completion/complete of %s {%s}: %v", tpl.URITemplate, name, err)
			}
			if done.Completion.Values == nil {
				t.Fatalf("completion/complete of %s {%s}: no values array", tpl.URITemplate, name)
			}
		}
	}
}

// sdkcPrompts lists prompts, gets the first and completes its first
// argument when the server offers them; otherwise prompts/list,
// prompts/get and completion/complete must answer -32601.
func sdkcPrompts(t *testing.T, cs *sdk.ClientSession, caps *sdk.ServerCapabilities) {
	t.Helper()
	ctx, cancel := sdkcStep(t)
	defer cancel()
	if caps.Completions == nil {
		_, err := cs.Complete(ctx, &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/prompt", Name: "nothing"},
			Argument: sdk.CompleteParamsArgument{Name: "x", Value: ""}})
		sdkcWantCode(t, "completion/complete without the completions capability", err, jsonrpc.CodeMethodNotFound)
	}
	if caps.Prompts == nil {
		_, err := cs.ListPrompts(ctx, nil)
		sdkcWantCode(t, "prompts/list without the prompts capability", err, jsonrpc.CodeMethodNotFound)
		_, err = cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "nothing"})
		sdkcWantCode(t, "prompts/get without the prompts capability", err, jsonrpc.CodeMethodNotFound)
		return
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatalf("prompts/list: %v", err)
	}
	t.Logf("%d prompts", len(prompts.Prompts))
	if len(prompts.Prompts) == 0 {
		return
	}
	p := prompts.Prompts[0]
	args := map[string]string{}
	for _, a := range p.Arguments {
		value := "example"
		if caps.Completions != nil {
			done, err := cs.Complete(ctx, &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/prompt", Name: p.Name},
				Argument: sdk.CompleteParamsArgument{Name: a.Name, Value: ""}})
			if err != nil {
				t.Fatalf("completion/complete of prompt %s argument %s: %v", p.Name, a.Name, err)
			}
			if len(done.Completion.Values) > 0 {
				value = done.Completion.Values[0]
			}
		}
		if a.Required || value != "example" {
			args[a.Name] = value
		}
	}
	got, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: p.Name, Arguments: args})
	var werr *jsonrpc.Error
	switch {
	case errors.As(err, &werr) && werr.Code == jsonrpc.CodeInvalidParams:
		// An argument value this test made up may be refused; the prompt
		// exists and the server checked it.
		t.Logf("prompts/get %s with %v: -32602 %s", p.Name, args, werr.Message)
	case err != nil:
		t.Fatalf("prompts/get %s: %v", p.Name, err)
	case len(got.Messages) == 0:
		t.Fatalf("prompts/get %s: no messages", p.Name)
	}
}

// sdkcDestructive runs workspaces_delete. On 2026-07-28 the server asks
// for a confirmation through the client's elicitation handler: declining
// deletes nothing, accepting deletes the workspace. On the 2025 handshake
// it refuses with confirmation_required, carrying the approval link, and
// never asks.
func sdkcDestructive(t *testing.T, cs *sdk.ClientSession, tools map[string]*sdk.Tool, elicitor *sdkcElicitor, era string) {
	t.Helper()
	del := tools["workspaces_delete"]
	if del == nil {
		t.Logf("SKIPPED the destructive-tool check: the Inbox lists no workspaces_delete tool yet")
		return
	}
	if del.Annotations == nil || del.Annotations.DestructiveHint == nil || !*del.Annotations.DestructiveHint {
		t.Fatalf("workspaces_delete is not annotated destructive: %+v", del.Annotations)
	}
	ext := "gosdk-" + era
	call := func() *sdk.CallToolResult {
		t.Helper()
		ctx, cancel := sdkcStep(t)
		defer cancel()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "workspaces_delete", Arguments: map[string]any{"id": ext}})
		if err != nil {
			t.Fatalf("tools/call workspaces_delete %s: %v", ext, err)
		}
		return res
	}
	exists := func() bool {
		t.Helper()
		ctx, cancel := sdkcStep(t)
		defer cancel()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "workspaces_get", Arguments: map[string]any{"id": ext}})
		if err != nil {
			t.Fatalf("tools/call workspaces_get %s: %v", ext, err)
		}
		if res.IsError && !strings.Contains(sdkcText(res), "not_found") {
			t.Fatalf("workspaces_get %s: %s", ext, sdkcText(res))
		}
		return !res.IsError
	}

	if era != "2026-07-28" {
		elicitor.set("accept")
		res := call()
		if !res.IsError || !strings.Contains(sdkcText(res), `"code":"confirmation_required"`) || !strings.Contains(sdkcText(res), `"approval_url":"http`) {
			t.Fatalf("workspaces_delete at %s: isError %v %q, want confirmation_required with an approval link", era, res.IsError, sdkcText(res))
		}
		if q := elicitor.questions(); len(q) != 0 {
			t.Fatalf("the elicitation handler was asked at %s: %+v", era, q[0])
		}
		if !exists() {
			t.Fatalf("workspace %s deleted without a confirmation", ext)
		}
		return
	}

	elicitor.set("decline")
	res := call()
	if !res.IsError {
		t.Fatalf("declined workspaces_delete: not an error: %q", sdkcText(res))
	}
	if q := elicitor.questions(); len(q) != 1 || !strings.Contains(q[0].Message, "'Go SDK "+era+"'") {
		t.Fatalf("declined: the elicitation handler was asked %+v, want one question naming the workspace", q)
	}
	if !exists() {
		t.Fatalf("declined, yet workspace %s is gone", ext)
	}

	elicitor.set("accept")
	res = call()
	if res.IsError {
		t.Fatalf("accepted workspaces_delete: %s", sdkcText(res))
	}
	if q := elicitor.questions(); len(q) != 1 {
		t.Fatalf("accepted: the elicitation handler was asked %d times, want 1", len(q))
	}
	if exists() {
		t.Fatalf("accepted, yet workspace %s is still there", ext)
	}
}

// TestGoSDKClientOnDunningInEveryEra drives the Dunning endpoint with the
// Go SDK client in every era: the handshake, tools/list (every tool with
// its annotations, open-world false), dunning_me and a write tool, a
// resource template read and its id completed, the prompts, and the
// destructive dunning_debtors_archive — confirmed through the elicitation
// handler on 2026-07-28 (declined: nothing changes; accepted: archived),
// refused with confirmation_required without asking on 2025.
func TestGoSDKClientOnDunningInEveryEra(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the server and drives it with the Go SDK client")
	}
	srv := sdkcStart(t, "dunning")
	token := srv.cmd(t, "token", "--product", "dunning", "--user", accounts.DemoOwnerEmail, "--dunning-public-url", srv.base, "--ttl", "30m")
	for _, era := range []string{"2026-07-28", "2025-06-18", "2025-03-26"} {
		t.Run(era, func(t *testing.T) {
			wire := &sdkcWire{token: token}
			elicitor := &sdkcElicitor{action: "decline"}
			cs := sdkcConnect(t, srv.endpoint, era, wire, elicitor)
			init := cs.InitializeResult()
			if init.ServerInfo == nil || init.ServerInfo.Name != "kobana-dunning" || !strings.Contains(init.Instructions, "Call dunning_me first") {
				t.Fatalf("serverInfo %+v, instructions %q", init.ServerInfo, init.Instructions)
			}
			caps := init.Capabilities
			if caps == nil || caps.Tools == nil || caps.Resources == nil || caps.Prompts == nil || caps.Completions == nil {
				t.Fatalf("capabilities %+v: want tools, resources, prompts and completions", caps)
			}
			call := func(name string, args map[string]any) *sdk.CallToolResult {
				t.Helper()
				ctx, cancel := sdkcStep(t)
				defer cancel()
				res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
				if err != nil {
					t.Fatalf("tools/call %s: %v", name, err)
				}
				return res
			}

			// tools/list: every tool annotated, none open-world.
			ctx, cancel := sdkcStep(t)
			tools, err := cs.ListTools(ctx, nil)
			cancel()
			if err != nil {
				t.Fatalf("tools/list: %v", err)
			}
			byName := map[string]*sdk.Tool{}
			for _, tool := range tools.Tools {
				byName[tool.Name] = tool
				if a := tool.Annotations; a == nil || a.OpenWorldHint == nil || *a.OpenWorldHint || a.DestructiveHint == nil {
					t.Errorf("tool %s: annotations %+v, want all four with openWorldHint false", tool.Name, a)
				}
			}
			if me := byName["dunning_me"]; me == nil || !me.Annotations.ReadOnlyHint {
				t.Fatalf("tools/list: no read-only dunning_me among %d tools", len(tools.Tools))
			}
			if tools.Tools[0].Name != "dunning_me" {
				t.Errorf("the first tool is %s, want dunning_me (the instructions say to call it first)", tools.Tools[0].Name)
			}

			// dunning_me, and a write tool: the endpoint's JSON indented
			// two spaces.
			res := call("dunning_me", map[string]any{})
			if res.IsError || !strings.HasPrefix(sdkcText(res), "{\n  \"data\": {") || !strings.Contains(sdkcText(res), `"name": "Demo Company"`) ||
				!strings.Contains(sdkcText(res), `"role": "owner"`) {
				t.Fatalf("dunning_me: %s", sdkcText(res))
			}
			ext := "gosdk-" + era
			res = call("dunning_debtors_upsert", map[string]any{"external_id": ext, "name": "Go SDK " + era, "document": "529.982.247-25",
				"emails": []string{ext + "@example.com"}, "idempotency_key": "upsert-" + ext})
			if res.IsError || !strings.Contains(sdkcText(res), `"external_id": "`+ext+`"`) {
				t.Fatalf("dunning_debtors_upsert: %s", sdkcText(res))
			}

			// The debtor's resource template, read and completed.
			ctx, cancel = sdkcStep(t)
			templates, err := cs.ListResourceTemplates(ctx, nil)
			cancel()
			if err != nil || !slices.ContainsFunc(templates.ResourceTemplates, func(rt *sdk.ResourceTemplate) bool {
				return rt.URITemplate == "kobana://dunning/debtors/{id}"
			}) {
				t.Fatalf("resources/templates/list: %v %+v", err, templates)
			}
			uri := "kobana://dunning/debtors/" + ext
			ctx, cancel = sdkcStep(t)
			read, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
			cancel()
			if err != nil || len(read.Contents) != 1 || read.Contents[0].URI != uri || !strings.Contains(read.Contents[0].Text, "never instructions") ||
				!strings.Contains(read.Contents[0].Text, `"name": "Go SDK `+era+`"`) {
				t.Fatalf("resources/read %s: %v %+v", uri, err, read)
			}
			ctx, cancel = sdkcStep(t)
			done, err := cs.Complete(ctx, &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/resource", URI: "kobana://dunning/debtors/{id}"},
				Argument: sdk.CompleteParamsArgument{Name: "id", Value: ext}})
			cancel()
			if err != nil || len(done.Completion.Values) != 1 || done.Completion.Values[0] != ext {
				t.Fatalf("completion/complete of the debtor id %q: %v %+v", ext, err, done)
			}
			sdkcResources(t, cs, caps)

			// A prompt with arguments, then the first prompt as any client
			// would fill it (from its completions).
			ctx, cancel = sdkcStep(t)
			prompt, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "design_collection_plan", Arguments: map[string]string{"segment": "companies (CNPJ)", "tone": "firm"}})
			cancel()
			if err != nil || len(prompt.Messages) != 1 {
				t.Fatalf("prompts/get design_collection_plan: %v %+v", err, prompt)
			}
			if tc, ok := prompt.Messages[0].Content.(*sdk.TextContent); !ok || !strings.Contains(tc.Text, "dunning_plan_steps_create") {
				t.Fatalf("design_collection_plan: %+v", prompt.Messages[0].Content)
			}
			sdkcPrompts(t, cs, caps)

			// The destructive tool.
			status := func() string {
				t.Helper()
				res := call("dunning_debtors_get", map[string]any{"id": ext})
				var d struct {
					Data struct{ Status string } `json:"data"`
				}
				if res.IsError || json.Unmarshal([]byte(sdkcText(res)), &d) != nil {
					t.Fatalf("dunning_debtors_get %s: %s", ext, sdkcText(res))
				}
				return d.Data.Status
			}
			archive := func() *sdk.CallToolResult {
				t.Helper()
				return call("dunning_debtors_archive", map[string]any{"id": ext})
			}
			if era != "2026-07-28" {
				elicitor.set("accept")
				if res := archive(); !res.IsError || !strings.Contains(sdkcText(res), `"code": "confirmation_required"`) || !strings.Contains(sdkcText(res), `"approval_url": "http`) {
					t.Fatalf("dunning_debtors_archive at %s: isError %v %q, want confirmation_required with an approval link", era, res.IsError, sdkcText(res))
				}
				if q := elicitor.questions(); len(q) != 0 || status() != "active" {
					t.Fatalf("at %s: asked %d times, debtor %s", era, len(q), status())
				}
				return
			}
			elicitor.set("decline")
			if res := archive(); !res.IsError || status() != "active" {
				t.Fatalf("declined dunning_debtors_archive: %q, debtor %s", sdkcText(res), status())
			}
			if q := elicitor.questions(); len(q) != 1 || !strings.Contains(q[0].Message, "Go SDK "+era) {
				t.Fatalf("declined: asked %+v, want one question naming the debtor", q)
			}
			elicitor.set("accept")
			if res := archive(); res.IsError || status() != "archived" {
				t.Fatalf("accepted dunning_debtors_archive: %q, debtor %s", sdkcText(res), status())
			}
		})
	}
}

// TestGoSDKClientFeatureChecksOnTheFixture proves the branches above that
// the Inbox does not reach yet: against examples/everything, which offers
// resources, templates, prompts and completions, sdkcResources and
// sdkcPrompts must list, read, get and complete for real in every era.
func TestGoSDKClientFeatureChecksOnTheFixture(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs examples/everything")
	}
	bin := filepath.Join(t.TempDir(), "everything")
	if out, err := childproc.GoBuild("-o", bin, "github.com/kobana/kobana-mcp/examples/everything").CombinedOutput(); err != nil {
		t.Fatalf("go build examples/everything: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
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
		lines := bufio.NewScanner(stdout)
		for lines.Scan() {
			if url, ok := strings.CutPrefix(lines.Text(), "MCP endpoint: "); ok {
				found <- strings.TrimSpace(url)
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	var endpoint string
	select {
	case endpoint = <-found:
	case <-exited:
		t.Fatalf("everything exited before printing its endpoint: %s", stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("everything printed no endpoint within 30 s: %s", stderr.String())
	}

	for _, era := range []string{"2026-07-28", "2025-06-18", "2025-03-26"} {
		t.Run(era, func(t *testing.T) {
			wire := &sdkcWire{token: "unused"}
			client := sdk.NewClient(&sdk.Implementation{Name: "kobana-mcp-clients-test", Version: "1.0.0"}, &sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}})
			transport := &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: wire, Timeout: 30 * time.Second}, MaxRetries: -1}
			ctx, cancel := sdkcStep(t)
			cs, err := client.Connect(ctx, transport, &sdk.ClientSessionOptions{ProtocolVersion: era})
			cancel()
			if err != nil {
				t.Fatalf("connect at %s: %v", era, err)
			}
			defer cs.Close()
			caps := cs.InitializeResult().Capabilities
			if cs.InitializeResult().ProtocolVersion != era || caps == nil || caps.Resources == nil || caps.Prompts == nil || caps.Completions == nil {
				t.Fatalf("the fixture at %s: version %q, capabilities %+v", era, cs.InitializeResult().ProtocolVersion, caps)
			}
			sdkcResources(t, cs, caps)
			sdkcPrompts(t, cs, caps)
			want := []string{"resources/list", "resources/templates/list", "resources/read", "completion/complete", "prompts/list", "prompts/get"}
			got := strings.Join(wire.methods(), ",")
			for _, m := range want {
				if !strings.Contains(got, m) {
					t.Fatalf("the feature checks sent no %s: %s", m, got)
				}
			}
			for _, e := range wire.exchanges() {
				if e.Status != 200 && e.Status != 202 {
					t.Fatalf("%s answered %d", e.Method, e.Status)
				}
			}
		})
	}
}
