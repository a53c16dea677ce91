package kadu

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/kadu/runtime"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// toolMessage is the content of the tool message answering callID in a
// model request, and whether there is one.
func toolMessage(req map[string]any, callID string) (string, bool) {
	msgs, _ := req["messages"].([]any)
	for _, m := range msgs {
		mm := m.(map[string]any)
		if mm["role"] == "tool" && mm["tool_call_id"] == callID {
			s, _ := mm["content"].(string)
			return s, true
		}
	}
	return "", false
}

// TestAgentAsksThePerson: an agent's model calls kadu_ask (offered to
// every agent); a call without a question is answered to the model as an
// error and nobody is asked; a call with one records the question and
// parks the execution in waiting_input, naming the call, with nothing
// more called and no model step made while it waits;
// kadu_executions_continue gives the input, which the model reads as
// kadu_ask's result (the tool message answering that very call), and the
// agent goes on to call the tool the answer names and succeeds. The
// question is asked once; the input is in the continue's message step.
func TestAgentAsksThePerson(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		m := newFakeModel(t)
		m.script(
			func(w http.ResponseWriter, r *http.Request, req map[string]any) {
				writeCompletion(w, map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "call_blank", "type": "function",
					"function": map[string]any{"name": "kadu_ask", "arguments": `{"question":"  "}`}}}}, "tool_calls", [3]int{900, 20, 0})
			},
			callTools([3]int{1000, 20, 0}, "kadu_ask", `{"question":"Qual boleto cobrar (b1 ou b2)?"}`),
			func(w http.ResponseWriter, r *http.Request, req map[string]any) {
				// The answer reaches the model as the function's result.
				if got, ok := toolMessage(req, "call_2_0"); !ok || got != `{"boleto":"b2"}` {
					http.Error(w, `{"error":{"message":"the answer is missing: `+got+`"}}`, http.StatusBadRequest)
					return
				}
				callTools([3]int{1100, 20, 0}, "alpha_record", `{"boleto":"b2","amount":3}`)(w, r, req)
			},
			answer([3]int{1200, 10, 0}, "Cobrei o boleto b2."),
		)
		e := startRuntime(t, db, agentConfig(m))
		task := e.task(agentTask("alpha_record"))
		id := e.run(task.ID, nil)
		x := e.wait(id, records.ExecWaitingInput, records.ExecFailed, records.ExecSucceeded)
		if x.Status != records.ExecWaitingInput {
			t.Fatalf("status %s %s %s", x.Status, deref(x.ErrorCode), deref(x.ErrorMessage))
		}
		var w runtime.WaitingInput
		if err := json.Unmarshal([]byte(deref(x.WaitingJSON)), &w); err != nil {
			t.Fatal(err)
		}
		if w.Kind != "input" || w.CallID != "call_2_0" || w.Question != "Qual boleto cobrar (b1 ou b2)?" || w.ContinueWith != "kadu_executions_continue" ||
			x.Deadline == nil || !w.ExpiresAt.Equal(*x.Deadline) {
			t.Fatalf("waiting %s", deref(x.WaitingJSON))
		}
		reqs := m.Requests()
		if len(reqs) != 2 || !slices.Contains(functionsOffered(reqs[0]), "kadu_ask") {
			t.Fatalf("%d model requests before the answer; offered %v", len(reqs), functionsOffered(reqs[0]))
		}
		if got, ok := toolMessage(reqs[1], "call_blank"); !ok || !strings.Contains(got, "invalid_arguments") || !strings.Contains(got, "nobody was asked") {
			t.Fatalf("the blank question's answer to the model: %q", got)
		}
		time.Sleep(200 * time.Millisecond)
		if n := len(e.cat.Calls("")); n != 0 || len(m.Requests()) != 2 {
			t.Fatalf("while waiting: %d tool calls, %d model requests", n, len(m.Requests()))
		}

		e.do(e.member, "POST", "/api/v1/executions/"+id+"/continue", map[string]any{"input": map[string]any{"boleto": "b2"}}, 202)
		x = e.wait(id, records.ExecSucceeded, records.ExecFailed)
		if x.Status != records.ExecSucceeded {
			t.Fatalf("after the answer: %s %s %s", x.Status, deref(x.ErrorCode), deref(x.ErrorMessage))
		}
		var out map[string]any
		_ = json.Unmarshal([]byte(deref(x.OutputJSON)), &out)
		if out["answer"] != "Cobrei o boleto b2." {
			t.Fatalf("output %s", deref(x.OutputJSON))
		}
		if rec := e.cat.Calls("alpha_record"); len(rec) != 1 || rec[0].Args["boleto"] != "b2" {
			t.Fatalf("alpha_record calls %+v", rec)
		}
		var lines []string
		var input string
		for _, st := range e.steps(id) {
			lines = append(lines, stepLine(st))
			if st.Kind == records.StepMessage && st.ToolName == nil {
				input = deref(st.ArgumentsJSON)
			}
		}
		want := []string{"1 llm  succeeded", "2 tool_call kadu_ask failed", "3 llm  succeeded", "4 message kadu_ask succeeded",
			"5 message  succeeded", "6 llm  succeeded", "7 tool_call alpha_record succeeded", "8 llm  succeeded"}
		if !slices.Equal(lines, want) || !strings.Contains(input, `"boleto":"b2"`) {
			t.Fatalf("steps\n%v\nwant\n%v\ninput step %s", lines, want, input)
		}
		if x.WaitingJSON != nil || x.ResumeInputJSON != nil || strings.Contains(deref(x.CheckpointJSON), `"answer"`) || strings.Contains(deref(x.CheckpointJSON), `"asked"`) {
			t.Fatalf("left behind: waiting %v resume %v checkpoint %s", x.WaitingJSON, x.ResumeInputJSON, deref(x.CheckpointJSON))
		}
	})
}
