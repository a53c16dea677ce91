package kadu

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/kadu/runtime"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/platform/webhooks"
)

// budgetUsage is a model answer's usage whose reported usage costs 101 cents at
// testPrices: a 100 000-token prompt (R$ 1,00) and 20 tokens out.
var budgetUsage = [3]int{100_000, 20, 0}

// runWithCeiling runs task as the member with max_cost (BRL) and returns
// the execution's id.
func (e *runtimeEnv) runWithCeiling(taskID string, maxCost float64) string {
	e.t.Helper()
	resp := e.do(e.member, "POST", "/api/v1/tasks/"+taskID+"/run", map[string]any{"input": map[string]any{}, "max_cost": maxCost}, 202)
	var out struct{ Data struct{ ID string } }
	if err := json.Unmarshal([]byte(resp), &out); err != nil || out.Data.ID == "" {
		e.t.Fatalf("run: %s", resp)
	}
	return out.Data.ID
}

// waitingBudget is a waiting_budget execution's waiting field.
func waitingBudget(t *testing.T, x *records.Execution) runtime.WaitingBudget {
	t.Helper()
	var w runtime.WaitingBudget
	if x.Status != records.ExecWaitingBudget || json.Unmarshal([]byte(deref(x.WaitingJSON)), &w) != nil || w.Kind != "budget" {
		t.Fatalf("not waiting for its budget: %s %s", x.Status, deref(x.WaitingJSON))
	}
	return w
}

// TestBudgetPausesAndARaiseResumes: a model step that would cross the
// execution's ceiling is not made; the execution waits in waiting_budget
// with every finished step kept, saying what the step could cost and
// what is left, emits kadu.execution.waiting_budget, and is listed by
// kadu_executions_list (status filter) and kadu_usage_get. A continue
// that is not a valid budget decision is refused, naming why; a raised
// ceiling, confirmed in the chat, resumes it from the step that waited:
// no tool is called again, no model step is made twice, and it succeeds
// within its new ceiling.
func TestBudgetPausesAndARaiseResumes(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		m := newFakeModel(t)
		m.script(
			callTools(budgetUsage, "alpha_list", `{}`),
			callTools(budgetUsage, "alpha_record", `{"boleto":"b1"}`),
			answer(budgetUsage, "Recorded b1."),
		)
		e := startRuntime(t, db, agentConfig(m))
		hook, _, err := e.svc.hooks.Create(e.ctx, webhooks.NewWebhook{OrganizationID: e.Mine.ID, WorkspaceID: e.MineWS.ID, Label: "ERP",
			URL: "https://erp.example/hook", Auth: webhooks.AuthNone, SubscribedEvents: []string{"kadu.execution.*"}})
		if err != nil {
			t.Fatal(err)
		}
		task := e.task(agentTask("alpha_list", "alpha_record"))
		e.do(e.admin, "PUT", "/api/v1/tasks/"+task.ID+"/destinations", map[string]any{"destinations": []map[string]any{{"kind": "webhook"}}}, 200)

		// R$ 2,50: two steps cost 202 cents; the third's prompt alone is
		// bounded above R$ 1,00, more than the 48 cents left.
		id := e.runWithCeiling(task.ID, 2.50)
		x := e.wait(id, records.ExecWaitingBudget)
		w := waitingBudget(t, x)
		if w.ModelStep != 3 || w.Left != 0.48 || w.Ceiling != 2.5 || w.Cost != 2.02 || w.StepCostMin <= w.Left || w.StepCost <= w.StepCostMin ||
			w.MinCeiling != float64(int64(w.Cost*100+w.StepCostMin*100+0.5))/100 || w.ContinueWith != "kadu_executions_continue" ||
			x.Deadline == nil || !w.ExpiresAt.Equal(*x.Deadline) || !strings.Contains(w.Message, "paused before model step 3") {
			t.Fatalf("waiting %s, deadline %v", deref(x.WaitingJSON), x.Deadline)
		}
		if x.CostCents != 202 || x.FinishedAt != nil || x.ErrorCode != nil {
			t.Fatalf("paused: cost %d finished %v error %v", x.CostCents, x.FinishedAt, deref(x.ErrorCode))
		}
		// Nothing runs while it waits, even when its job runs again.
		if err := e.svc.runtime.RunExecution(e.ctx, 0, id); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
		if n := len(m.Requests()); n != 2 || len(e.cat.Calls("alpha_list")) != 1 || len(e.cat.Calls("alpha_record")) != 1 {
			t.Fatalf("while paused: %d model calls, tool calls %d %d", n, len(e.cat.Calls("alpha_list")), len(e.cat.Calls("alpha_record")))
		}
		want := []string{"1 llm  succeeded", "2 tool_call alpha_list succeeded", "3 llm  succeeded", "4 tool_call alpha_record succeeded", "5 message  succeeded"}
		if got := stepLines(e, id); !slices.Equal(got, want) {
			t.Fatalf("steps %v, want %v", got, want)
		}
		ds, err := e.svc.hooks.ListDeliveries(e.ctx, e.Mine.ID, e.MineWS.ID, hook.ID, "", 50)
		if err != nil || len(ds) != 1 || ds[0].EventSlug != "kadu.execution.waiting_budget" {
			t.Fatalf("webhook deliveries %+v %v", ds, err)
		}

		// Listed by status and by the usage tool.
		list := e.do(e.viewer, "GET", "/api/v1/executions?status=waiting_budget", nil, 200)
		if !strings.Contains(list, `"id":"`+id+`"`) || strings.Count(list, `"task_id"`) != 1 {
			t.Fatalf("list: %s", list)
		}
		usage := e.do(e.viewer, "GET", "/api/v1/usage", nil, 200)
		if !strings.Contains(usage, `"waiting_budget":[{"execution_id":"`+id+`","task_id":"`+task.ID+`","cost":2.02,"max_cost":2.5,"waiting":{"kind":"budget","model_step":3`) {
			t.Fatalf("usage: %s", usage)
		}

		// Refused, naming why; nothing changes.
		path := "/api/v1/executions/" + id + "/continue"
		for _, c := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"input": map[string]any{"x": 1}}, "input"},
			{map[string]any{}, "max_cost"},
			{map[string]any{"max_cost": 5, "approve_overrun": true}, "max_cost"},
			{map[string]any{"max_cost": 2.5}, "max_cost"},     // not above the ceiling
			{map[string]any{"max_cost": 2.6}, "max_cost"},     // below cost + the least step
			{map[string]any{"max_cost": 1000.01}, "max_cost"}, // above the plan's maximum
			{map[string]any{"max_cost": -1}, "max_cost"},      // negative
		} {
			if resp := e.wantError(e.member, "POST", path, c.body, 422, "validation_failed"); !strings.Contains(resp, `"field":"`+c.field+`"`) {
				t.Errorf("%v: %s", c.body, resp)
			}
		}
		e.wantError(e.member2, "POST", path, map[string]any{"max_cost": 5}, 403, codeNotAllowed)
		if x := e.exec(id); x.Status != records.ExecWaitingBudget || x.MaxCostCents != 250 || x.StepCount != 5 {
			t.Fatalf("after the refusals: %s ceiling %d steps %d", x.Status, x.MaxCostCents, x.StepCount)
		}

		// Raised in the chat, confirmed.
		args := map[string]any{"execution_id": id, "max_cost": 5}
		ask := confirmedCall(t, e.Env, "kadu_executions_continue", args, "")
		if msg := formMessage(ask); !strings.Contains(msg, "Raise the ceiling of the execution of task 'Agente' from R$ 2,50 to R$ 5,00") {
			t.Fatalf("continue asks: %q", msg)
		}
		done := confirmedCall(t, e.Env, "kadu_executions_continue", args, ask["requestState"].(string))
		if content, _ := done["content"].([]any); done["isError"] == true || len(content) == 0 ||
			!strings.Contains(content[0].(map[string]any)["text"].(string), `"status":"queued"`) {
			t.Fatalf("continue: %v", done)
		}
		x = e.wait(id, records.ExecSucceeded)
		if x.CostCents != 303 || x.MaxCostCents != 500 || len(m.Requests()) != 3 || len(e.cat.Calls("alpha_list")) != 1 || len(e.cat.Calls("alpha_record")) != 1 {
			t.Fatalf("after the raise: cost %d of %d, %d model calls, tools %d %d", x.CostCents, x.MaxCostCents, len(m.Requests()),
				len(e.cat.Calls("alpha_list")), len(e.cat.Calls("alpha_record")))
		}
		want = append(want, "6 message  succeeded", "7 llm  succeeded")
		if got := stepLines(e, id); !slices.Equal(got, want) {
			t.Fatalf("steps %v, want %v", got, want)
		}
		if st := e.steps(id)[5]; !strings.Contains(deref(st.ResultSummary), "ceiling raised from R$ 2,50 to R$ 5,00 by ") {
			t.Errorf("the raise's step: %s", deref(st.ResultSummary))
		}
		if x.WaitingJSON != nil || x.ResumeInputJSON != nil || strings.Contains(deref(x.CheckpointJSON), `"budget"`) {
			t.Fatalf("left behind: waiting %v resume %v checkpoint %s", x.WaitingJSON, x.ResumeInputJSON, deref(x.CheckpointJSON))
		}
		// The third model call read the whole conversation: nothing lost.
		if msgs, _ := m.Requests()[2]["messages"].([]any); len(msgs) != 6 {
			t.Errorf("the resumed model call had %d messages, want 6", len(msgs))
		}
		e.wantError(e.member, "POST", path, map[string]any{"max_cost": 6}, 409, codeNotWaiting)
	})
}

// TestBudgetOverrunApprovedForOneStep: approving the overrun lets the step
// that waited cross the ceiling, that step only: the next one waits
// again. A person who may run the task but is neither its owner nor an
// admin may not approve it (nor raise past the task's ceiling); nobody
// deciding within the wait timeout ends it cost_exceeded, as a ceiling
// did before, after which continue is refused.
func TestBudgetOverrunApprovedForOneStep(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		m := newFakeModel(t)
		m.script(
			callTools(budgetUsage, "alpha_list", `{}`),
			callTools(budgetUsage, "alpha_record", `{"boleto":"b1"}`),
			callTools(budgetUsage, "alpha_record", `{"boleto":"b2"}`),
			answer(budgetUsage, "Recorded b1 and b2."),
		)
		e := startRuntime(t, db, agentConfig(m))
		body := agentTask("alpha_list", "alpha_record")
		body["cost_ceiling"] = 3
		task := e.task(body)
		e.do(e.admin, "PUT", "/api/v1/tasks/"+task.ID+"/triggerers", map[string]any{"users": []string{e.member2.ID}, "roles": []string{}}, 200)

		id := e.runWithCeiling(task.ID, 2.50)
		w := waitingBudget(t, e.wait(id, records.ExecWaitingBudget))
		if w.ModelStep != 3 {
			t.Fatalf("waits at model step %d", w.ModelStep)
		}
		path := "/api/v1/executions/" + id + "/continue"
		// member2 may run the task: raise within its ceiling, no more.
		e.wantError(e.member2, "POST", path, map[string]any{"approve_overrun": true}, 403, codeNotAllowedBudget)
		e.wantError(e.member2, "POST", path, map[string]any{"max_cost": 3.5}, 403, codeNotAllowedBudget)

		// The task's owner approves the overrun of model step 3.
		e.do(e.member, "POST", path, map[string]any{"approve_overrun": true}, 202)
		x := e.wait(id, records.ExecWaitingBudget, records.ExecSucceeded)
		w = waitingBudget(t, x)
		if w.ModelStep != 4 || x.CostCents != 303 || x.MaxCostCents != 250 || len(m.Requests()) != 3 {
			t.Fatalf("after the approval: waits at step %d, cost %d of %d, %d model calls", w.ModelStep, x.CostCents, x.MaxCostCents, len(m.Requests()))
		}
		rec := e.cat.Calls("alpha_record")
		if len(rec) != 2 || rec[0].Args["boleto"] != "b1" || rec[1].Args["boleto"] != "b2" || len(e.cat.Calls("alpha_list")) != 1 {
			t.Fatalf("tool calls %+v", rec)
		}
		want := []string{"1 llm  succeeded", "2 tool_call alpha_list succeeded", "3 llm  succeeded", "4 tool_call alpha_record succeeded",
			"5 message  succeeded", "6 message  succeeded", "7 llm  succeeded", "8 tool_call alpha_record succeeded", "9 message  succeeded"}
		if got := stepLines(e, id); !slices.Equal(got, want) {
			t.Fatalf("steps %v, want %v", got, want)
		}
		if st := e.steps(id)[5]; !strings.Contains(deref(st.ResultSummary), "overrun of model step 3 approved by "+e.member.ID) {
			t.Errorf("the approval's step: %s", deref(st.ResultSummary))
		}

		// Nobody decides: the sweep ends it cost_exceeded.
		if n, err := e.svc.expireExecutions(e.ctx, time.Now().Add(e.svc.cfg.WaitTimeout+time.Minute)); err != nil || n != 1 {
			t.Fatalf("sweep: %d %v", n, err)
		}
		x = e.exec(id)
		if x.Status != records.ExecCostExceeded || deref(x.ErrorCode) != "cost_exceeded" || x.FinishedAt == nil ||
			!strings.Contains(deref(x.ErrorMessage), "nobody raised the ceiling or approved the overrun") || !strings.Contains(deref(x.ErrorMessage), "model step 4") {
			t.Fatalf("after the timeout: %s %s %s", x.Status, deref(x.ErrorCode), deref(x.ErrorMessage))
		}
		e.wantError(e.member, "POST", path, map[string]any{"approve_overrun": true}, 409, codeNotWaiting)
		if len(m.Requests()) != 3 || len(e.cat.Calls("alpha_record")) != 2 {
			t.Fatalf("ran after the timeout: %d model calls", len(m.Requests()))
		}
	})
}

// TestBudgetWaitCanBeCanceled: an execution waiting for its budget is
// canceled like any other wait: it ends canceled, keeping its steps and
// cost, and no model step is made after.
func TestBudgetWaitCanBeCanceled(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		m := newFakeModel(t)
		m.script(callTools(budgetUsage, "alpha_list", `{}`), callTools(budgetUsage, "alpha_list", `{}`), answer(budgetUsage, "done"))
		e := startRuntime(t, db, agentConfig(m))
		task := e.task(agentTask("alpha_list"))
		id := e.runWithCeiling(task.ID, 2.50)
		e.wait(id, records.ExecWaitingBudget)
		e.do(e.member, "POST", "/api/v1/executions/"+id+"/cancel", nil, 200)
		if err := e.svc.runtime.RunExecution(e.ctx, 0, id); err != nil {
			t.Fatal(err)
		}
		x := e.exec(id)
		if x.Status != records.ExecCanceled || x.CostCents != 202 || x.StepCount != 5 || x.WaitingJSON != nil || len(m.Requests()) != 2 {
			t.Fatalf("after cancel: %s cost %d steps %d waiting %v, %d model calls", x.Status, x.CostCents, x.StepCount, x.WaitingJSON, len(m.Requests()))
		}
	})
}
