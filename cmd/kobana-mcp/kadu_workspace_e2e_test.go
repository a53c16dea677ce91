package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestKaduTaskBoundToAnInboxWorkspace runs the real Inbox under a Kadu
// task's in-process calls (docs/decisions.md "Tasks bound to a
// workspace"), on each engine: once the demo organization has a second
// workspace, an unbound task's emails_list step fails saying to set the
// task's workspace_id; bound to the new workspace (by its external id) it
// succeeds; another organization's id or an unknown one is refused when
// saved.
func TestKaduTaskBoundToAnInboxWorkspace(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("serves every product")
	}
	for _, engine := range storetest.Engines {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			s := startCallServe(t, engine)
			tool := func(product, name string, args map[string]any, flags ...string) callResult {
				t.Helper()
				b, _ := json.Marshal(args)
				return s.call(t, terminal{}, append(append(flags, "--product", product, "tool", name), string(b))...)
			}
			if r := tool("inbox", "workspaces_create", map[string]any{"label": "Cobrança", "external_id": "cobranca"}); r.code != 0 {
				t.Fatalf("workspaces_create: %d %s%s", r.code, r.out, r.errOut)
			}
			r := tool("kadu", "kadu_tasks_create", map[string]any{"name": "E-mails", "steps": []any{map[string]any{"id": "list", "tool": "emails_list", "arguments": map[string]any{}}}})
			if r.code != 0 {
				t.Fatalf("kadu_tasks_create: %d %s%s", r.code, r.out, r.errOut)
			}
			taskID := dataID(t, r.out)
			run := func() (string, string) {
				t.Helper()
				r := tool("kadu", "kadu_tasks_run", map[string]any{"task_id": taskID}, "--yes")
				if r.code != 0 {
					t.Fatalf("kadu_tasks_run: %d %s%s", r.code, r.out, r.errOut)
				}
				id := dataID(t, r.out)
				deadline := time.Now().Add(60 * time.Second)
				for {
					g := tool("kadu", "kadu_executions_get", map[string]any{"execution_id": id})
					var doc struct {
						Data struct {
							Status string `json:"status"`
						} `json:"data"`
					}
					_ = json.Unmarshal([]byte(g.out), &doc)
					if doc.Data.Status == "succeeded" || doc.Data.Status == "failed" {
						st := tool("kadu", "kadu_executions_steps", map[string]any{"execution_id": id})
						return doc.Data.Status, st.out
					}
					if time.Now().After(deadline) {
						t.Fatalf("execution %s: %s", id, g.out)
					}
					time.Sleep(200 * time.Millisecond)
				}
			}
			if status, steps := run(); status != "failed" || !strings.Contains(steps, "bound to none: set the task's workspace_id") {
				t.Fatalf("unbound in an organization with two workspaces: %s\n%s", status, steps)
			}
			for _, ws := range []string{"nope", "01JZZZZZZZZZZZZZZZZZZZZZZZ"} {
				if r := tool("kadu", "kadu_tasks_update", map[string]any{"task_id": taskID, "workspace_id": ws}); !strings.Contains(r.out+r.errOut, "is not a workspace of the organization") {
					t.Fatalf("bound to %s: %d %s%s", ws, r.code, r.out, r.errOut)
				}
			}
			if r := tool("kadu", "kadu_tasks_update", map[string]any{"task_id": taskID, "workspace_id": "cobranca"}); r.code != 0 || !strings.Contains(r.out, `"workspace_id"`) {
				t.Fatalf("kadu_tasks_update: %d %s%s", r.code, r.out, r.errOut)
			}
			if status, steps := run(); status != "succeeded" || !strings.Contains(steps, `"tool_name": "emails_list"`) {
				t.Fatalf("bound to cobranca: %s\n%s", status, steps)
			}
		})
	}
}
