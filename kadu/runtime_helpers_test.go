package kadu

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/oauth/server/sqlstore"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/productkit/producttest"
	"github.com/kobana/kobana-mcp/productkit/toolreg"
)

// The runtime's tests run against a small catalog of tools registered in
// the registry as another product ("alpha") would register its own: in
// process handlers that record every call, read-only, writing and
// destructive ones, with the requirements real tools declare.

// toolCall is one call a test tool received.
type toolCall struct {
	Tool         string
	Args         map[string]any
	UserID       string
	Role         identity.Role
	Scopes       []string
	Confirmation string
}

// testCatalog is the "alpha" product: its tools and what they saw.
type testCatalog struct {
	mu    sync.Mutex
	calls []toolCall
	// listAnswer is what alpha_list answers (a JSON text).
	listAnswer string
	// hook, when set, runs inside every call before it answers (a test
	// that blocks a call, or counts it elsewhere).
	hook func(ctx context.Context, tool string) error
	// fail makes the named tools answer an error result.
	fail map[string]bool
	// tape, when set, sees each call with the answer the catalog would
	// give and answers in its place: the replay suite records tool
	// results with it and serves them back (replay_test.go).
	tape func(tc toolCall, result string, isError bool) (string, bool)
}

func newTestCatalog() *testCatalog {
	return &testCatalog{listAnswer: `{"data":[{"id":"b1","amount":10.5,"payer":"Acme"},{"id":"b2","amount":3,"payer":"Beta"}],"meta":{"next_cursor":null}}`,
		fail: map[string]bool{}}
}

func (c *testCatalog) record(ctx context.Context, req *mcp.CallToolRequest) toolCall {
	var args map[string]any
	_ = json.Unmarshal(req.Arguments, &args)
	tc := toolCall{Tool: req.Name, Args: args}
	if id := identity.From(ctx); id != nil {
		tc.UserID, tc.Role, tc.Scopes = id.UserID, id.Role, id.Scopes
	}
	if conf := mcp.ConfirmationFrom(ctx); conf != nil {
		tc.Confirmation = conf.Nonce
	}
	c.mu.Lock()
	c.calls = append(c.calls, tc)
	c.mu.Unlock()
	return tc
}

// Calls are the calls made so far, of tool (all when "").
func (c *testCatalog) Calls(tool string) []toolCall {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []toolCall
	for _, tc := range c.calls {
		if tool == "" || tc.Tool == tool {
			out = append(out, tc)
		}
	}
	return out
}

var (
	roAnn    = &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true), DestructiveHint: mcp.Bool(false), IdempotentHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)}
	writeAnn = &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(false), DestructiveHint: mcp.Bool(false), IdempotentHint: mcp.Bool(false), OpenWorldHint: mcp.Bool(false)}
	delAnn   = &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(false), DestructiveHint: mcp.Bool(true), IdempotentHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)}
)

func (c *testCatalog) handler(answer func(tc toolCall) string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		tc := c.record(ctx, req)
		if c.hook != nil {
			if err := c.hook(ctx, req.Name); err != nil {
				return nil, err
			}
		}
		result, isError := `{"error":{"code":"conflict","message":"it failed"}}`, true
		if !c.fail[req.Name] {
			result, isError = answer(tc), false
		}
		c.mu.Lock()
		tape := c.tape
		c.mu.Unlock()
		if tape != nil {
			result, isError = tape(tc, result, isError)
		}
		if isError {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(result)}, IsError: true}, nil
		}
		return mcp.TextResult(result), nil
	}
}

// Tools are alpha's tools: alpha_list (read-only), alpha_record (a write),
// alpha_delete (destructive, with a description naming its target) and
// beta_transfer of another product, destructive, which tasks in these
// tests never allow.
func (c *testCatalog) Tools() (alpha, beta []mcp.Tool) {
	n := 0
	alpha = []mcp.Tool{
		{Name: "alpha_list", Title: "List boletos", Description: "Lists the boletos found.", Annotations: roAnn,
			Requires: mcp.Requirement{Scopes: []string{"alpha.read"}, Permission: identity.PermRead},
			Handler:  c.handler(func(toolCall) string { return c.listAnswer })},
		{Name: "alpha_record", Title: "Record a charge", Description: "Records a charge for a boleto.", Annotations: writeAnn,
			Requires: mcp.Requirement{Scopes: []string{"alpha.write"}, Permission: identity.PermWrite},
			Handler: c.handler(func(tc toolCall) string {
				c.mu.Lock()
				n++
				id := n
				c.mu.Unlock()
				b, _ := json.Marshal(map[string]any{"data": map[string]any{"id": fmt.Sprintf("r%d", id), "boleto": tc.Args["boleto"], "amount": tc.Args["amount"]}})
				return string(b)
			})},
		{Name: "alpha_delete", Title: "Delete a charge", Description: "Deletes a charge.", Annotations: delAnn,
			Requires: mcp.Requirement{Scopes: []string{"alpha.write"}, Permission: identity.PermWrite},
			Handler:  c.handler(func(tc toolCall) string { return fmt.Sprintf(`{"deleted":%q}`, tc.Args["id"]) }),
			Confirm: func(ctx context.Context, req *mcp.CallToolRequest) (string, *mcp.CallToolResult, error) {
				var args struct{ ID string }
				_ = json.Unmarshal(req.Arguments, &args)
				if args.ID == "missing" {
					return "", &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(`{"error":{"code":"not_found","message":"charge not found"}}`)}, IsError: true}, nil
				}
				return fmt.Sprintf("Delete charge %s? This cannot be undone.", args.ID), nil, nil
			}},
	}
	beta = []mcp.Tool{{Name: "beta_transfer", Title: "Transfer money", Annotations: delAnn,
		Requires: mcp.Requirement{Scopes: []string{"beta.pay"}, Permission: identity.PermRead},
		Handler:  c.handler(func(toolCall) string { return `{"sent":true}` })}}
	return alpha, beta
}

// runtimeEnv is Kadu served with the test catalog in its registry.
type runtimeEnv struct {
	*kaduEnv
	cat *testCatalog
	reg *toolreg.Registry
}

func startRuntime(t *testing.T, db *store.DB, cfg Config) *runtimeEnv {
	t.Helper()
	return startRuntimeWith(t, db, cfg, producttest.Options{})
}

// startRuntimeWith is startRuntime with the harness's options (a tracer);
// the registry of test tools is set here.
func startRuntimeWith(t *testing.T, db *store.DB, cfg Config, opts producttest.Options) *runtimeEnv {
	t.Helper()
	cat := newTestCatalog()
	reg := toolreg.New()
	alpha, beta := cat.Tools()
	if err := reg.Add("alpha", alpha); err != nil {
		t.Fatal(err)
	}
	if err := reg.Add("beta", beta); err != nil {
		t.Fatal(err)
	}
	if cfg.Runtime.RetryDelay == 0 {
		cfg.Runtime.RetryDelay = 10 * time.Millisecond
	}
	spec := specWith(cfg)
	opts.Tools = reg
	e := &kaduEnv{Env: producttest.Start(t, db, spec, opts), t: t, ctx: context.Background()}
	e.svc = newService(productkitDeps(db, e.Jobs, reg), cfg)
	for _, u := range []struct {
		dst  *accounts.User
		role identity.Role
		name string
	}{{&e.viewer, identity.RoleViewer, "viewer"}, {&e.member, identity.RoleMember, "member"},
		{&e.member2, identity.RoleMember, "member2"}, {&e.admin, identity.RoleAdmin, "admin"}} {
		var err error
		if *u.dst, err = e.Acc.CreateUser(e.ctx, accounts.NewUser{Email: u.name + "@mine.example", OrganizationID: e.Mine.ID, Role: u.role}); err != nil {
			t.Fatal(err)
		}
	}
	return &runtimeEnv{kaduEnv: e, cat: cat, reg: reg}
}

// task creates a task as the member.
func (e *runtimeEnv) task(body map[string]any) taskJSON {
	e.t.Helper()
	return e.createTask(e.member, body)
}

// run runs a task as the member and returns the queued execution's id.
func (e *runtimeEnv) run(taskID string, input map[string]any) string {
	e.t.Helper()
	if input == nil {
		input = map[string]any{}
	}
	resp := e.do(e.member, "POST", "/api/v1/tasks/"+taskID+"/run", map[string]any{"input": input}, 202)
	var out struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(resp), &out); err != nil || out.Data.ID == "" {
		e.t.Fatalf("run: %s", resp)
	}
	return out.Data.ID
}

// exec reads an execution.
func (e *runtimeEnv) exec(id string) *records.Execution {
	e.t.Helper()
	x, err := records.ExecutionByID(e.ctx, e.DB, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return x
}

// wait polls an execution until its status is one of want.
func (e *runtimeEnv) wait(id string, want ...string) *records.Execution {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		x := e.exec(id)
		for _, w := range want {
			if x.Status == w {
				return x
			}
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("execution %s is %s (%s: %s), want %v", id, x.Status, deref(x.ErrorCode), deref(x.ErrorMessage), want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// steps are an execution's steps in order.
func (e *runtimeEnv) steps(id string) []*records.Step {
	e.t.Helper()
	rows, err := records.ListSteps(e.ctx, e.DB, id, 0, 1000)
	if err != nil {
		e.t.Fatal(err)
	}
	return rows
}

func stepLine(st *records.Step) string {
	return fmt.Sprintf("%d %s %s %s", st.Seq, st.Kind, deref(st.ToolName), st.Status)
}

// fakeModel is a local server speaking the chat-completions API: each
// request is answered by the next scripted reply.
type fakeModel struct {
	mu       sync.Mutex
	srv      *httptest.Server
	requests []map[string]any
	replies  []func(w http.ResponseWriter, r *http.Request, req map[string]any)
}

func newFakeModel(t *testing.T) *fakeModel {
	m := &fakeModel{}
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var req map[string]any
		_ = json.Unmarshal(raw, &req)
		m.mu.Lock()
		m.requests = append(m.requests, req)
		n := len(m.requests)
		var reply func(http.ResponseWriter, *http.Request, map[string]any)
		if n <= len(m.replies) {
			reply = m.replies[n-1]
		}
		m.mu.Unlock()
		if reply == nil {
			http.Error(w, `{"error":{"message":"no more scripted replies"}}`, http.StatusBadRequest)
			return
		}
		reply(w, r, req)
	}))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *fakeModel) script(replies ...func(w http.ResponseWriter, r *http.Request, req map[string]any)) {
	m.mu.Lock()
	m.replies = append(m.replies, replies...)
	m.mu.Unlock()
}

func (m *fakeModel) Requests() []map[string]any {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]map[string]any(nil), m.requests...)
}

// callTools answers with tool calls (name, arguments JSON pairs).
func callTools(usage [3]int, calls ...string) func(w http.ResponseWriter, r *http.Request, req map[string]any) {
	return func(w http.ResponseWriter, r *http.Request, req map[string]any) {
		var tc []any
		for i := 0; i+1 < len(calls); i += 2 {
			tc = append(tc, map[string]any{"id": fmt.Sprintf("call_%d_%d", len(calls), i), "type": "function",
				"function": map[string]any{"name": calls[i], "arguments": calls[i+1]}})
		}
		writeCompletion(w, map[string]any{"role": "assistant", "content": nil, "tool_calls": tc}, "tool_calls", usage)
	}
}

// answer answers with a final text.
func answer(usage [3]int, text string) func(w http.ResponseWriter, r *http.Request, req map[string]any) {
	return func(w http.ResponseWriter, r *http.Request, req map[string]any) {
		writeCompletion(w, map[string]any{"role": "assistant", "content": text}, "stop", usage)
	}
}

// usage is [prompt, completion, cached].
func writeCompletion(w http.ResponseWriter, msg map[string]any, finish string, usage [3]int) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-x", "object": "chat.completion", "model": "test-model",
		"choices": []any{map[string]any{"index": 0, "finish_reason": finish, "message": msg}},
		"usage":   map[string]any{"prompt_tokens": usage[0], "completion_tokens": usage[1], "prompt_tokens_details": map[string]any{"cached_tokens": usage[2]}}})
}

// testPrices is the price table of the agent tests: R$ 10 per million
// input tokens, R$ 40 per million output, R$ 2,50 per million cached.
var testPrices = map[string]ModelPrice{"test-model": {InputPerMillionCents: 1000, OutputPerMillionCents: 4000, CachedPerMillionCents: 250}}

// agentConfig is a deployment whose model is m.
func agentConfig(m *fakeModel) Config {
	return Config{ModelURL: m.srv.URL + "/v1", DefaultModel: "test-model", Prices: testPrices,
		Plan:    PlanLimits{MaxCostPerExecutionCents: 100_000, MonthlyCostLimitCents: 1_000_000},
		Runtime: RuntimeConfig{ModelTimeout: 2 * time.Second, RetryDelay: 10 * time.Millisecond}}
}

func productkitDeps(db *store.DB, q *jobs.Queue, reg *toolreg.Registry) productkit.Deps {
	return productkit.Deps{DB: db, Jobs: q, Tools: reg, Roles: sqlstore.RoleLookup(db)}
}
