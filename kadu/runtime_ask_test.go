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
)

// askSteps lists the boletos, asks the person which one to charge
// (quoting how many were found), and records a charge for the one named
// in the answer.
func askSteps() map[string]any {
	return map[string]any{"name": "Cobrar um boleto", "instructions": "ask which boleto to charge",
		"steps": []map[string]any{
			{"id": "list", "tool": "alpha_list", "arguments": map[string]any{}},
			{"id": "which", "tool": "kadu_ask", "arguments": map[string]any{"question": "Encontrei {{len(steps.list.data)}} boletos. Qual cobrar (b1 ou b2)?"}},
			{"id": "charge", "tool": "alpha_record", "arguments": map[string]any{"boleto": "{{steps.which.boleto}}"}},
		}}
}

// TestWorkflowWaitsForInput: a kadu_ask step records its question and
// moves the execution to waiting_input, calling nothing more; its waiting
// field and the MCP tools show the question; kadu_executions_continue
// (confirmed in the chat) resumes it, the input is the step's result, and
// it succeeds having called each tool once. Nobody answering within the
// wait timeout ends it failed (input_timeout), after which continue is
// refused. A kadu_ask step without a question is refused when saved, and
// kadu_ask is never an allowed tool nor granted a scope.
func TestWorkflowWaitsForInput(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startRuntime(t, db, Config{})
		task := e.task(askSteps())
		if !slices.Equal(task.AllowedTools, []string{"alpha_list", "alpha_record"}) || mustJSON(task.GrantedScopes) != `{"alpha":["alpha.read","alpha.write"]}` {
			t.Fatalf("task %v %v", task.AllowedTools, task.GrantedScopes)
		}
		id := e.run(task.ID, nil)
		x := e.wait(id, records.ExecWaitingInput)
		var w runtime.WaitingInput
		if err := json.Unmarshal([]byte(deref(x.WaitingJSON)), &w); err != nil {
			t.Fatal(err)
		}
		if w.Kind != "input" || w.Step != 2 || w.StepID != "which" || w.Question != "Encontrei 2 boletos. Qual cobrar (b1 ou b2)?" ||
			w.ContinueWith != "kadu_executions_continue" || x.Deadline == nil || !w.ExpiresAt.Equal(*x.Deadline) || x.Deadline.Sub(time.Now()) < 23*time.Hour {
			t.Fatalf("waiting %s deadline %v", deref(x.WaitingJSON), x.Deadline)
		}
		// Nothing runs while it waits, even when its job runs again.
		time.Sleep(200 * time.Millisecond)
		if n := len(e.cat.Calls("alpha_record")); n != 0 || len(e.cat.Calls("alpha_list")) != 1 {
			t.Fatalf("calls while waiting: record %d", n)
		}
		text, isErr := e.Call(e.member, "kadu_executions_get", map[string]any{"execution_id": id})
		if isErr || !strings.Contains(text, `"status":"waiting_input"`) || !strings.Contains(text, `"question":"Encontrei 2 boletos. Qual cobrar (b1 ou b2)?"`) {
			t.Fatalf("get: %s", text)
		}

		args := map[string]any{"execution_id": id, "input": map[string]any{"boleto": "b2"}}
		ask := confirmedCall(t, e.Env, "kadu_executions_continue", args, "")
		if msg := formMessage(ask); !strings.Contains(msg, "Continue the execution of task 'Cobrar um boleto'") || !strings.Contains(msg, `{"boleto":"b2"}`) {
			t.Fatalf("continue asks: %v", ask)
		}
		done := confirmedCall(t, e.Env, "kadu_executions_continue", args, ask["requestState"].(string))
		if content, _ := done["content"].([]any); done["isError"] == true || len(content) == 0 || !strings.Contains(content[0].(map[string]any)["text"].(string), `"status":"queued"`) {
			t.Fatalf("continue: %v", done)
		}
		x = e.wait(id, records.ExecSucceeded)
		rec := e.cat.Calls("alpha_record")
		if len(rec) != 1 || rec[0].Args["boleto"] != "b2" || len(e.cat.Calls("alpha_list")) != 1 {
			t.Fatalf("record calls %+v, list %d", rec, len(e.cat.Calls("alpha_list")))
		}
		var lines []string
		for _, st := range e.steps(id) {
			lines = append(lines, stepLine(st))
		}
		want := []string{"1 tool_call alpha_list succeeded", "2 message kadu_ask succeeded", "3 message  succeeded", "4 tool_call alpha_record succeeded"}
		if !slices.Equal(lines, want) {
			t.Fatalf("steps %v, want %v", lines, want)
		}
		var out struct {
			Steps map[string]json.RawMessage `json:"steps"`
		}
		if err := json.Unmarshal([]byte(deref(x.OutputJSON)), &out); err != nil || string(out.Steps["which"]) != `{"boleto":"b2"}` {
			t.Fatalf("output %s", deref(x.OutputJSON))
		}
		if x.WaitingJSON != nil || x.ResumeInputJSON != nil || strings.Contains(deref(x.CheckpointJSON), `"answer"`) {
			t.Fatalf("left behind: waiting %v resume %v checkpoint %s", x.WaitingJSON, x.ResumeInputJSON, deref(x.CheckpointJSON))
		}

		// Nobody answers: the timeouts sweep ends it failed.
		id2 := e.run(task.ID, nil)
		e.wait(id2, records.ExecWaitingInput)
		if n, err := e.svc.expireExecutions(e.ctx, time.Now().Add(e.svc.cfg.WaitTimeout+time.Minute)); err != nil || n != 1 {
			t.Fatalf("sweep: %d %v", n, err)
		}
		x2 := e.exec(id2)
		if x2.Status != records.ExecFailed || deref(x2.ErrorCode) != "input_timeout" || !strings.Contains(deref(x2.ErrorMessage), "nobody gave the input") {
			t.Fatalf("after the timeout: %s %s %s", x2.Status, deref(x2.ErrorCode), deref(x2.ErrorMessage))
		}
		e.wantError(e.member, "POST", "/api/v1/executions/"+id2+"/continue", map[string]any{"input": map[string]any{"boleto": "b1"}}, 409, codeNotWaiting)
		if n := len(e.cat.Calls("alpha_record")); n != 1 {
			t.Fatalf("record calls after the timeout: %d", n)
		}

		// A question is required; kadu_ask is no allowed tool.
		bad := askSteps()
		bad["steps"].([]map[string]any)[1]["arguments"] = map[string]any{"prompt": "?"}
		if resp := e.wantError(e.member, "POST", "/api/v1/tasks", bad, 422, "validation_failed"); !strings.Contains(resp, `"field":"steps.1.arguments.question"`) {
			t.Fatalf("no question: %s", resp)
		}
		bad = askSteps()
		bad["allowed_tools"] = []string{"alpha_list", "alpha_record", "kadu_ask"}
		if resp := e.wantError(e.member, "POST", "/api/v1/tasks", bad, 422, "validation_failed"); !strings.Contains(resp, "a task cannot call Kadu's own tools") {
			t.Fatalf("kadu_ask allowed: %s", resp)
		}
	})
}
