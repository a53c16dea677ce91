package kadu

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/kadu/runtime"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestTasks drives every task route on both engines: create (defaults,
// validation), list (status, q, cursor pages with their limit), get,
// update, triggerers and destinations (admins only), pause, resume,
// delete; roles; another organization's ids answer not_found.
func TestTasks(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startKadu(t, db, testModelConfig)

		// Create: a workflow's allowed tools default to its steps' tools.
		w := e.createTask(e.member, workflow("Boletos do mês"))
		if w.Mode != "workflow" || w.Status != "active" || w.OwnerUserID != e.member.ID || mustJSON(w.AllowedTools) != `["inbox_emails_list"]` ||
			len(w.Steps) != 1 || w.Steps[0].ID != "list" || string(w.Steps[0].Arguments) != `{"status":"processed"}` || w.Schedule != nil || w.CostCeiling != nil ||
			mustJSON(w.Triggerers) != `{"users":[],"roles":[]}` || mustJSON(w.Destinations) != `[]` || mustJSON(w.GrantedScopes) != `{}` {
			t.Fatalf("workflow: %+v", w)
		}
		a := e.createTask(e.Owner, map[string]any{"name": "Agente de cobrança", "mode": "agent", "allowed_tools": []string{"dunning_charges_list"},
			"model": "gpt-4o", "cost_ceiling": 2.5, "schedule": map[string]any{"cron": "0 8 * * 1-5"}})
		if a.Mode != "agent" || a.Model == nil || *a.Model != "gpt-4o" || a.CostCeiling == nil || *a.CostCeiling != 2.5 ||
			a.Schedule == nil || a.Schedule.Timezone != "America/Sao_Paulo" || a.Schedule.NextRunAt == nil {
			t.Fatalf("agent: %+v", a)
		}
		// A condition travels with its step.
		c := e.createTask(e.Owner, map[string]any{"name": "Com condição", "steps": []map[string]any{
			{"tool": "dunning_charges_create", "condition": "{{input.go}}", "on_error": "continue"}}})
		if !strings.Contains(mustJSON(c.Steps), `"condition":"{{input.go}}"`) || c.Steps[0].OnError != "continue" {
			t.Fatalf("condition: %s", mustJSON(c.Steps))
		}

		// Validation: one detail per field.
		for _, bad := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"name": "x", "steps": []map[string]any{}}, `"steps"`},
			{map[string]any{"name": "x", "steps": []map[string]any{{"tool": "Not A Tool"}}}, `"steps.0.tool"`},
			{map[string]any{"name": "x", "steps": []map[string]any{{"id": "a", "tool": "t_a"}, {"id": "a", "tool": "t_a"}}}, `"steps.1.id"`},
			{map[string]any{"name": "x", "steps": []map[string]any{{"tool": "t_a"}}, "allowed_tools": []string{"t_b"}}, `"steps.0.tool"`},
			{map[string]any{"name": "x", "mode": "agent", "allowed_tools": []string{"kadu_tasks_run"}}, `"allowed_tools.0"`},
			{map[string]any{"name": "x", "mode": "agent", "allowed_tools": []string{"a_b", "a_b"}}, `"allowed_tools.1"`},
			{map[string]any{"name": "x", "mode": "agent", "model": "unpriced-model"}, `"model"`},
			{map[string]any{"name": "x", "mode": "agent", "cost_ceiling": 11}, `"cost_ceiling"`},
			{map[string]any{"name": "x", "mode": "agent", "steps": []map[string]any{{"tool": "t_a"}}}, `"steps"`},
			{map[string]any{"name": "x", "mode": "agent", "schedule": map[string]any{"cron": "61 * * * *"}}, `"schedule.cron"`},
			{map[string]any{"name": "x", "mode": "agent", "schedule": map[string]any{"cron": "0 8 * * *", "timezone": "Mars/Olympus"}}, `"schedule.timezone"`},
			{map[string]any{"name": "   ", "mode": "agent"}, `"name"`},
		} {
			resp := e.wantError(e.member, "POST", "/api/v1/tasks", bad.body, 422, "validation_failed")
			if !strings.Contains(resp, `"field":`+bad.field) {
				t.Errorf("%v: %s, want a detail for %s", bad.body, resp, bad.field)
			}
		}
		// Viewers read only.
		e.wantError(e.viewer, "POST", "/api/v1/tasks", workflow("v"), 403, "forbidden")
		e.do(e.viewer, "GET", "/api/v1/tasks/"+w.ID, nil, 200)

		// List: oldest first, by status and name, cursor pages with their limit.
		p := list[taskJSON](t, e.Env, "/api/v1/tasks?limit=2")
		if len(p.Data) != 2 || p.Data[0].ID != w.ID || p.Data[1].ID != a.ID || p.Meta.NextCursor == nil || p.Meta.Limit != 2 {
			t.Fatalf("page 1: %+v", p)
		}
		p = list[taskJSON](t, e.Env, "/api/v1/tasks?limit=2&cursor="+*p.Meta.NextCursor)
		if len(p.Data) != 1 || p.Data[0].ID != c.ID || p.Meta.NextCursor != nil {
			t.Fatalf("page 2: %+v", p)
		}
		if p = list[taskJSON](t, e.Env, "/api/v1/tasks?q=COBRAN"); len(p.Data) != 1 || p.Data[0].ID != a.ID || p.Meta.Limit != 50 {
			t.Fatalf("q: %+v", p)
		}
		if p = list[taskJSON](t, e.Env, "/api/v1/tasks?q=%25"); len(p.Data) != 0 {
			t.Fatalf("q is literal: %+v", p)
		}
		e.wantError(e.Owner, "GET", "/api/v1/tasks?cursor=nope", nil, 422, "validation_failed")

		// Update: the owner, or an admin; another member may not.
		e.wantError(e.member2, "PATCH", "/api/v1/tasks/"+w.ID, map[string]any{"name": "x"}, 403, "forbidden")
		resp := e.do(e.member, "PATCH", "/api/v1/tasks/"+w.ID, map[string]any{"name": "Boletos", "cost_ceiling": 1.25,
			"schedule": map[string]any{"cron": "@daily", "timezone": "UTC"}}, 200)
		up := data[taskJSON](t, 200, resp, 200)
		if up.Name != "Boletos" || *up.CostCeiling != 1.25 || up.Schedule.Cron != "@daily" || up.Schedule.Timezone != "UTC" || len(up.Steps) != 1 {
			t.Fatalf("update: %s", resp)
		}
		resp = e.do(e.admin, "PATCH", "/api/v1/tasks/"+w.ID, map[string]any{"cost_ceiling": -1, "schedule": map[string]any{"cron": ""},
			"steps": []map[string]any{{"tool": "dunning_charges_list"}, {"tool": "dunning_charges_create"}}}, 200)
		up = data[taskJSON](t, 200, resp, 200)
		if up.CostCeiling != nil || up.Schedule != nil || mustJSON(up.AllowedTools) != `["dunning_charges_list","dunning_charges_create"]` {
			t.Fatalf("update by an admin: %s", resp)
		}
		// Switching to agent drops the steps.
		resp = e.do(e.Owner, "PATCH", "/api/v1/tasks/"+c.ID, map[string]any{"mode": "agent"}, 200)
		if up = data[taskJSON](t, 200, resp, 200); up.Mode != "agent" || len(up.Steps) != 0 {
			t.Fatalf("to agent: %s", resp)
		}

		// Triggerers and destinations: admins only, validated.
		trig := map[string]any{"users": []string{e.member2.ID}, "roles": []string{"admin"}}
		e.wantError(e.member, "PUT", "/api/v1/tasks/"+w.ID+"/triggerers", trig, 403, "forbidden")
		e.wantError(e.admin, "PUT", "/api/v1/tasks/"+w.ID+"/triggerers", map[string]any{"users": []string{e.Other.ID}, "roles": []string{}}, 422, "validation_failed")
		e.wantError(e.admin, "PUT", "/api/v1/tasks/"+w.ID+"/triggerers", map[string]any{"users": []string{}, "roles": []string{"boss"}}, 422, "validation_failed")
		resp = e.do(e.admin, "PUT", "/api/v1/tasks/"+w.ID+"/triggerers", trig, 200)
		if up = data[taskJSON](t, 200, resp, 200); mustJSON(up.Triggerers) != `{"users":["`+e.member2.ID+`"],"roles":["admin"]}` {
			t.Fatalf("triggerers: %s", resp)
		}
		dest := map[string]any{"destinations": []map[string]any{{"kind": "webhook"}, {"kind": "email", "target": "fin@mine.example", "on": []string{"failed"}}}}
		e.wantError(e.member, "PUT", "/api/v1/tasks/"+w.ID+"/destinations", dest, 403, "forbidden")
		e.wantError(e.admin, "PUT", "/api/v1/tasks/"+w.ID+"/destinations", map[string]any{"destinations": []map[string]any{{"kind": "email", "target": "nope"}}}, 422, "validation_failed")
		e.wantError(e.admin, "PUT", "/api/v1/tasks/"+w.ID+"/destinations", map[string]any{"destinations": []map[string]any{{"kind": "webhook", "on": []string{"sometimes"}}}}, 422, "validation_failed")
		resp = e.do(e.admin, "PUT", "/api/v1/tasks/"+w.ID+"/destinations", dest, 200)
		if up = data[taskJSON](t, 200, resp, 200); len(up.Destinations) != 2 || up.Destinations[1].Target != "fin@mine.example" {
			t.Fatalf("destinations: %s", resp)
		}

		// Pause and resume; status filter.
		e.wantError(e.member2, "POST", "/api/v1/tasks/"+a.ID+"/pause", nil, 403, "forbidden")
		resp = e.do(e.Owner, "POST", "/api/v1/tasks/"+a.ID+"/pause", nil, 200)
		if up = data[taskJSON](t, 200, resp, 200); up.Status != "paused" || up.Schedule.NextRunAt != nil {
			t.Fatalf("pause: %s", resp)
		}
		if p = list[taskJSON](t, e.Env, "/api/v1/tasks?status=paused"); len(p.Data) != 1 || p.Data[0].ID != a.ID {
			t.Fatalf("paused: %+v", p)
		}
		resp = e.do(e.Owner, "POST", "/api/v1/tasks/"+a.ID+"/resume", nil, 200)
		if up = data[taskJSON](t, 200, resp, 200); up.Status != "active" || up.Schedule.NextRunAt == nil {
			t.Fatalf("resume: %s", resp)
		}

		// Another organization sees none of it.
		taskPath := "/api/v1/tasks/" + w.ID
		for _, r := range []struct {
			method, path string
			body         any
		}{
			{"GET", taskPath, nil}, {"PATCH", taskPath, map[string]any{"name": "x"}}, {"DELETE", taskPath, nil},
			{"PUT", taskPath + "/triggerers", trig}, {"PUT", taskPath + "/destinations", dest},
			{"POST", taskPath + "/pause", nil}, {"POST", taskPath + "/resume", nil}, {"POST", taskPath + "/run", map[string]any{}},
		} {
			if code, resp := e.Do(e.Other, r.method, r.path, r.body); code != 404 || !strings.Contains(resp, `"not_found"`) {
				t.Errorf("%s %s as another organization: %d %s", r.method, r.path, code, resp)
			}
		}
		if p := list[taskJSON](t, e.Env, "/api/v1/tasks"); len(p.Data) != 3 {
			t.Fatalf("mine: %d", len(p.Data))
		}
		code, body := e.Do(e.Other, "GET", "/api/v1/tasks", nil)
		if code != 200 || !strings.Contains(body, `"data":[]`) {
			t.Fatalf("theirs: %d %s", code, body)
		}

		// Delete (soft): gone from get and list, its row kept.
		e.wantError(e.member2, "DELETE", taskPath, nil, 403, "forbidden")
		e.do(e.member, "DELETE", taskPath, nil, 204)
		e.wantError(e.Owner, "GET", taskPath, nil, 404, "not_found")
		e.wantError(e.Owner, "DELETE", taskPath, nil, 404, "not_found")
		if n := e.count(`SELECT COUNT(*) FROM kadu_tasks WHERE id = ? AND status = 'deleted' AND deleted_at IS NOT NULL`, w.ID); n != 1 {
			t.Fatalf("deleted row: %d", n)
		}
		if p := list[taskJSON](t, e.Env, "/api/v1/tasks"); len(p.Data) != 2 {
			t.Fatalf("after delete: %d", len(p.Data))
		}
	})
}

// TestTaskScopesGranted: with a tool registry, allowed tools must exist,
// the person saving the task must be allowed to use them, and the task
// is granted exactly the scopes they need, per product.
func TestTaskScopesGranted(t *testing.T) {
	tools := func(name string) (runtime.ToolInfo, bool) {
		switch name {
		case "inbox_emails_list":
			return runtime.ToolInfo{Product: "inbox", Scopes: []string{"inbox.emails"}, Permission: "read"}, true
		case "dunning_charges_create":
			return runtime.ToolInfo{Product: "dunning", Scopes: []string{"dunning.charges"}, Permission: "write"}, true
		case "dunning_charges_delete":
			return runtime.ToolInfo{Product: "dunning", Scopes: []string{"dunning.charges"}, Permission: "manage", Destructive: true}, true
		}
		return runtime.ToolInfo{}, false
	}
	e := startKadu(t, storetest.Open(t, store.SQLite, Migrations), Config{lookupTool: tools})
	tk := e.createTask(e.member, map[string]any{"name": "x", "steps": []map[string]any{{"tool": "inbox_emails_list"}, {"tool": "dunning_charges_create"}}})
	if mustJSON(tk.GrantedScopes) != `{"dunning":["dunning.charges"],"inbox":["inbox.emails"]}` {
		t.Fatalf("granted: %s", mustJSON(tk.GrantedScopes))
	}
	resp := e.wantError(e.member, "POST", "/api/v1/tasks", map[string]any{"name": "x", "steps": []map[string]any{{"tool": "dunning_charges_delete"}}}, 403, "forbidden")
	if !strings.Contains(resp, "dunning_charges_delete") {
		t.Fatalf("member granting an admin's tool: %s", resp)
	}
	e.createTask(e.admin, map[string]any{"name": "x", "steps": []map[string]any{{"tool": "dunning_charges_delete"}}})
	resp = e.wantError(e.member, "POST", "/api/v1/tasks", map[string]any{"name": "x", "mode": "agent", "allowed_tools": []string{"nope_tool"}}, 422, "validation_failed")
	if !strings.Contains(resp, `"allowed_tools.0"`) {
		t.Fatalf("unknown tool: %s", resp)
	}
}

// TestValidateWorkflowHook: the workflow check the service is assembled
// with is what saving a workflow answers.
func TestValidateWorkflowHook(t *testing.T) {
	var seen []records.WorkflowStep
	validate := func(steps []records.WorkflowStep) error {
		seen = steps
		return checkWorkflowStructure(steps)
	}
	e := startKadu(t, storetest.Open(t, store.SQLite, Migrations), Config{validateWorkflow: validate})
	e.createTask(e.Owner, workflow("x"))
	if len(seen) != 1 || seen[0].Tool != "inbox_emails_list" {
		t.Fatalf("hook saw %+v", seen)
	}
}

// TestTaskIdempotencyAndStrictReads: a create repeated with the same
// X-Idempotency-Key replays the first answer (one task); reads refuse
// arguments they do not declare, naming them.
func TestTaskIdempotencyAndStrictReads(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startKadu(t, db, Config{})
		body := workflow("Idem")
		code, h1, b1 := e.DoFull(e.Token(e.Owner, "api"), "POST", "/api/v1/tasks", body, "X-Idempotency-Key", "k-1")
		code2, h2, b2 := e.DoFull(e.Token(e.Owner, "api"), "POST", "/api/v1/tasks", body, "X-Idempotency-Key", "k-1")
		if code != 201 || code2 != 201 || b1 != b2 || h1.Get("Idempotent-Replayed") != "" || h2.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("replay: %d %d %q\n%s\n%s", code, code2, h2.Get("Idempotent-Replayed"), b1, b2)
		}
		if n := e.count(`SELECT COUNT(*) FROM kadu_tasks WHERE organization_id = ?`, e.Mine.ID); n != 1 {
			t.Fatalf("%d tasks", n)
		}
		other := workflow("Other")
		if code, resp := e.Do(e.Owner, "POST", "/api/v1/tasks", other, "X-Idempotency-Key", "k-1"); code != 409 || !strings.Contains(resp, "idempotency_key_reused") {
			t.Fatalf("reuse: %d %s", code, resp)
		}
		// Through MCP: idempotency_key, then a strict read.
		args := map[string]any{"name": "Via MCP", "steps": []map[string]any{{"tool": "a_b"}}, "idempotency_key": "m-1"}
		first, isErr := e.Call(e.Owner, "kadu_tasks_create", args)
		second, isErr2 := e.Call(e.Owner, "kadu_tasks_create", args)
		if isErr || isErr2 || first != second {
			t.Fatalf("MCP replay:\n%s\n%s", first, second)
		}
		text, isErr := e.Call(e.Owner, "kadu_tasks_list", map[string]any{"stauts": "active"})
		if !isErr || !strings.Contains(text, "stauts") {
			t.Fatalf("strict read: %s", text)
		}
		if resp := e.wantError(e.Owner, "GET", "/api/v1/tasks?stauts=active", nil, 422, "validation_failed"); !strings.Contains(resp, `"field":"stauts"`) {
			t.Fatalf("strict REST read: %s", resp)
		}
		text, isErr = e.Call(e.Owner, "kadu_executions_list", map[string]any{"task": "x"})
		if !isErr || !strings.Contains(text, `task`) {
			t.Fatalf("strict read: %s", text)
		}
		var page struct{ Data []taskJSON }
		text, _ = e.Call(e.Owner, "kadu_tasks_list", nil)
		if json.Unmarshal([]byte(text), &page) != nil || len(page.Data) != 2 {
			t.Fatalf("list: %s", text)
		}
	})
}

// TestCronValidation: five fields and descriptors, in a named zone; the
// zone never inside the expression; @every and impossible dates refused.
func TestCronValidation(t *testing.T) {
	t.Parallel()
	for _, ok := range []struct{ expr, tz string }{
		{"0 8 * * 1-5", "America/Sao_Paulo"}, {"*/15 * * * *", "UTC"}, {"@daily", "UTC"}, {"@monthly", "America/Manaus"}, {"0 0 29 2 *", "UTC"},
	} {
		if _, err := parseSchedule(ok.expr, ok.tz); err != nil {
			t.Errorf("%q %q: %v", ok.expr, ok.tz, err)
		}
	}
	for _, bad := range []struct{ expr, tz string }{
		{"0 8 * *", "UTC"}, {"0 0 8 * * *", "UTC"}, {"60 * * * *", "UTC"}, {"@every 5m", "UTC"}, {"CRON_TZ=UTC 0 8 * * *", "UTC"},
		{"0 8 * * *", "Local"}, {"0 8 * * *", "Nowhere/City"}, {"0 0 30 2 *", "UTC"}, {"", "UTC"},
	} {
		if _, err := parseSchedule(bad.expr, bad.tz); err == nil {
			t.Errorf("%q %q accepted", bad.expr, bad.tz)
		}
	}
	// The zone decides the instant: 08:00 in São Paulo is 11:00 UTC.
	s, _ := parseSchedule("0 8 * * *", "America/Sao_Paulo")
	next := s.Next(mustTime("2026-03-10T00:00:00Z"))
	if got := next.UTC().Format("2006-01-02T15:04Z"); got != "2026-03-10T11:00Z" {
		t.Fatalf("next: %s", got)
	}
}
