package kadu

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// addWorkspaceTool registers "gamma", a workspace-scoped product whose one
// tool resolves its workspace exactly as the Inbox's API does
// (restkit.SelectWorkspace over the call's identity, no header: an
// in-process call has none) and answers the workspace it acts in, or the
// tenancy's error as the bridge renders a REST error.
func addWorkspaceTool(t *testing.T, e *runtimeEnv) {
	t.Helper()
	err := e.reg.Add("gamma", []mcp.Tool{{Name: "gamma_where", Title: "Where am I", Annotations: roAnn,
		Requires: mcp.Requirement{Scopes: []string{"gamma.read"}, Permission: identity.PermRead},
		Handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			tn, err := restkit.SelectWorkspace(ctx, e.Acc, "")
			var re *rest.Error
			if errors.As(err, &re) {
				b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": re.Code, "message": re.Message, "details": re.Details}})
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(string(b))}, IsError: true}, nil
			}
			if err != nil {
				return nil, err
			}
			return mcp.TextResult(`{"workspace_id":"` + tn.WorkspaceID + `"}`), nil
		}}})
	if err != nil {
		t.Fatal(err)
	}
}

// TestTaskBoundToWorkspace: in an organization with two workspaces, a
// task bound to one (by external id) calls a workspace-scoped tool in it;
// an unbound task's call fails with an error naming workspace_id; another
// organization's or an unknown workspace is refused when the task is
// created or updated, and nothing changes; "" unbinds; a bound workspace
// deleted later fails the call (checked at every call, not only when
// saved).
func TestTaskBoundToWorkspace(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startRuntime(t, db, Config{})
		addWorkspaceTool(t, e)
		billing, err := e.Acc.CreateWorkspace(e.ctx, e.Mine.ID, accounts.NewWorkspace{Label: "Billing", ExternalID: "billing"})
		if err != nil {
			t.Fatal(err)
		}
		body := func(ws any) map[string]any {
			b := map[string]any{"name": "Onde", "steps": []map[string]any{{"id": "where", "tool": "gamma_where"}}}
			if ws != nil {
				b["workspace_id"] = ws
			}
			return b
		}

		// Bound: the call acts in Billing.
		bound := e.task(body("billing"))
		if deref(bound.WorkspaceID) != billing.ID {
			t.Fatalf("bound task's workspace %v, want %s", bound.WorkspaceID, billing.ID)
		}
		x := e.wait(e.run(bound.ID, nil), records.ExecSucceeded, records.ExecFailed)
		if x.Status != records.ExecSucceeded || !strings.Contains(deref(x.OutputJSON), `"workspace_id":"`+billing.ID+`"`) {
			t.Fatalf("bound run: %s %s %s", x.Status, deref(x.ErrorMessage), deref(x.OutputJSON))
		}

		// Unbound: the step fails, saying what to set.
		unbound := e.task(body(nil))
		if unbound.WorkspaceID != nil {
			t.Fatalf("unbound task's workspace %v", *unbound.WorkspaceID)
		}
		x = e.wait(e.run(unbound.ID, nil), records.ExecSucceeded, records.ExecFailed)
		steps := e.steps(x.ID)
		if x.Status != records.ExecFailed || len(steps) != 1 || !strings.Contains(deref(steps[0].ErrorMessage), "bound to none: set the task's workspace_id") {
			t.Fatalf("unbound run: %s %s %v", x.Status, deref(x.ErrorMessage), steps)
		}

		// Another organization's workspace, an unknown one: refused, the
		// task unchanged; the same answer for both.
		for _, ws := range []string{e.TheirWS.ID, e.TheirWS.ExternalID, "nope"} {
			if resp := e.wantError(e.member, "POST", "/api/v1/tasks", body(ws), 422, "validation_failed"); !strings.Contains(resp, `"field":"workspace_id","message":"is not a workspace of the organization"`) {
				t.Fatalf("create with %s: %s", ws, resp)
			}
			e.wantError(e.member, "PATCH", "/api/v1/tasks/"+bound.ID, map[string]any{"workspace_id": ws}, 422, "validation_failed")
		}
		code, resp := e.Do(e.member, "GET", "/api/v1/tasks/"+bound.ID, nil)
		if got := data[taskJSON](t, code, resp, 200); deref(got.WorkspaceID) != billing.ID {
			t.Fatalf("after refused updates: %v", got.WorkspaceID)
		}

		// Bound by id to the default workspace, then unbound with "".
		code, resp = e.Do(e.member, "PATCH", "/api/v1/tasks/"+unbound.ID, map[string]any{"workspace_id": e.MineWS.ID})
		if got := data[taskJSON](t, code, resp, 200); deref(got.WorkspaceID) != e.MineWS.ID {
			t.Fatalf("bind by id: %v", got.WorkspaceID)
		}
		code, resp = e.Do(e.member, "PATCH", "/api/v1/tasks/"+unbound.ID, map[string]any{"workspace_id": ""})
		if got := data[taskJSON](t, code, resp, 200); got.WorkspaceID != nil {
			t.Fatalf("unbind: %v", *got.WorkspaceID)
		}

		// The bound workspace deleted: the call is refused as not found.
		if err := e.Acc.DeleteWorkspace(e.ctx, e.Mine.ID, billing.ID); err != nil {
			t.Fatal(err)
		}
		x = e.wait(e.run(bound.ID, nil), records.ExecSucceeded, records.ExecFailed)
		steps = e.steps(x.ID)
		if x.Status != records.ExecFailed || len(steps) != 1 || !strings.Contains(deref(steps[0].ErrorMessage), "not_found") {
			t.Fatalf("deleted workspace run: %s %v", x.Status, steps)
		}
	})
}
