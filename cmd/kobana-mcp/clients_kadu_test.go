package main

// The official MCP Go SDK client against the Kadu endpoint of a real
// in-process `serve` (Kadu beside Dunning, whose tools Kadu's executions
// call), in every era, with the confirmation matrix of kadu_tasks_run as a
// real client meets it: confirmed through the client's elicitation handler
// on 2026-07-28, the approval link for a 2025 client and for a 2026 client
// that declares no elicitation (docs/decisions.md "Approval link").

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kobana/kobana-mcp/platform/accounts"
)

// TestGoSDKClientOnKaduInEveryEra drives the Kadu endpoint with the Go SDK
// client: the handshake, tools/list (every tool with its four annotations,
// none open-world, kadu_tasks_run destructive and not idempotent), kadu_me
// and a task created and read, the resource and prompt checks (as far as
// Kadu declares them), and kadu_tasks_run — on 2026-07-28 declined in the
// elicitation handler (nothing queued), then accepted (one execution,
// followed to succeeded, its step read); on 2025-06-18, 2025-03-26 and
// 2026-07-28 without elicitation, the approval link as a result, the
// handler never asked, nothing queued, the approval pending.
func TestGoSDKClientOnKaduInEveryEra(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the server and drives it with the Go SDK client")
	}
	srv := sdkcStart(t, "kadu", "dunning")
	token := srv.cmd(t, "token", "--product", "kadu", "--user", accounts.DemoOwnerEmail, "--kadu-public-url", srv.base, "--ttl", "30m")
	cases := []struct {
		name, era string
		canElicit bool
	}{
		{"2026-07-28", "2026-07-28", true},
		{"2026-07-28 without elicitation", "2026-07-28", false},
		{"2025-06-18", "2025-06-18", false},
		{"2025-03-26", "2025-03-26", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wire := &sdkcWire{token: token}
			var elicitor *sdkcElicitor
			if c.canElicit {
				elicitor = &sdkcElicitor{action: "decline"}
			}
			cs := sdkcConnect(t, srv.endpoint, c.era, wire, elicitor)
			defer func() {
				var log []string
				for _, e := range wire.exchanges() {
					log = append(log, fmt.Sprintf("%s→%d", e.Method, e.Status))
				}
				t.Logf("%s wire: %s", c.name, strings.Join(log, ", "))
			}()
			init := cs.InitializeResult()
			if init.ServerInfo == nil || init.ServerInfo.Name != "kadu" || !strings.Contains(init.Instructions, "Running a task (kadu_tasks_run) only queues an execution") {
				t.Fatalf("serverInfo %+v, instructions %q", init.ServerInfo, init.Instructions)
			}
			caps := init.Capabilities
			if caps == nil || caps.Tools == nil {
				t.Fatalf("capabilities %+v: no tools", caps)
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
			// data calls a tool that must succeed and decodes its data.
			data := func(name string, args map[string]any, into any) {
				t.Helper()
				res := call(name, args)
				var env struct{ Data json.RawMessage }
				if res.IsError || json.Unmarshal([]byte(sdkcText(res)), &env) != nil || json.Unmarshal(env.Data, into) != nil {
					t.Fatalf("%s: isError %v %s", name, res.IsError, sdkcText(res))
				}
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
			if me := byName["kadu_me"]; me == nil || !me.Annotations.ReadOnlyHint {
				t.Fatalf("tools/list: no read-only kadu_me among %d tools", len(tools.Tools))
			}
			if r := byName["kadu_tasks_run"]; r == nil || !*r.Annotations.DestructiveHint || r.Annotations.IdempotentHint {
				t.Fatalf("kadu_tasks_run: %+v, want destructive and not idempotent", r)
			}

			// A read tool, and an ordinary write: a one-step workflow.
			var me struct {
				Organization struct{ Name string }
				Role         string
			}
			data("kadu_me", map[string]any{}, &me)
			if me.Organization.Name != "Demo Company" || me.Role != "owner" {
				t.Fatalf("kadu_me: %+v", me)
			}
			name := "Go SDK " + c.name
			var task struct {
				ID, Name, Mode, Status string
				AllowedTools           []string `json:"allowed_tools"`
			}
			data("kadu_tasks_create", map[string]any{"name": name, "steps": []any{map[string]any{"id": "me", "tool": "dunning_me"}},
				"idempotency_key": "create-" + c.name}, &task)
			if task.Mode != "workflow" || !slices.Equal(task.AllowedTools, []string{"dunning_me"}) {
				t.Fatalf("kadu_tasks_create: %+v", task)
			}
			var got struct{ Name, Status string }
			data("kadu_tasks_get", map[string]any{"task_id": task.ID}, &got)
			if got.Name != name || got.Status != "active" {
				t.Fatalf("kadu_tasks_get: %+v", got)
			}

			sdkcResources(t, cs, caps)
			sdkcPrompts(t, cs, caps)

			executions := func() int {
				t.Helper()
				var list []json.RawMessage
				data("kadu_executions_list", map[string]any{"task_id": task.ID}, &list)
				return len(list)
			}
			run := func() *sdk.CallToolResult {
				t.Helper()
				return call("kadu_tasks_run", map[string]any{"task_id": task.ID, "input": map[string]any{"month": "2026-12"}})
			}
			asksFor := regexp.MustCompile(`^Run task '` + regexp.QuoteMeta(name) + `' .*\{"month":"2026-12"\}`)

			if !c.canElicit {
				res := run()
				var link struct {
					ApprovalID  string `json:"approval_id"`
					ApprovalURL string `json:"approval_url"`
					Status      string `json:"status"`
					Message     string `json:"message"`
				}
				if res.IsError || json.Unmarshal([]byte(sdkcText(res)), &link) != nil || link.Status != "pending" ||
					link.ApprovalURL != srv.base+"/approvals/"+link.ApprovalID || !strings.Contains(link.Message, "Run task '"+name+"'") {
					t.Fatalf("kadu_tasks_run at %s: isError %v %s, want the approval link", c.name, res.IsError, sdkcText(res))
				}
				if n := executions(); n != 0 {
					t.Fatalf("%d executions queued before the person approved", n)
				}
				var a struct {
					Status, Tool string
					Execution    *json.RawMessage
				}
				data("kadu_approvals_get", map[string]any{"approval_id": link.ApprovalID}, &a)
				if a.Status != "pending" || a.Tool != "kadu_tasks_run" || a.Execution != nil {
					t.Fatalf("kadu_approvals_get: %+v", a)
				}
				return
			}

			elicitor.set("decline")
			if res := run(); !res.IsError || executions() != 0 {
				t.Fatalf("declined kadu_tasks_run: %q, %d executions", sdkcText(res), executions())
			}
			if q := elicitor.questions(); len(q) != 1 || !asksFor.MatchString(q[0].Message) {
				t.Fatalf("declined: asked %+v, want one question naming the task and its input", q)
			}
			elicitor.set("accept")
			var queued struct{ ID, Status, TaskID string }
			data("kadu_tasks_run", map[string]any{"task_id": task.ID, "input": map[string]any{"month": "2026-12"}}, &queued)
			if queued.Status != "queued" || len(elicitor.questions()) != 1 || executions() != 1 {
				t.Fatalf("accepted kadu_tasks_run: %+v, asked %d times, %d executions", queued, len(elicitor.questions()), executions())
			}
			// Followed to its end: serve's own worker runs it.
			var exec struct {
				Status string
				Error  json.RawMessage
				Output struct {
					Steps struct {
						Me struct {
							Data struct{ Organization struct{ Name string } }
						}
					}
				}
			}
			for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
				data("kadu_executions_get", map[string]any{"execution_id": queued.ID}, &exec)
				if exec.Status != "queued" && exec.Status != "running" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the execution is still %s after 15 s", exec.Status)
				}
			}
			if exec.Status != "succeeded" || exec.Output.Steps.Me.Data.Organization.Name != "Demo Company" {
				t.Fatalf("the execution ended %s (error %s), output %+v", exec.Status, exec.Error, exec.Output)
			}
			var steps []struct {
				Kind, Status string
				ToolName     string `json:"tool_name"`
			}
			data("kadu_executions_steps", map[string]any{"execution_id": queued.ID}, &steps)
			if got := fmt.Sprint(steps); got != "[{tool_call succeeded dunning_me}]" {
				t.Fatalf("the execution's steps: %s", got)
			}
		})
	}
}
