package kadu

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/kadu/runtime"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// threeBoletos is alpha_list's answer with three boletos, the second
// below the loop's condition.
const threeBoletos = `{"data":[{"id":"b1","amount":10.5,"payer":"Acme"},{"id":"b2","amount":3,"payer":"Beta"},{"id":"b3","amount":20,"payer":"Gama"}],"meta":{"next_cursor":null}}`

// eachBoleto is a workflow that lists the boletos and records a charge
// for each one above 5, then a step that reads the loop's results.
func eachBoleto() map[string]any {
	return map[string]any{"name": "Cada boleto", "allowed_tools": []string{"alpha_list", "alpha_record"},
		"steps": []map[string]any{
			{"id": "list", "tool": "alpha_list", "arguments": map[string]any{"month": "{{input.month}}"}},
			{"id": "each", "tool": "alpha_record", "for_each": "{{ steps.list.data }}", "condition": "item.amount > 5",
				"arguments": map[string]any{"boleto": "{{item.id}}", "amount": "{{item.amount}}", "note": "{{index + 1}}: {{item.payer}} {{input.month}}"}},
			{"id": "count", "tool": "alpha_record", "arguments": map[string]any{"boleto": "{{ len(filter(steps.each, # != nil)) }} recorded"}},
		}}
}

func stepLines(e *runtimeEnv, id string) []string {
	var lines []string
	for _, st := range e.steps(id) {
		lines = append(lines, stepLine(st))
	}
	return lines
}

// TestForEachRuns: a for_each step calls its tool once per item, in
// order, with item and index in its arguments and its condition (false
// skips that item, its result nil); each item is a step of its own; the
// step's result is the list of the items' results; later steps read it.
func TestForEachRuns(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startRuntime(t, db, Config{})
		e.cat.listAnswer = threeBoletos
		task := e.task(eachBoleto())
		if !strings.Contains(mustJSON(task.Steps), `"for_each":"{{ steps.list.data }}"`) {
			t.Fatalf("for_each not kept: %s", mustJSON(task.Steps))
		}
		id := e.run(task.ID, map[string]any{"month": "2026-03"})
		x := e.wait(id, records.ExecSucceeded)
		rec := e.cat.Calls("alpha_record")
		var got []string
		for _, c := range rec {
			got = append(got, fmt.Sprint(c.Args["boleto"], " ", c.Args["amount"], " ", c.Args["note"]))
		}
		if want := []string{"b1 10.5 1: Acme 2026-03", "b3 20 3: Gama 2026-03", "2 recorded <nil> <nil>"}; !slices.Equal(got, want) {
			t.Errorf("calls %q, want %q", got, want)
		}
		if want := []string{"1 tool_call alpha_list succeeded", "2 tool_call alpha_record succeeded", "3 message alpha_record succeeded",
			"4 tool_call alpha_record succeeded", "5 tool_call alpha_record succeeded"}; !slices.Equal(stepLines(e, id), want) {
			t.Errorf("steps %v, want %v", stepLines(e, id), want)
		}
		if st := e.steps(id)[2]; !strings.Contains(deref(st.ResultSummary), "step 2 each item 2 of 3 skipped") {
			t.Errorf("skip summary %q", deref(st.ResultSummary))
		}
		var out struct {
			Steps map[string][]json.RawMessage `json:"steps"`
		}
		_ = json.Unmarshal([]byte(deref(x.OutputJSON)), &out)
		if each := out.Steps["each"]; len(each) != 3 || !strings.Contains(string(each[0]), `"boleto":"b1"`) || string(each[1]) != "null" ||
			!strings.Contains(string(each[2]), `"boleto":"b3"`) {
			t.Errorf("the loop's result %s", deref(x.OutputJSON))
		}
		if x.StepCount != 5 {
			t.Errorf("step count %d", x.StepCount)
		}

		// An empty list calls nothing; the result is [].
		e.cat.listAnswer = `{"data":[],"meta":{}}`
		id = e.run(task.ID, map[string]any{"month": "2026-04"})
		x = e.wait(id, records.ExecSucceeded)
		if n := len(e.cat.Calls("alpha_record")); n != 4 || !strings.Contains(deref(x.OutputJSON), `"each":[]`) {
			t.Errorf("empty list: %d calls, output %s", n, deref(x.OutputJSON))
		}
	})
}

// TestForEachBounds: a list over wflang.MaxItems fails the step, naming
// the bound, with nothing called (never cut); a value that is not a list
// fails it too; each item counts against the execution's step limit.
func TestForEachBounds(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startRuntime(t, db, Config{MaxSteps: 3})
		items := make([]string, 101)
		for i := range items {
			items[i] = fmt.Sprintf(`{"id":"b%d","amount":10}`, i)
		}
		e.cat.listAnswer = `{"data":[` + strings.Join(items, ",") + `]}`
		task := e.task(eachBoleto())
		x := e.wait(e.run(task.ID, nil), records.ExecFailed)
		if deref(x.ErrorCode) != "step_failed" || !strings.Contains(deref(x.ErrorMessage), "gave 101 items; a for_each loops over at most 100") ||
			len(e.cat.Calls("alpha_record")) != 0 {
			t.Errorf("too long: %s %s, %d calls", deref(x.ErrorCode), deref(x.ErrorMessage), len(e.cat.Calls("alpha_record")))
		}

		e.cat.listAnswer = `{"data":"not a list"}`
		x = e.wait(e.run(task.ID, nil), records.ExecFailed)
		if !strings.Contains(deref(x.ErrorMessage), "not a list") {
			t.Errorf("not a list: %s", deref(x.ErrorMessage))
		}

		// Three items after the list step: the limit of 3 steps stops the
		// loop after its second item.
		e.cat.listAnswer = `{"data":[{"id":"c1","amount":9},{"id":"c2","amount":9},{"id":"c3","amount":9}]}`
		x = e.wait(e.run(task.ID, nil), records.ExecFailed)
		if deref(x.ErrorCode) != "step_limit" || x.StepCount != 3 || len(e.cat.Calls("alpha_record")) != 2 {
			t.Errorf("step limit: %s, %d steps, %d calls", deref(x.ErrorCode), x.StepCount, len(e.cat.Calls("alpha_record")))
		}
	})
}

// TestForEachOnError: on_error applies per item: stop fails the
// execution at the first failing item, naming it; continue calls every
// item, each failed item's result its error body.
func TestForEachOnError(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startRuntime(t, db, Config{})
		e.cat.listAnswer = threeBoletos
		e.cat.fail["alpha_record"] = true
		body := eachBoleto()
		steps := body["steps"].([]map[string]any)
		steps = steps[:2]
		delete(steps[1], "condition")
		body["steps"] = steps
		x := e.wait(e.run(e.task(body).ID, nil), records.ExecFailed)
		if !strings.Contains(deref(x.ErrorMessage), "step 2 each item 1 of 3 (alpha_record) failed") || len(e.cat.Calls("alpha_record")) != 1 {
			t.Errorf("stop: %s, %d calls", deref(x.ErrorMessage), len(e.cat.Calls("alpha_record")))
		}

		steps[1]["on_error"] = "continue"
		// The second item's arguments do not render (nil has no field):
		// that item fails without a call, the others are called.
		steps[1]["arguments"] = map[string]any{"boleto": "{{ item.amount > 5 ? item.id : item.missing.x }}"}
		x = e.wait(e.run(e.task(body).ID, nil), records.ExecSucceeded)
		if n := len(e.cat.Calls("alpha_record")); n != 3 {
			t.Errorf("continue: %d calls, want 3 (1 before, 2 now)", n)
		}
		var out struct {
			Steps map[string][]map[string]any `json:"steps"`
		}
		_ = json.Unmarshal([]byte(deref(x.OutputJSON)), &out)
		each := out.Steps["each"]
		if len(each) != 3 || mustJSON(each[0]["error"]) != `{"code":"conflict","message":"it failed"}` ||
			!strings.Contains(mustJSON(each[1]["error"]), "arguments_error") || each[2]["error"] == nil {
			t.Errorf("continue results %s", deref(x.OutputJSON))
		}
	})
}

// TestForEachValidation: a for_each that cannot run is refused when the
// task is saved, naming the step and the field.
func TestForEachValidation(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startRuntime(t, db, Config{})
		for _, c := range []struct {
			step  map[string]any
			field string
			msg   string
		}{
			{map[string]any{"tool": "alpha_record", "for_each": "steps.nope.data"}, "steps.1.for_each", "not a step declared before"},
			{map[string]any{"tool": "alpha_record", "for_each": "{{ steps.list.data"}, "steps.1.for_each", ""},
			{map[string]any{"tool": "alpha_record", "for_each": "item"}, "steps.1.for_each", "unknown name item"},
			{map[string]any{"tool": "alpha_record", "arguments": map[string]any{"b": "{{item.id}}"}}, "steps.1.arguments.b", "unknown name item"},
			{map[string]any{"tool": "alpha_record", "condition": "index > 0"}, "steps.1.condition", "unknown name index"},
			{map[string]any{"tool": "kadu_ask", "for_each": "steps.list.data", "arguments": map[string]any{"question": "?"}}, "steps.1.for_each", "cannot loop"},
		} {
			body := map[string]any{"name": "x", "allowed_tools": []string{"alpha_list", "alpha_record"},
				"steps": []map[string]any{{"id": "list", "tool": "alpha_list"}, c.step}}
			resp := e.wantError(e.member, "POST", "/api/v1/tasks", body, 422, "validation_failed")
			if !strings.Contains(resp, `"field":"`+c.field+`"`) || !strings.Contains(resp, c.msg) {
				t.Errorf("%v: %s, want %s (%s)", c.step, resp, c.field, c.msg)
			}
		}
	})
}

// TestForEachResumeAfterACrash: a worker that died mid-loop leaves the
// checkpoint naming the next item; the execution resumes there without
// calling the finished items again. An item's write left started is not
// repeated (the execution fails, tool_outcome_unknown); an item's read
// left started is made again, alone.
func TestForEachResumeAfterACrash(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startRuntime(t, db, Config{})
		e.cat.listAnswer = threeBoletos
		body := eachBoleto()
		task, err := records.GetTask(e.ctx, db, e.Mine.ID, e.task(body).ID)
		if err != nil {
			t.Fatal(err)
		}
		const job = 4343
		// crashed: running, owned by job, the list and item 0 done, and
		// (when open names a tool) item 1's call started.
		crashed := func(t *records.Task, item int, items []json.RawMessage, open string) *records.Execution {
			now := store.Now()
			cp := &runtime.Checkpoint{RunnerJob: job, Next: 1, Item: item, Items: items, Results: map[string]json.RawMessage{"list": json.RawMessage(threeBoletos)}}
			x := &records.Execution{ID: store.NewID(), OrganizationID: e.Mine.ID, TaskID: t.ID, Trigger: records.TriggerManual, TriggeredBy: &e.member.ID,
				Status: records.ExecRunning, InputJSON: `{"month":"2026-03"}`, InputFileIDsJSON: `[]`, MaxCostCents: 100, CheckpointJSON: cp.Encode(),
				StartedAt: &now, CreatedAt: now, UpdatedAt: now}
			if err := records.InsertExecution(e.ctx, db, x); err != nil {
				e.t.Fatal(err)
			}
			if open != "" {
				if _, err := e.svc.machine.BeginStep(e.ctx, db, x, records.StepStart{Kind: records.StepToolCall, Tool: open, Arguments: json.RawMessage(`{}`)}); err != nil {
					e.t.Fatal(err)
				}
			}
			return x
		}
		first := json.RawMessage(`{"data":{"id":"r0","boleto":"b1"}}`)

		// Died between item 0's outcome and item 1: resumes at item 1.
		x := crashed(task, 1, []json.RawMessage{first}, "")
		if err := e.svc.runtime.RunExecution(e.ctx, job, x.ID); err != nil {
			t.Fatal(err)
		}
		got := e.exec(x.ID)
		rec := e.cat.Calls("alpha_record")
		if got.Status != records.ExecSucceeded || len(e.cat.Calls("alpha_list")) != 0 || len(rec) != 2 || rec[0].Args["boleto"] != "b3" {
			t.Fatalf("resume: %s %s, calls %+v", got.Status, deref(got.ErrorMessage), rec)
		}
		var out struct {
			Steps map[string][]json.RawMessage `json:"steps"`
		}
		_ = json.Unmarshal([]byte(deref(got.OutputJSON)), &out)
		if each := out.Steps["each"]; len(each) != 3 || string(each[0]) != string(first) || string(each[1]) != "null" {
			t.Errorf("resumed loop's result %s", deref(got.OutputJSON))
		}

		// Item 2's write left started: not repeated.
		x = crashed(task, 2, []json.RawMessage{first, json.RawMessage("null")}, "alpha_record")
		if err := e.svc.runtime.RunExecution(e.ctx, job, x.ID); err != nil {
			t.Fatal(err)
		}
		got = e.exec(x.ID)
		if got.Status != records.ExecFailed || deref(got.ErrorCode) != "tool_outcome_unknown" || len(e.cat.Calls("alpha_record")) != 2 {
			t.Errorf("an interrupted write: %s %s, %d calls", got.Status, deref(got.ErrorCode), len(e.cat.Calls("alpha_record")))
		}

		// A loop over a read: item 1's call left started is made again,
		// and item 0 is not.
		steps := body["steps"].([]map[string]any)
		steps[1] = map[string]any{"id": "each", "tool": "alpha_list", "for_each": "steps.list.data", "arguments": map[string]any{"month": "{{item.id}}"}}
		reads, err := records.GetTask(e.ctx, db, e.Mine.ID, e.task(body).ID)
		if err != nil {
			t.Fatal(err)
		}
		x = crashed(reads, 1, []json.RawMessage{first}, "alpha_list")
		if err := e.svc.runtime.RunExecution(e.ctx, job, x.ID); err != nil {
			t.Fatal(err)
		}
		got = e.exec(x.ID)
		var months []any
		for _, c := range e.cat.Calls("alpha_list") {
			months = append(months, c.Args["month"])
		}
		if got.Status != records.ExecSucceeded || fmt.Sprint(months) != "[b2 b3]" {
			t.Errorf("an interrupted read: %s %s, list calls %v", got.Status, deref(got.ErrorMessage), months)
		}
		if lines := stepLines(e, x.ID); len(lines) < 1 || lines[0] != "1 tool_call alpha_list unknown" {
			t.Errorf("steps %v", lines)
		}
	})
}

// TestForEachDestructive: a destructive tool in a loop waits for an
// approval per item; each approved item is called once, with its own
// approval, and the loop goes on to the next.
func TestForEachDestructive(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startRuntime(t, db, Config{})
		task := e.task(map[string]any{"name": "Limpar todos", "allowed_tools": []string{"alpha_list", "alpha_delete"},
			"steps": []map[string]any{
				{"id": "list", "tool": "alpha_list"},
				{"id": "del", "tool": "alpha_delete", "for_each": "steps.list.data", "arguments": map[string]any{"id": "{{item.id}}"}},
			}})
		id := e.run(task.ID, nil)
		var approvals []string
		for _, want := range []string{"b1", "b2"} {
			var w runtime.WaitingApproval
			for deadline := time.Now().Add(10 * time.Second); ; {
				x := e.wait(id, records.ExecWaitingApproval)
				if err := json.Unmarshal([]byte(deref(x.WaitingJSON)), &w); err != nil {
					t.Fatal(err)
				}
				if !slices.Contains(approvals, w.ApprovalID) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("still waiting for approval %s", w.ApprovalID)
				}
				time.Sleep(20 * time.Millisecond)
			}
			if string(w.Arguments) != `{"id":"`+want+`"}` {
				t.Fatalf("waiting for %s, want %s", w.Arguments, want)
			}
			if n := len(e.cat.Calls("alpha_delete")); n != len(approvals) {
				t.Fatalf("%d deletes before approval %d", n, len(approvals)+1)
			}
			a, err := e.svc.approvals.Get(e.ctx, w.ApprovalID)
			if err != nil {
				t.Fatal(err)
			}
			if ok, err := e.svc.approvals.Approve(e.ctx, a.ID, e.member.ID); !ok || err != nil {
				t.Fatal(ok, err)
			}
			approvals = append(approvals, a.ID)
			if err := e.svc.runtime.ApprovalDecided(e.ctx, a); err != nil {
				t.Fatal(err)
			}
		}
		x := e.wait(id, records.ExecSucceeded)
		del := e.cat.Calls("alpha_delete")
		if len(del) != 2 || del[0].Args["id"] != "b1" || del[1].Args["id"] != "b2" ||
			del[0].Confirmation != "approval:"+approvals[0] || del[1].Confirmation != "approval:"+approvals[1] {
			t.Errorf("deletes %+v", del)
		}
		if n := len(e.cat.Calls("alpha_list")); n != 1 || !strings.Contains(deref(x.OutputJSON), `"deleted":"b2"`) {
			t.Errorf("list ran %d times; output %s", n, deref(x.OutputJSON))
		}
	})
}
