package kadu

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/kadu/runtime"
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit/approval"
)

// TestRunRefusals: every refusal of kadu_tasks_run is synchronous, has
// its own code, and queues nothing — neither an execution nor a job.
func TestRunRefusals(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startKadu(t, db, testModelConfig)
		w := e.createTask(e.member, workflow("Workflow"))
		a := e.createTask(e.member, map[string]any{"name": "Agente", "mode": "agent", "allowed_tools": []string{"inbox_emails_list"}})
		nothingQueued := func(when string) {
			t.Helper()
			if n := e.count(`SELECT COUNT(*) FROM kadu_executions`); n != 0 || e.runJobs() != 0 {
				t.Fatalf("%s: %d executions, %d jobs queued", when, n, e.runJobs())
			}
		}
		run := func(id string) string { return "/api/v1/tasks/" + id + "/run" }

		// Not allowed to trigger: another member, until the triggerers name them.
		resp := e.wantError(e.member2, "POST", run(w.ID), map[string]any{}, 403, codeNotAllowed)
		if !strings.Contains(resp, "kadu_tasks_set_triggerers") {
			t.Fatalf("message: %s", resp)
		}
		e.wantError(e.viewer, "POST", run(w.ID), map[string]any{}, 403, "forbidden")
		nothingQueued("not allowed")

		// The ceiling: max_cost below one model step.
		resp = e.wantError(e.member, "POST", run(a.ID), map[string]any{"max_cost": 0}, 422, codeCostCeilingTooLow)
		if !strings.Contains(resp, "max_cost") {
			t.Fatalf("message: %s", resp)
		}
		nothingQueued("ceiling")

		// The plan's month spent.
		if err := records.AddUsage(e.ctx, db, e.Mine.ID, records.UsageMonth(time.Now()), defaultMonthlyCostLimitCents, records.Tokens{}, 0, store.Now()); err != nil {
			t.Fatal(err)
		}
		resp = e.wantError(e.member, "POST", run(w.ID), map[string]any{}, 402, codePlanLimitReached)
		if !strings.Contains(resp, "R$ 500,00") {
			t.Fatalf("message: %s", resp)
		}
		e.wantError(e.member, "POST", run(a.ID), map[string]any{}, 402, codePlanLimitReached)
		nothingQueued("plan")
		// Theirs is another organization's month.
		tw := data[taskJSON](t, 201, mustBody(e.Do(e.Other, "POST", "/api/v1/tasks", workflow("Theirs"))), 201)
		e.do(e.Other, "POST", run(tw.ID), map[string]any{}, 202)
		if _, err := db.Exec(e.ctx, `DELETE FROM kadu_executions`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(e.ctx, `DELETE FROM river_job`); err != nil {
			t.Fatal(err)
		}

		// Paused.
		if _, err := db.Exec(e.ctx, `DELETE FROM kadu_monthly_usage`); err != nil {
			t.Fatal(err)
		}
		e.do(e.member, "POST", "/api/v1/tasks/"+w.ID+"/pause", nil, 200)
		e.wantError(e.member, "POST", run(w.ID), map[string]any{}, 409, codeTaskPaused)
		nothingQueued("paused")
	})
}

// TestModelNotConfigured: without a model API an agent task is refused
// with model_not_configured saying what to set; a workflow still runs.
func TestModelNotConfigured(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startKadu(t, db, Config{})
		a := e.createTask(e.Owner, map[string]any{"name": "Agente", "mode": "agent"})
		resp := e.wantError(e.Owner, "POST", "/api/v1/tasks/"+a.ID+"/run", map[string]any{}, 422, codeModelNotConfigured)
		if !strings.Contains(resp, "--kadu-model-url") || !strings.Contains(resp, "KOBANA_KADU_MODEL_URL") {
			t.Fatalf("message: %s", resp)
		}
		if e.count(`SELECT COUNT(*) FROM kadu_executions`) != 0 || e.runJobs() != 0 {
			t.Fatal("queued")
		}
		// Through MCP the refusal is the tool's error, and nothing is asked.
		res := confirmedCall(t, e.Env, "kadu_tasks_run", map[string]any{"task_id": a.ID}, "")
		if res["isError"] != true || res["requestState"] != nil || !strings.Contains(mustJSON(res["content"]), codeModelNotConfigured) {
			t.Fatalf("MCP: %v", res)
		}
		w := e.createTask(e.Owner, workflow("Workflow"))
		e.do(e.Owner, "POST", "/api/v1/tasks/"+w.ID+"/run", map[string]any{}, 202)
	})
}

// TestExecutions drives every execution route on both engines: run (202
// queued, its job enqueued), the ceiling it was given, list with its
// filters and pages, get, steps by cursor, continue, cancel, and another
// organization that sees none of it.
func TestExecutions(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startKadu(t, db, testModelConfig)
		a := e.createTask(e.member, map[string]any{"name": "Agente", "mode": "agent", "cost_ceiling": 3})
		w := e.createTask(e.member, workflow("Workflow"))

		// Run: 202, queued, one job; the ceiling is the least of plan, task and max_cost.
		resp := e.do(e.member, "POST", "/api/v1/tasks/"+a.ID+"/run", map[string]any{"input": map[string]any{"month": "2026-03"}, "max_cost": 2.5}, 202)
		x := data[executionJSON](t, 202, resp, 202)
		if x.Status != "queued" || x.TaskID != a.ID || x.Trigger != "api" || x.TriggeredBy == nil || *x.TriggeredBy != e.member.ID ||
			x.MaxCost != 2.5 || x.Cost != 0 || string(x.Input) != `{"month":"2026-03"}` || x.Model == nil || *x.Model != "gpt-4o-mini" || e.runJobs() != 1 {
			t.Fatalf("run: %s (jobs %d)", resp, e.runJobs())
		}
		var args runtime.RunExecutionArgs
		var raw string
		argsText := "json(args)" // SQLite keeps JSONB
		if db.Dialect() == store.Postgres {
			argsText = "args::text"
		}
		if err := db.Get(e.ctx, &raw, `SELECT `+argsText+` FROM river_job WHERE kind = ?`, runtime.RunExecutionKind); err != nil || json.Unmarshal([]byte(raw), &args) != nil || args.ExecutionID != x.ID {
			t.Fatalf("job args %q %v", raw, err)
		}
		x2 := data[executionJSON](t, 202, e.do(e.member, "POST", "/api/v1/tasks/"+a.ID+"/run", map[string]any{}, 202), 202)
		if x2.MaxCost != 3 {
			t.Fatalf("task ceiling: %v", x2.MaxCost)
		}
		x3 := data[executionJSON](t, 202, e.do(e.member, "POST", "/api/v1/tasks/"+w.ID+"/run", map[string]any{"max_cost": 50}, 202), 202)
		if x3.MaxCost != 10 || x3.Model != nil {
			t.Fatalf("plan ceiling: %+v", x3)
		}
		// Through MCP (a form-capable client confirms): trigger manual; the
		// organization's owner may run it once its role is a triggerer.
		e.do(e.admin, "PUT", "/api/v1/tasks/"+w.ID+"/triggerers", map[string]any{"users": []string{}, "roles": []string{"owner"}}, 200)
		ask := confirmedCall(t, e.Env, "kadu_tasks_run", map[string]any{"task_id": w.ID}, "")
		if msg := formMessage(ask); !strings.Contains(msg, "Run task 'Workflow' (a workflow of 1 step(s))") || !strings.Contains(msg, "inbox_emails_list") || !strings.Contains(msg, "R$ 10,00") {
			t.Fatalf("asks: %v", ask)
		}
		done := confirmedCall(t, e.Env, "kadu_tasks_run", map[string]any{"task_id": w.ID}, ask["requestState"].(string))
		content, _ := done["content"].([]any)
		if done["isError"] == true || len(content) == 0 || !strings.Contains(content[0].(map[string]any)["text"].(string), `"trigger":"manual"`) {
			t.Fatalf("run via MCP: %v", done)
		}
		if e.runJobs() != 4 {
			t.Fatalf("%d jobs", e.runJobs())
		}

		// List: newest first, filters, pages with their limit.
		p := list[executionJSON](t, e.Env, "/api/v1/executions?limit=3")
		if len(p.Data) != 3 || p.Data[0].Trigger != "manual" || p.Data[2].ID != x2.ID || p.Meta.NextCursor == nil || p.Meta.Limit != 3 {
			t.Fatalf("page 1: %+v", p)
		}
		p = list[executionJSON](t, e.Env, "/api/v1/executions?limit=3&cursor="+*p.Meta.NextCursor)
		if len(p.Data) != 1 || p.Data[0].ID != x.ID || p.Meta.NextCursor != nil {
			t.Fatalf("page 2: %+v", p)
		}
		if p = list[executionJSON](t, e.Env, "/api/v1/executions?task_id="+a.ID); len(p.Data) != 2 {
			t.Fatalf("by task: %d", len(p.Data))
		}
		if p = list[executionJSON](t, e.Env, "/api/v1/executions?trigger=manual"); len(p.Data) != 1 {
			t.Fatalf("by trigger: %d", len(p.Data))
		}
		if p = list[executionJSON](t, e.Env, "/api/v1/executions?status=running"); len(p.Data) != 0 {
			t.Fatalf("by status: %d", len(p.Data))
		}
		e.wantError(e.Owner, "GET", "/api/v1/executions?status=bogus", nil, 422, "validation_failed")

		// The runtime's side: running, steps, waiting for input.
		rec := e.execution(x.ID)
		if err := e.svc.machine.Transition(e.ctx, db, rec, records.ExecRunning, records.Change{}); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			st, err := e.svc.machine.BeginStep(e.ctx, db, rec, records.StepStart{Kind: records.StepLLM})
			if err != nil {
				t.Fatal(err)
			}
			if err := e.svc.machine.FinishStep(e.ctx, db, rec, st, records.StepOutcome{Status: records.StepSucceeded, ResultSummary: "step " + string(rune('a'+i)),
				Usage: records.Tokens{In: 1000, Out: 100}, CostCents: 2}); err != nil {
				t.Fatal(err)
			}
		}
		q := `{"question":"Qual mês?"}`
		if err := e.svc.machine.Transition(e.ctx, db, rec, records.ExecWaitingInput, records.Change{Waiting: &q}); err != nil {
			t.Fatal(err)
		}
		got := data[executionJSON](t, 200, e.do(e.viewer, "GET", "/api/v1/executions/"+x.ID, nil, 200), 200)
		if got.Status != "waiting_input" || string(got.Waiting) != q || got.Cost != 0.06 || got.Tokens.Input != 3000 || got.StepCount != 3 || got.StartedAt == nil || got.Deadline == nil {
			t.Fatalf("get: %+v", got)
		}
		sp := list[stepJSON](t, e.Env, "/api/v1/executions/"+x.ID+"/steps?limit=2")
		if len(sp.Data) != 2 || sp.Data[0].Seq != 1 || sp.Data[1].Seq != 2 || sp.Meta.NextCursor == nil || sp.Data[0].Cost != 0.02 || sp.Data[0].Kind != "llm" {
			t.Fatalf("steps page 1: %+v", sp)
		}
		sp = list[stepJSON](t, e.Env, "/api/v1/executions/"+x.ID+"/steps?limit=2&cursor="+*sp.Meta.NextCursor)
		if len(sp.Data) != 1 || sp.Data[0].Seq != 3 || sp.Meta.NextCursor != nil || *sp.Data[0].ResultSummary != "step c" {
			t.Fatalf("steps page 2: %+v", sp)
		}

		// Continue: only a waiting_input execution, by someone who may.
		e.wantError(e.member, "POST", "/api/v1/executions/"+x2.ID+"/continue", map[string]any{"input": map[string]any{}}, 409, codeNotWaiting)
		e.wantError(e.member2, "POST", "/api/v1/executions/"+x.ID+"/continue", map[string]any{"input": map[string]any{"month": "03"}}, 403, codeNotAllowed)
		jobs := e.runJobs()
		resp = e.do(e.member, "POST", "/api/v1/executions/"+x.ID+"/continue", map[string]any{"input": map[string]any{"month": "03", "api_key": "sk-x"}}, 202)
		got = data[executionJSON](t, 202, resp, 202)
		rec = e.execution(x.ID)
		if got.Status != "queued" || string(got.Waiting) != "null" || rec.ResumeInputJSON == nil || *rec.ResumeInputJSON != `{"api_key":"sk-x","month":"03"}` ||
			e.runJobs() != jobs+1 || got.Deadline != nil {
			t.Fatalf("continue: %s %+v (jobs %d)", resp, rec, e.runJobs())
		}
		sp = list[stepJSON](t, e.Env, "/api/v1/executions/"+x.ID+"/steps")
		last := sp.Data[len(sp.Data)-1]
		if last.Kind != "message" || string(last.Arguments) != `{"api_key":"[redacted]","month":"03"}` || !strings.Contains(*last.ResultSummary, e.member.ID) {
			t.Fatalf("message step: %+v", last)
		}

		// Cancel: any active execution, once.
		e.wantError(e.member2, "POST", "/api/v1/executions/"+x2.ID+"/cancel", nil, 403, codeNotAllowed)
		got = data[executionJSON](t, 200, e.do(e.admin, "POST", "/api/v1/executions/"+x2.ID+"/cancel", nil, 200), 200)
		if got.Status != "canceled" || got.FinishedAt == nil || got.Error == nil || got.Error.Code != "canceled" {
			t.Fatalf("cancel: %+v", got)
		}
		e.wantError(e.member, "POST", "/api/v1/executions/"+x2.ID+"/cancel", nil, 409, codeFinished)

		// Another organization.
		for _, r := range []struct {
			method, path string
			body         any
		}{
			{"GET", "/api/v1/executions/" + x.ID, nil}, {"GET", "/api/v1/executions/" + x.ID + "/steps", nil},
			{"POST", "/api/v1/executions/" + x.ID + "/continue", map[string]any{"input": map[string]any{}}},
			{"POST", "/api/v1/executions/" + x.ID + "/cancel", nil},
		} {
			if code, resp := e.Do(e.Other, r.method, r.path, r.body); code != 404 || !strings.Contains(resp, `"not_found"`) {
				t.Errorf("%s %s as another organization: %d %s", r.method, r.path, code, resp)
			}
		}
		if code, body := e.Do(e.Other, "GET", "/api/v1/executions", nil); code != 200 || !strings.Contains(body, `"data":[]`) {
			t.Fatalf("theirs: %s", body)
		}
		if code, body := e.Do(e.Other, "GET", "/api/v1/executions?task_id="+a.ID, nil); code != 200 || !strings.Contains(body, `"data":[]`) {
			t.Fatalf("theirs by my task: %s", body)
		}
	})
}

// TestMeAndUsage: the plan as configured and the month's cost; usage by
// day and by task with server-computed totals.
func TestMeAndUsage(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startKadu(t, db, testModelConfig)
		a := e.createTask(e.Owner, map[string]any{"name": "Agente", "mode": "agent"})
		x := data[executionJSON](t, 202, e.do(e.Owner, "POST", "/api/v1/tasks/"+a.ID+"/run", map[string]any{}, 202), 202)
		rec := e.execution(x.ID)
		_ = e.svc.machine.Transition(e.ctx, db, rec, records.ExecRunning, records.Change{})
		st, _ := e.svc.machine.BeginStep(e.ctx, db, rec, records.StepStart{Kind: records.StepLLM})
		cost, err := runtime.PriceStep(e.svc.cfg.Prices, "gpt-4o-mini", records.Tokens{In: 1_000_000, Out: 100_000, Cached: 200_000})
		if err != nil || cost != 72+9+36 {
			t.Fatalf("cost %d %v", cost, err)
		}
		if err := e.svc.machine.FinishStep(e.ctx, db, rec, st, records.StepOutcome{Status: records.StepSucceeded, Usage: records.Tokens{In: 1_000_000, Out: 100_000, Cached: 200_000}, CostCents: cost}); err != nil {
			t.Fatal(err)
		}
		var me meJSON
		me = data[meJSON](t, 200, e.do(e.viewer, "GET", "/api/v1/me", nil, 200), 200)
		if me.Organization.Name != "Mine" || me.Role != "viewer" || me.User.ID != e.viewer.ID || me.Plan.MonthlyCostLimit != 500 ||
			me.Plan.CostUsedThisMonth != 1.17 || me.Plan.MaxCostPerExecution != 10 || me.Plan.MaxConcurrentExecutions != 5 || len(me.Scopes) == 0 {
			t.Fatalf("me: %+v", me)
		}
		u := data[usageJSON](t, 200, e.do(e.Owner, "GET", "/api/v1/usage", nil, 200), 200)
		if u.Totals.Cost != 1.17 || u.Totals.Tokens.Input != 1_000_000 || u.Totals.Executions != 1 || len(u.ByDay) != 1 ||
			len(u.ByTask) != 1 || u.ByTask[0].Name != "Agente" || u.ByTask[0].Cost != 1.17 || u.ByDay[0].Date != time.Now().UTC().Format(time.DateOnly) {
			t.Fatalf("usage: %+v", u)
		}
		u = data[usageJSON](t, 200, e.do(e.Owner, "GET", "/api/v1/usage?from=2020-01-01&to=2020-01-31", nil, 200), 200)
		if u.Totals.Cost != 0 || len(u.ByDay) != 0 || u.From != "2020-01-01" || u.To != "2020-01-31" {
			t.Fatalf("empty period: %+v", u)
		}
		e.wantError(e.Owner, "GET", "/api/v1/usage?from=2026-03-10&to=2026-03-01", nil, 422, "validation_failed")
		// Dates within 1990–2100 (platform/datebounds), naming the field.
		if resp := e.wantError(e.Owner, "GET", "/api/v1/usage?from=0001-01-01&to=0001-01-31", nil, 422, "validation_failed"); !strings.Contains(resp, `"field":"from","message":"must be between 1990-01-01 and 2100-12-31"`) {
			t.Fatalf("year 1: %s", resp)
		}
		if resp := e.wantError(e.Owner, "GET", "/api/v1/usage?from=9999-12-01&to=9999-12-31", nil, 422, "validation_failed"); !strings.Contains(resp, `"field":"from"`) {
			t.Fatalf("year 9999: %s", resp)
		}
		e.wantError(e.Owner, "GET", "/api/v1/usage?from=2020-01-01&to=2026-03-01", nil, 422, "validation_failed")
		if u := data[usageJSON](t, 200, e.do(e.Other, "GET", "/api/v1/usage", nil, 200), 200); u.Totals.Cost != 0 || u.Totals.Executions != 0 {
			t.Fatalf("theirs: %+v", u)
		}
	})
}

// TestApprovalsGet: an approval of kadu_tasks_run reads with the
// execution it started; only its person or an admin reads it; another
// organization's is not_found.
func TestApprovalsGet(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startKadu(t, db, Config{})
		w := e.createTask(e.member, workflow("Workflow"))
		x := data[executionJSON](t, 202, e.do(e.member, "POST", "/api/v1/tasks/"+w.ID+"/run", map[string]any{}, 202), 202)
		st := approval.NewStore(db, nil)
		a := &approval.Approval{OrganizationID: e.Mine.ID, UserID: e.member.ID, PrincipalHash: "h", Issuer: e.URL, Subject: e.member.ID,
			Email: "member@mine.example", ClientID: "c", Scopes: "kadu.executions", Audience: e.URL + "/mcp", Tool: "kadu_tasks_run",
			Arguments: `{"task_id":"` + w.ID + `"}`, Message: "Run task 'Workflow'?", ExpiresAt: time.Now().Add(time.Hour)}
		if err := st.Create(e.ctx, a); err != nil {
			t.Fatal(err)
		}
		got := data[approvalJSON](t, 200, e.do(e.member, "GET", "/api/v1/approvals/"+a.ID, nil, 200), 200)
		if got.Status != "pending" || got.Tool != "kadu_tasks_run" || got.Execution != nil || got.Result != nil {
			t.Fatalf("pending: %+v", got)
		}
		for _, step := range []func() (bool, error){
			func() (bool, error) { return st.Approve(e.ctx, a.ID, e.member.ID) },
			func() (bool, error) { return st.Claim(e.ctx, a.ID) },
			func() (bool, error) {
				return st.Finish(e.ctx, a.ID, approval.StatusSucceeded, []mcp.Content{mcp.TextContent(`{"data":{"id":"` + x.ID + `","status":"queued"}}`)})
			},
		} {
			if ok, err := step(); !ok || err != nil {
				t.Fatalf("approval step: %v %v", ok, err)
			}
		}
		got = data[approvalJSON](t, 200, e.do(e.member, "GET", "/api/v1/approvals/"+a.ID, nil, 200), 200)
		if got.Status != "succeeded" || got.Execution == nil || got.Execution.ID != x.ID || got.Result == nil || got.DecidedAt == nil {
			t.Fatalf("succeeded: %+v", got)
		}
		e.do(e.admin, "GET", "/api/v1/approvals/"+a.ID, nil, 200)
		e.wantError(e.member2, "GET", "/api/v1/approvals/"+a.ID, nil, 404, "not_found")
		e.wantError(e.Other, "GET", "/api/v1/approvals/"+a.ID, nil, 404, "not_found")
		e.wantError(e.member, "GET", "/api/v1/approvals/"+store.NewID(), nil, 404, "not_found")
		// An execution waiting on an approval is found by it.
		b := &approval.Approval{OrganizationID: e.Mine.ID, UserID: e.member.ID, PrincipalHash: "h", Issuer: e.URL, Subject: e.member.ID,
			Email: "member@mine.example", ClientID: "c", Scopes: "", Audience: "a", Tool: "dunning_charges_delete",
			Arguments: `{}`, Message: "Delete?", ExpiresAt: time.Now().Add(time.Hour)}
		if err := st.Create(e.ctx, b); err != nil {
			t.Fatal(err)
		}
		rec := e.execution(x.ID)
		_ = e.svc.machine.Transition(e.ctx, db, rec, records.ExecRunning, records.Change{})
		if err := e.svc.machine.Transition(e.ctx, db, rec, records.ExecWaitingApproval, records.Change{ApprovalID: &b.ID}); err != nil {
			t.Fatal(err)
		}
		got = data[approvalJSON](t, 200, e.do(e.member, "GET", "/api/v1/approvals/"+b.ID, nil, 200), 200)
		if got.Execution == nil || got.Execution.ID != x.ID || got.Execution.Status != "waiting_approval" {
			t.Fatalf("waiting: %+v", got)
		}
		// Cancelling the execution cancels its pending approval.
		e.do(e.member, "POST", "/api/v1/executions/"+x.ID+"/cancel", nil, 200)
		if a, _ := st.Get(e.ctx, b.ID); a.Status != approval.StatusCancelled {
			t.Fatalf("approval after cancel: %s", a.Status)
		}
	})
}

func mustBody(_ int, body string) string { return body }
