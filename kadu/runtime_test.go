package kadu

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/kadu/runtime"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit/approval"
)

// threeSteps is the workflow of the tests and the benchmark: list the
// boletos, record a charge for the first (arguments from the list's
// result and the input), and a step whose condition is false.
func threeSteps() map[string]any {
	return map[string]any{"name": "Cobranças do mês", "instructions": "record each boleto as a charge",
		"allowed_tools": []string{"alpha_list", "alpha_record"},
		"steps": []map[string]any{
			{"id": "list", "tool": "alpha_list", "arguments": map[string]any{"month": "{{input.month}}"}},
			{"id": "first", "tool": "alpha_record", "arguments": map[string]any{
				"boleto": "{{steps.list.data[0].id}}", "amount": "{{steps.list.data[0].amount}}",
				"note": "Cobrança {{input.month}} de {{steps.list.data[0].payer}}"}},
			{"id": "second", "tool": "alpha_record", "condition": "{{ len(steps.list.data) > 5 }}",
				"arguments": map[string]any{"boleto": "{{steps.list.data[1].id}}"}},
		}}
}

// TestWorkflowRuns: a workflow runs its steps in order as the person who
// started it, with exactly the scopes its allowed tools need; templates
// read the input and earlier results; a false condition skips a step;
// every step is recorded; the execution succeeds with the results.
func TestWorkflowRuns(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startRuntime(t, db, Config{})
		task := e.task(threeSteps())
		if got := mustJSON(task.GrantedScopes); got != `{"alpha":["alpha.read","alpha.write"]}` {
			t.Fatalf("granted %s", got)
		}
		id := e.run(task.ID, map[string]any{"month": "2026-03"})
		x := e.wait(id, records.ExecSucceeded)
		list, rec := e.cat.Calls("alpha_list"), e.cat.Calls("alpha_record")
		if len(list) != 1 || len(rec) != 1 {
			t.Fatalf("calls: list %d, record %d", len(list), len(rec))
		}
		if list[0].Args["month"] != "2026-03" || list[0].UserID != e.member.ID || list[0].Role != identity.RoleMember ||
			!slices.Equal(list[0].Scopes, []string{"alpha.read", "alpha.write"}) {
			t.Errorf("list call %+v", list[0])
		}
		if a := rec[0].Args; a["boleto"] != "b1" || a["amount"] != 10.5 || a["note"] != "Cobrança 2026-03 de Acme" {
			t.Errorf("record arguments %v", a)
		}
		var lines []string
		for _, st := range e.steps(id) {
			lines = append(lines, stepLine(st))
		}
		if want := []string{"1 tool_call alpha_list succeeded", "2 tool_call alpha_record succeeded", "3 message alpha_record succeeded"}; !slices.Equal(lines, want) {
			t.Errorf("steps %v, want %v", lines, want)
		}
		var out struct {
			Steps map[string]json.RawMessage `json:"steps"`
			Last  json.RawMessage            `json:"last"`
		}
		if err := json.Unmarshal([]byte(deref(x.OutputJSON)), &out); err != nil || string(out.Steps["second"]) != "null" ||
			!strings.Contains(string(out.Steps["first"]), `"boleto":"b1"`) {
			t.Errorf("output %s", deref(x.OutputJSON))
		}
		if x.CostCents != 0 || x.StepCount != 3 || x.StartedAt == nil || x.FinishedAt == nil {
			t.Errorf("execution %+v", x)
		}
	})
}

// TestWorkflowFailures: on_error stop fails the execution naming the
// step; continue goes on with the error as the step's result; a person
// demoted after saving the task runs with the new role (checked at the
// call), and nothing is called.
func TestWorkflowFailures(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startRuntime(t, db, Config{})
		e.cat.fail["alpha_list"] = true
		body := threeSteps()
		id := e.run(e.task(body).ID, map[string]any{"month": "2026-03"})
		x := e.wait(id, records.ExecFailed)
		if deref(x.ErrorCode) != "step_failed" || !strings.Contains(deref(x.ErrorMessage), "step 1 list (alpha_list) failed") {
			t.Errorf("stop: %s %s", deref(x.ErrorCode), deref(x.ErrorMessage))
		}
		if n := len(e.cat.Calls("alpha_record")); n != 0 {
			t.Errorf("a step after a stop ran %d times", n)
		}

		steps := body["steps"].([]map[string]any)
		steps[0]["on_error"] = "continue"
		steps[1]["arguments"] = map[string]any{"boleto": "{{ steps.list.error.code }}"}
		steps[2]["condition"] = "{{ len(steps.list.data ?? []) > 5 }}"
		id = e.run(e.task(body).ID, map[string]any{"month": "2026-03"})
		e.wait(id, records.ExecSucceeded)
		if rec := e.cat.Calls("alpha_record"); len(rec) != 1 || rec[0].Args["boleto"] != "conflict" {
			t.Errorf("continue: %+v", rec)
		}

		e.cat.fail = map[string]bool{}
		task := e.task(threeSteps())
		if _, err := db.Exec(e.ctx, `UPDATE memberships SET role = 'viewer' WHERE user_id = ?`, e.member.ID); err != nil {
			t.Fatal(err)
		}
		// The person may still trigger it (a viewer may not run tasks: the
		// owner runs it on their behalf through the schedule's path).
		x = e.runAs(task.ID, e.member.ID)
		x = e.wait(x.ID, records.ExecFailed)
		st := e.steps(x.ID)
		if len(st) != 2 || st[1].Status != records.StepFailed || !strings.Contains(deref(st[1].ErrorMessage), "role_forbids") {
			t.Errorf("demoted: %s %v", deref(x.ErrorMessage), st)
		}
		if n := len(e.cat.Calls("alpha_record")); n != 1 {
			t.Errorf("the demoted person's write ran (%d calls)", n)
		}
	})
}

// runAs queues an execution of task for userID directly (the way the
// schedule queues one for the task's owner).
func (e *runtimeEnv) runAs(taskID, userID string) *records.Execution {
	e.t.Helper()
	var x *records.Execution
	err := e.DB.WithTx(e.ctx, func(tx *store.Tx) error {
		t, err := records.GetTask(e.ctx, tx, e.Mine.ID, taskID)
		if err != nil {
			return err
		}
		x, err = e.svc.queueExecution(e.ctx, tx, t, runRequest{Trigger: records.TriggerSchedule, TriggeredBy: &userID, Input: map[string]any{"month": "2026-03"}})
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return x
}

// TestDestructiveStepWaitsForApproval: a destructive tool is never called
// directly: the execution waits with an approval naming the exact tool
// and arguments; Continuar resumes it from that step, the call runs once
// with the approval's confirmation; Cancelar ends it canceled; a target
// that does not exist fails the step without asking.
func TestDestructiveStepWaitsForApproval(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startRuntime(t, db, Config{})
		body := map[string]any{"name": "Limpar", "allowed_tools": []string{"alpha_list", "alpha_delete"},
			"steps": []map[string]any{
				{"id": "list", "tool": "alpha_list"},
				{"id": "del", "tool": "alpha_delete", "arguments": map[string]any{"id": "{{steps.list.data[1].id}}"}},
				{"id": "again", "tool": "alpha_list"},
			}}
		task := e.task(body)
		id := e.run(task.ID, nil)
		x := e.wait(id, records.ExecWaitingApproval)
		if len(e.cat.Calls("alpha_delete")) != 0 {
			t.Fatal("the destructive tool ran before its approval")
		}
		var w runtime.WaitingApproval
		if err := json.Unmarshal([]byte(deref(x.WaitingJSON)), &w); err != nil || w.Tool != "alpha_delete" || string(w.Arguments) != `{"id":"b2"}` ||
			w.Message != "Delete charge b2? This cannot be undone." || !strings.HasPrefix(w.ApprovalURL, e.URL+"/approvals/") || w.ApprovalID != deref(x.ApprovalID) {
			t.Fatalf("waiting %s", deref(x.WaitingJSON))
		}
		a, err := e.svc.approvals.Get(e.ctx, w.ApprovalID)
		if err != nil || a.Owner != runtime.ApprovalOwner || a.OwnerRef != id || a.UserID != e.member.ID || a.Status != approval.StatusPending || a.Arguments != `{"id":"b2"}` {
			t.Fatalf("approval %+v %v", a, err)
		}
		// Continuar, as the page does it: approve, tell the owner.
		if ok, err := e.svc.approvals.Approve(e.ctx, a.ID, e.member.ID); !ok || err != nil {
			t.Fatal(ok, err)
		}
		if err := e.svc.runtime.ApprovalDecided(e.ctx, a); err != nil {
			t.Fatal(err)
		}
		x = e.wait(id, records.ExecSucceeded)
		del := e.cat.Calls("alpha_delete")
		if len(del) != 1 || del[0].Confirmation != "approval:"+a.ID || del[0].Args["id"] != "b2" {
			t.Fatalf("delete calls %+v", del)
		}
		if n := len(e.cat.Calls("alpha_list")); n != 2 {
			t.Errorf("alpha_list ran %d times, want 2 (the first step is not repeated after the wait)", n)
		}
		a, _ = e.svc.approvals.Get(e.ctx, a.ID)
		if a.Status != approval.StatusSucceeded || !strings.Contains(a.ResultText(), `"deleted":"b2"`) {
			t.Errorf("approval after the run %+v", a)
		}
		// A second decision (told twice) does nothing more.
		_ = e.svc.runtime.ApprovalDecided(e.ctx, a)
		time.Sleep(200 * time.Millisecond)
		if n := len(e.cat.Calls("alpha_delete")); n != 1 {
			t.Errorf("delete ran %d times", n)
		}

		// Cancelar.
		id = e.run(task.ID, nil)
		x = e.wait(id, records.ExecWaitingApproval)
		if ok, err := e.svc.approvals.Cancel(e.ctx, deref(x.ApprovalID)); !ok || err != nil {
			t.Fatal(ok, err)
		}
		a, _ = e.svc.approvals.Get(e.ctx, deref(x.ApprovalID))
		_ = e.svc.runtime.ApprovalDecided(e.ctx, a)
		x = e.wait(id, records.ExecCanceled)
		if deref(x.ErrorCode) != "approval_cancelled" || len(e.cat.Calls("alpha_delete")) != 1 {
			t.Errorf("cancel: %s, %d deletes", deref(x.ErrorCode), len(e.cat.Calls("alpha_delete")))
		}

		// A target that does not exist: the tool's own error, no approval.
		steps := body["steps"].([]map[string]any)
		steps[1]["arguments"] = map[string]any{"id": "missing"}
		id = e.run(e.task(body).ID, nil)
		x = e.wait(id, records.ExecFailed)
		if x.ApprovalID != nil || !strings.Contains(deref(x.ErrorMessage), "charge not found") {
			t.Errorf("missing target: %s approval %v", deref(x.ErrorMessage), x.ApprovalID)
		}
	})
}

// TestApprovalExpiry: an approval nobody decides expires, and the
// execution fails saying so, with nothing called.
func TestApprovalExpiry(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startRuntime(t, db, Config{WaitTimeout: 300 * time.Millisecond})
		task := e.task(map[string]any{"name": "Apagar", "allowed_tools": []string{"alpha_delete"},
			"steps": []map[string]any{{"tool": "alpha_delete", "arguments": map[string]any{"id": "b1"}}}})
		id := e.run(task.ID, nil)
		x := e.wait(id, records.ExecWaitingApproval)
		time.Sleep(400 * time.Millisecond)
		// The execution's job runs again (the sweep or a stray decision):
		// the approval is past its expiry.
		if _, err := e.Jobs.Enqueue(e.ctx, runtime.RunExecutionArgs{ExecutionID: id}, nil); err != nil {
			t.Fatal(err)
		}
		x = e.wait(id, records.ExecFailed)
		if len(e.cat.Calls("alpha_delete")) != 0 {
			t.Fatalf("a tool was called for an approval nobody decided")
		}
		// Either path may get there first: the job run again finds the
		// approval expired, or the timeouts sweep — which also runs when
		// the queue becomes leader, late on a loaded host — finds the wait
		// past its deadline. Both fail the execution saying why.
		switch code, msg := deref(x.ErrorCode), deref(x.ErrorMessage); code {
		case "approval_expired":
			if !strings.Contains(msg, "nothing was called") {
				t.Errorf("expired: %s", msg)
			}
			if a, _ := e.svc.approvals.Get(e.ctx, deref(x.ApprovalID)); a.Status != approval.StatusExpired {
				t.Errorf("approval %s", a.Status)
			}
		case "approval_timeout":
			if !strings.Contains(msg, "nobody decided") {
				t.Errorf("timed out: %s", msg)
			}
		default:
			t.Errorf("expired: %s %s", code, msg)
		}
	})
}

// TestResumeAfterACrash: a step a dead worker left started without an
// outcome is never repeated blindly. A read-only call is marked unknown
// and made again; a write is marked unknown and the execution fails,
// saying so, without calling it again. A job that does not own the
// running execution leaves it alone.
func TestResumeAfterACrash(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startRuntime(t, db, Config{})
		task, err := records.GetTask(e.ctx, db, e.Mine.ID, e.task(threeSteps()).ID)
		if err != nil {
			t.Fatal(err)
		}
		const job = 4242
		// crashed is an execution as a worker that died leaves it: running,
		// owned by job, the steps before next done, next's call started.
		crashed := func(next int, tool string, results map[string]json.RawMessage) *records.Execution {
			now := store.Now()
			cp := &runtime.Checkpoint{RunnerJob: job, Next: next, Results: results}
			x := &records.Execution{ID: store.NewID(), OrganizationID: e.Mine.ID, TaskID: task.ID, Trigger: records.TriggerManual, TriggeredBy: &e.member.ID,
				Status: records.ExecRunning, InputJSON: `{"month":"2026-03"}`, InputFileIDsJSON: `[]`, MaxCostCents: 100, CheckpointJSON: cp.Encode(),
				StartedAt: &now, CreatedAt: now, UpdatedAt: now}
			if err := records.InsertExecution(e.ctx, db, x); err != nil {
				t.Fatal(err)
			}
			if _, err := e.svc.machine.BeginStep(e.ctx, db, x, records.StepStart{Kind: records.StepToolCall, Tool: tool, Arguments: json.RawMessage(`{}`)}); err != nil {
				t.Fatal(err)
			}
			return x
		}
		list := json.RawMessage(e.cat.listAnswer)

		x := crashed(1, "alpha_record", map[string]json.RawMessage{"list": list})
		if err := e.svc.runtime.RunExecution(e.ctx, job+1, x.ID); err != nil || e.exec(x.ID).Status != records.ExecRunning {
			t.Fatalf("another job touched it: %v %s", err, e.exec(x.ID).Status)
		}
		if err := e.svc.runtime.RunExecution(e.ctx, job, x.ID); err != nil {
			t.Fatal(err)
		}
		got := e.exec(x.ID)
		st := e.steps(x.ID)
		if got.Status != records.ExecFailed || deref(got.ErrorCode) != "tool_outcome_unknown" || len(st) != 1 || st[0].Status != records.StepUnknown || len(e.cat.Calls("alpha_record")) != 0 {
			t.Errorf("an interrupted write: %s %s, steps %v, %d calls", got.Status, deref(got.ErrorMessage), st, len(e.cat.Calls("alpha_record")))
		}

		x = crashed(0, "alpha_list", nil)
		if err := e.svc.runtime.RunExecution(e.ctx, job, x.ID); err != nil {
			t.Fatal(err)
		}
		got = e.exec(x.ID)
		var lines []string
		for _, st := range e.steps(x.ID) {
			lines = append(lines, stepLine(st))
		}
		if got.Status != records.ExecSucceeded || len(e.cat.Calls("alpha_list")) != 1 || len(e.cat.Calls("alpha_record")) != 1 ||
			!slices.Equal(lines, []string{"1 tool_call alpha_list unknown", "2 tool_call alpha_list succeeded", "3 tool_call alpha_record succeeded", "4 message alpha_record succeeded"}) {
			t.Errorf("an interrupted read: %s, %v", got.Status, lines)
		}
	})
}
