package kadu

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/platform/tracing/tracingtest"
	"github.com/kobana/kobana-mcp/productkit/producttest"
)

// tracedCall is confirmedCall sent with an HTTP traceparent header.
func tracedCall(t *testing.T, e *producttest.Env, tool string, args map[string]any, state, traceparent string) map[string]any {
	t.Helper()
	params := map[string]any{"name": tool, "arguments": args, "_meta": map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}},
	}}
	if state != "" {
		params["requestState"] = state
		params["inputResponses"] = json.RawMessage(`{"confirm":{"action":"accept","content":{"confirm":true}}}`)
	}
	var out struct{ Result map[string]any }
	raw := e.RPC(e.Owner, "tools/call", params, "traceparent", traceparent)
	if err := json.Unmarshal([]byte(raw), &out); err != nil || out.Result == nil {
		t.Fatalf("%s: %v %s", tool, err, raw)
	}
	return out.Result
}

// TestTracesKaduExecution: an execution started by a traced tools/call is
// one trace across its runs. The first run hangs under the call; the run
// after the person's answer — its job enqueued by a REST request outside
// any trace, so the job's own span is a trace of its own — is in the
// execution's trace too, linked to that job span. The trace context is
// kept with the execution's row (kadu_executions.trace_parent).
func TestTracesKaduExecution(t *testing.T) {
	t.Parallel()
	for _, d := range storetest.Engines {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			col := tracingtest.NewCollector(t)
			tp := col.Provider(t)
			db := storetest.OpenWith(t, d, store.Options{Tracer: tp}, Migrations)
			e := startRuntimeWith(t, db, Config{}, producttest.Options{Tracer: tp})
			task := e.createTask(e.Owner, askSteps())

			const runTrace = "5bf92f3577b34da6a3ce929d0e0e4736"
			traceparent := "00-" + runTrace + "-1111111111111111-01"
			args := map[string]any{"task_id": task.ID, "input": map[string]any{}}
			ask := tracedCall(t, e.Env, "kadu_tasks_run", args, "", traceparent)
			done := tracedCall(t, e.Env, "kadu_tasks_run", args, ask["requestState"].(string), traceparent)
			content, _ := done["content"].([]any)
			if done["isError"] == true || len(content) == 0 {
				t.Fatalf("run: %v", done)
			}
			var run struct {
				Data struct{ ID string } `json:"data"`
			}
			if err := json.Unmarshal([]byte(content[0].(map[string]any)["text"].(string)), &run); err != nil || run.Data.ID == "" {
				t.Fatalf("run: %v", done)
			}
			id := run.Data.ID
			x := e.wait(id, records.ExecWaitingInput)
			if !strings.HasPrefix(deref(x.TraceParent), "00-"+runTrace+"-") {
				t.Fatalf("the execution keeps trace context %q, want the run's trace %s", deref(x.TraceParent), runTrace)
			}
			// The answer, over REST with no trace context.
			e.do(e.Owner, "POST", "/api/v1/executions/"+id+"/continue", map[string]any{"input": map[string]any{"boleto": "b1"}}, 202)
			e.wait(id, records.ExecSucceeded)

			spans := col.Wait(t, 10*time.Second, func(s []tracingtest.Span) bool {
				n := 0
				for _, r := range tracingtest.All(s, "kadu.execution.run") {
					if r.Attrs["kadu.execution.id"] == id && !r.Error {
						n++
					}
				}
				return n >= 2
			})
			tr := tracingtest.InTrace(spans, runTrace)
			t.Logf("one Kadu execution across a resume (%s):\n%s", d, tracingtest.Tree(tr))
			var runs []tracingtest.Span
			for _, r := range tracingtest.All(spans, "kadu.execution.run") {
				if r.Attrs["kadu.execution.id"] == id {
					runs = append(runs, r)
				}
			}
			first, last := runs[0], runs[len(runs)-1]
			for _, r := range runs {
				if r.TraceID != runTrace {
					t.Fatalf("a run of the execution is in trace %s, not the execution's %s:\n%s", r.TraceID, runTrace, tracingtest.Tree(spans))
				}
			}
			// The second tools/call (the confirmed one) started it.
			calls := tracingtest.All(tr, "tools/call kadu_tasks_run")
			if len(calls) != 2 || !tracingtest.Ancestor(tr, calls[1], first) || !tracingtest.Ancestor(tr, calls[1], last) {
				t.Fatalf("the first run is not under the tools/call that started it:\n%s", tracingtest.Tree(tr))
			}
			// The resume's job span is a trace of its own, linked from the run.
			if len(last.Links) != 1 || strings.HasPrefix(last.Links[0], runTrace) {
				t.Fatalf("the resumed run links %v, want the job span of another trace", last.Links)
			}
			jobTrace, jobSpan, _ := strings.Cut(last.Links[0], "/")
			job := tracingtest.Find(t, tracingtest.InTrace(spans, jobTrace), "river.work/kadu.run_execution")
			if job.SpanID != jobSpan || job.Kind != "CONSUMER" {
				t.Fatalf("the linked span is %+v", job)
			}
			t.Logf("the resume's job, linked from the run:\n%s", tracingtest.Tree(tracingtest.InTrace(spans, jobTrace)))
		})
	}
}
