package kadu

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// The replay suite (docs/kadu.md "Replay tests"): each file of
// testdata/replay is an execution recorded on the fake model provider —
// the task, its input, every model answer, every tool result, what a
// person decided at each wait — and the steps the runtime took. Replayed,
// the model's answers and the tools' results are served from the file,
// so the history is the same; a runtime that would take another step on
// it (another tool, other arguments, another order, another number of
// model calls, another final status) fails here, naming the first step
// that differs, the way durable engines test that a change to their code
// is still deterministic on recorded histories. `go test ./kadu -run
// Replay -update` records them again from the scenarios below.

// replayDir holds the recordings.
const replayDir = "testdata/replay"

// recording is one recorded execution (a file of testdata/replay).
type recording struct {
	Name  string         `json:"name"`
	About string         `json:"about"`
	Task  map[string]any `json:"task"`
	Input map[string]any `json:"input"`
	// MaxCost is the run's ceiling in BRL (0: the task's).
	MaxCost float64 `json:"max_cost,omitempty"`
	// Model are the model calls in order: what the runtime sent (the
	// tools offered, the roles of the history) and what it was answered.
	Model []replayModelCall `json:"model"`
	// Tools are the tool calls in order, with what each answered.
	Tools []replayToolCall `json:"tools"`
	// Stops are the waits the execution reached, in order, with what the
	// person decided.
	Stops []replayStop `json:"stops"`
	// Steps are the execution's steps as the runtime recorded them.
	Steps []replayStep `json:"steps"`
	Final string       `json:"final_status"`
	// Diverged is what the tapes saw go off the recording during a
	// replay (never in a file).
	Diverged []string `json:"-"`
}

type replayModelCall struct {
	Offered []string `json:"offered"`
	Roles   []string `json:"roles"`
	// MaxTokens is the answer's bound the runtime sent
	// (max_completion_tokens): what the budget allowed the step.
	MaxTokens int             `json:"max_tokens"`
	Status    int             `json:"status"`
	Answer    json.RawMessage `json:"answer"`
}

type replayToolCall struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
	Result    string         `json:"result"`
	IsError   bool           `json:"is_error,omitempty"`
}

// replayStop is a wait and the decision taken: approve a waiting_approval
// step, or continue a waiting_budget execution with a raised max_cost.
type replayStop struct {
	Status  string  `json:"status"`
	Approve bool    `json:"approve,omitempty"`
	MaxCost float64 `json:"max_cost,omitempty"`
}

type replayStep struct {
	Seq       int    `json:"seq"`
	Kind      string `json:"kind"`
	Tool      string `json:"tool,omitempty"`
	Arguments any    `json:"arguments,omitempty"`
	Status    string `json:"status"`
	CostCents int64  `json:"cost_cents,omitempty"`
}

// replayScenario is how a recording is made: the run and the fake
// model's script.
type replayScenario struct {
	rec    recording
	script []func(w http.ResponseWriter, r *http.Request, req map[string]any)
}

// replayScenarios are the recordings -update makes.
func replayScenarios() []replayScenario {
	approvalTask := map[string]any{"name": "Limpar", "allowed_tools": []string{"alpha_list", "alpha_delete"},
		"steps": []map[string]any{
			{"id": "list", "tool": "alpha_list"},
			{"id": "del", "tool": "alpha_delete", "arguments": map[string]any{"id": "{{steps.list.data[1].id}}"}},
			{"id": "again", "tool": "alpha_list"},
		}}
	return []replayScenario{
		{rec: recording{Name: "agent_tool_calls", About: "an agent lists the boletos, records two charges in one model step, and answers",
			Task: agentTask("alpha_list", "alpha_record"), Input: map[string]any{"month": "2026-03"}},
			script: []func(http.ResponseWriter, *http.Request, map[string]any){
				callTools([3]int{1200, 40, 0}, "alpha_list", `{"month":"2026-03"}`),
				callTools([3]int{2000, 60, 1000}, "alpha_record", `{"boleto":"b1","amount":10.5}`, "alpha_record", `{"boleto":"b2","amount":3}`),
				answer([3]int{2600, 30, 2000}, "Recorded 2 charges: r1, r2."),
			}},
		{rec: recording{Name: "workflow", About: "a workflow: a list, a charge from its first item, a step its condition skips",
			Task: threeSteps(), Input: map[string]any{"month": "2026-03"}}},
		{rec: recording{Name: "approval_wait", About: "a workflow stops before a destructive step, a person approves it, it goes on",
			Task: approvalTask, Input: map[string]any{}, Stops: []replayStop{{Status: records.ExecWaitingApproval, Approve: true}}}},
		{rec: recording{Name: "budget_pause", About: "an agent pauses before a model step its R$ 2,50 ceiling cannot pay, is continued with R$ 5,00 and succeeds",
			Task: agentTask("alpha_list", "alpha_record"), Input: map[string]any{}, MaxCost: 2.50,
			Stops: []replayStop{{Status: records.ExecWaitingBudget, MaxCost: 5}}},
			script: []func(http.ResponseWriter, *http.Request, map[string]any){
				callTools(budgetUsage, "alpha_list", `{}`),
				callTools(budgetUsage, "alpha_record", `{"boleto":"b1"}`),
				answer(budgetUsage, "Recorded b1."),
			}},
	}
}

// TestReplay replays every recording on both engines; with -update it
// records them first (on the first engine) from the scenarios.
func TestReplay(t *testing.T) {
	t.Parallel()
	recs := map[string]recording{}
	var mu sync.Mutex
	if *updateGolden {
		for _, sc := range replayScenarios() {
			recs[sc.rec.Name] = recording{}
		}
	} else {
		files, _ := filepath.Glob(filepath.Join(replayDir, "*.json"))
		if len(files) < 4 {
			t.Fatalf("%d recordings in %s: run go test ./kadu -run Replay -update", len(files), replayDir)
		}
		for _, f := range files {
			rec := readRecording(t, f)
			recs[rec.Name] = rec
		}
	}
	scenarios := map[string]replayScenario{}
	for _, sc := range replayScenarios() {
		scenarios[sc.rec.Name] = sc
	}
	names := make([]string, 0, len(recs))
	for n := range recs {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
				mu.Lock()
				rec := recs[name]
				mu.Unlock()
				if *updateGolden && db.Dialect() == storetest.Engines[0] {
					got := playRecording(t, db, scenarios[name], nil)
					writeRecording(t, got)
					mu.Lock()
					recs[name] = *got
					mu.Unlock()
					return
				}
				if rec.Name == "" {
					t.Skip("not recorded on this engine")
				}
				got := playRecording(t, db, replayScenario{}, &rec)
				if err := checkReplay(&rec, got); err != nil {
					t.Fatalf("replay of %s/%s.json: %v", replayDir, name, err)
				}
			})
		})
	}
}

// TestReplayCatchesAChange shows the checker fails on a runtime that
// would take another step: given the agent recording with one tool
// call's arguments altered, as if the runtime had rendered them
// otherwise, it names that step; another number of model calls, another
// order of tools and another final status are named too. It replays the
// altered recording against the runtime as well: the tool tape sees the
// call go off the recording.
func TestReplayCatchesAChange(t *testing.T) {
	t.Parallel()
	rec := readRecording(t, filepath.Join(replayDir, "agent_tool_calls.json"))
	if err := checkReplay(&rec, cloneRecording(t, rec)); err != nil {
		t.Fatalf("the recording against itself: %v", err)
	}
	altered := cloneRecording(t, rec)
	seq := -1
	for i, st := range altered.Steps {
		if st.Kind == records.StepToolCall && st.Tool == "alpha_record" {
			altered.Steps[i].Arguments = map[string]any{"boleto": "b9", "amount": 10.5}
			seq = st.Seq
			break
		}
	}
	if seq < 0 {
		t.Fatal("no alpha_record step in the recording")
	}
	err := checkReplay(altered, cloneRecording(t, rec))
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("step %d (tool_call alpha_record)", seq)) || !strings.Contains(err.Error(), `"boleto":"b9"`) {
		t.Fatalf("altered arguments: %v", err)
	}

	fewer := cloneRecording(t, rec)
	fewer.Model = fewer.Model[:len(fewer.Model)-1]
	if err := checkReplay(&rec, fewer); err == nil || !strings.Contains(err.Error(), "model calls") {
		t.Errorf("a model call less: %v", err)
	}
	swapped := cloneRecording(t, rec)
	swapped.Tools[0], swapped.Tools[1] = swapped.Tools[1], swapped.Tools[0]
	if err := checkReplay(&rec, swapped); err == nil || !strings.Contains(err.Error(), "tool call 1") {
		t.Errorf("tools in another order: %v", err)
	}
	final := cloneRecording(t, rec)
	final.Final = records.ExecFailed
	if err := checkReplay(&rec, final); err == nil || !strings.Contains(err.Error(), "final status failed, the recording has succeeded") {
		t.Errorf("another final status: %v", err)
	}

	// Against the runtime: the recording's tool tape says alpha_list was
	// called with another month; the runtime, served the same model
	// answers, calls it as the model asked, and the replay fails there.
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		bad := cloneRecording(t, rec)
		bad.Tools[0].Arguments = map[string]any{"month": "2026-04"}
		got := playRecording(t, db, replayScenario{}, bad)
		err := checkReplay(bad, got)
		if err == nil || !strings.Contains(err.Error(), "tool call 1: alpha_list") || !strings.Contains(err.Error(), `"month":"2026-04"`) {
			t.Fatalf("replay of the altered recording: %v", err)
		}
	})
}

// playRecording runs one execution: from sc's script and the catalog's
// own tools when replaying is nil (recording it), else from replaying's
// model answers and tool results. It answers what was observed.
func playRecording(t *testing.T, db *store.DB, sc replayScenario, replaying *recording) *recording {
	t.Helper()
	obs := &recording{}
	plan := sc.rec
	if replaying != nil {
		plan = *replaying
	}
	obs.Name, obs.About, obs.Task, obs.Input, obs.MaxCost = plan.Name, plan.About, plan.Task, plan.Input, plan.MaxCost
	var mu sync.Mutex
	diverge := func(format string, a ...any) {
		mu.Lock()
		obs.Diverged = append(obs.Diverged, fmt.Sprintf(format, a...))
		mu.Unlock()
	}

	// The model: the scenario's script, or the recorded answers.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var req map[string]any
		_ = json.Unmarshal(raw, &req)
		call := replayModelCall{Offered: functionsOffered(req)}
		if mt, ok := req["max_completion_tokens"].(float64); ok {
			call.MaxTokens = int(mt)
		}
		msgs, _ := req["messages"].([]any)
		for _, m := range msgs {
			role, _ := m.(map[string]any)["role"].(string)
			call.Roles = append(call.Roles, role)
		}
		mu.Lock()
		n := len(obs.Model)
		obs.Model = append(obs.Model, call)
		mu.Unlock()
		if replaying == nil {
			rw := httptest.NewRecorder()
			if n < len(sc.script) {
				sc.script[n](rw, r, req)
			} else {
				http.Error(rw, `{"error":{"message":"no more scripted replies"}}`, http.StatusBadRequest)
			}
			call.Status, call.Answer = rw.Code, json.RawMessage(bytes.TrimSpace(rw.Body.Bytes()))
		} else {
			if n >= len(replaying.Model) {
				diverge("model call %d: the recording has %d", n+1, len(replaying.Model))
				http.Error(w, `{"error":{"message":"the recording has no more model answers"}}`, http.StatusBadRequest)
				return
			}
			want := replaying.Model[n]
			if !slices.Equal(call.Offered, want.Offered) || !slices.Equal(call.Roles, want.Roles) {
				diverge("model call %d: sent tools %v and history %v, the recording has %v and %v", n+1, call.Offered, call.Roles, want.Offered, want.Roles)
			}
			if call.MaxTokens != want.MaxTokens {
				diverge("model call %d: bounded the answer to %d tokens, the recording to %d", n+1, call.MaxTokens, want.MaxTokens)
			}
			call.Status, call.Answer = want.Status, want.Answer
		}
		mu.Lock()
		obs.Model[n] = call
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(call.Status)
		_, _ = w.Write(call.Answer)
	}))
	t.Cleanup(srv.Close)
	cfg := Config{ModelURL: srv.URL + "/v1", DefaultModel: "test-model", Prices: testPrices,
		Plan:    PlanLimits{MaxCostPerExecutionCents: 100_000, MonthlyCostLimitCents: 1_000_000},
		Runtime: RuntimeConfig{ModelTimeout: 5 * time.Second, RetryDelay: 10 * time.Millisecond}}
	e := startRuntime(t, db, cfg)

	// The tools: the catalog's answers, or the recorded ones.
	e.cat.mu.Lock()
	e.cat.tape = func(tc toolCall, result string, isError bool) (string, bool) {
		args := normalizeArgs(tc.Args)
		mu.Lock()
		n := len(obs.Tools)
		obs.Tools = append(obs.Tools, replayToolCall{Tool: tc.Tool, Arguments: args})
		mu.Unlock()
		if replaying != nil {
			if n >= len(replaying.Tools) {
				diverge("tool call %d: %s %s, the recording has %d tool calls", n+1, tc.Tool, compactJSON(args), len(replaying.Tools))
				return `{"error":{"code":"replay","message":"not in the recording"}}`, true
			}
			want := replaying.Tools[n]
			if tc.Tool != want.Tool || !reflect.DeepEqual(jsonValue(args), jsonValue(want.Arguments)) {
				diverge("tool call %d: %s %s, the recording has %s %s", n+1, tc.Tool, compactJSON(args), want.Tool, compactJSON(want.Arguments))
			}
			result, isError = want.Result, want.IsError
		}
		mu.Lock()
		obs.Tools[n].Result, obs.Tools[n].IsError = result, isError
		mu.Unlock()
		return result, isError
	}
	e.cat.mu.Unlock()

	task := e.task(plan.Task)
	body := map[string]any{"input": plan.Input}
	if plan.Input == nil {
		body["input"] = map[string]any{}
	}
	if plan.MaxCost > 0 {
		body["max_cost"] = plan.MaxCost
	}
	resp := e.do(e.member, "POST", "/api/v1/tasks/"+task.ID+"/run", body, 202)
	var out struct{ Data struct{ ID string } }
	if err := json.Unmarshal([]byte(resp), &out); err != nil || out.Data.ID == "" {
		t.Fatalf("run: %s", resp)
	}
	id := out.Data.ID
	ended := []string{records.ExecSucceeded, records.ExecFailed, records.ExecCanceled, records.ExecTimedOut, records.ExecCostExceeded}
	waits := []string{records.ExecWaitingApproval, records.ExecWaitingBudget, records.ExecWaitingInput}
	for {
		x := e.wait(id, append(slices.Clone(ended), waits...)...)
		if slices.Contains(ended, x.Status) {
			obs.Final = x.Status
			break
		}
		i := len(obs.Stops)
		if i >= len(plan.Stops) || plan.Stops[i].Status != x.Status {
			// A wait the recording does not have: the replay ends here.
			obs.Stops = append(obs.Stops, replayStop{Status: x.Status})
			obs.Final = x.Status
			break
		}
		d := plan.Stops[i]
		obs.Stops = append(obs.Stops, d)
		switch {
		case x.Status == records.ExecWaitingApproval && d.Approve:
			if ok, err := e.svc.approvals.Approve(e.ctx, deref(x.ApprovalID), e.member.ID); !ok || err != nil {
				t.Fatalf("approve: %v %v", ok, err)
			}
			a, err := e.svc.approvals.Get(e.ctx, deref(x.ApprovalID))
			if err != nil {
				t.Fatal(err)
			}
			if err := e.svc.runtime.ApprovalDecided(e.ctx, a); err != nil {
				t.Fatal(err)
			}
		case x.Status == records.ExecWaitingBudget && d.MaxCost > 0:
			e.do(e.member, "POST", "/api/v1/executions/"+id+"/continue", map[string]any{"max_cost": d.MaxCost}, 202)
		default:
			t.Fatalf("stop %d (%s): the recording says no decision this suite can take: %+v", i+1, x.Status, d)
		}
		// Until the decision is taken: the execution leaves that wait,
		// or reaches the same kind of wait again further on.
		deadline := time.Now().Add(30 * time.Second)
		for {
			y := e.exec(id)
			if y.Status != x.Status || y.StepCount != x.StepCount {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("execution %s still %s after the decision", id, y.Status)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	for _, st := range e.steps(id) {
		rs := replayStep{Seq: st.Seq, Kind: st.Kind, Tool: deref(st.ToolName), Status: st.Status, CostCents: st.CostCents}
		if a := deref(st.ArgumentsJSON); a != "" {
			var v any
			if err := json.Unmarshal([]byte(normalizeText(a)), &v); err != nil {
				t.Fatalf("step %d arguments: %v: %s", st.Seq, err, a)
			}
			rs.Arguments = v
		}
		obs.Steps = append(obs.Steps, rs)
	}
	mu.Lock()
	defer mu.Unlock()
	return obs
}

// checkReplay compares what a replay observed (got) with the recording
// (want): the first step that differs, then the model calls, the tool
// calls, the waits and the final status; nil when the runtime took the
// same steps.
func checkReplay(want, got *recording) error {
	var problems []string
	for i := 0; i < max(len(want.Steps), len(got.Steps)); i++ {
		if i >= len(got.Steps) {
			w := want.Steps[i]
			problems = append(problems, fmt.Sprintf("step %d (%s %s): the runtime did not take it (it took %d steps)", w.Seq, w.Kind, w.Tool, len(got.Steps)))
			break
		}
		g := got.Steps[i]
		if i >= len(want.Steps) {
			problems = append(problems, fmt.Sprintf("step %d (%s %s): the runtime took it, the recording has %d steps", g.Seq, g.Kind, g.Tool, len(want.Steps)))
			break
		}
		w := want.Steps[i]
		name := fmt.Sprintf("step %d (%s %s)", w.Seq, w.Kind, w.Tool)
		switch {
		case g.Kind != w.Kind || g.Tool != w.Tool:
			problems = append(problems, fmt.Sprintf("%s: the runtime took %s %s", name, g.Kind, g.Tool))
		case !reflect.DeepEqual(jsonValue(g.Arguments), jsonValue(w.Arguments)):
			problems = append(problems, fmt.Sprintf("%s: the runtime gave arguments %s, the recording has %s", name, compactJSON(g.Arguments), compactJSON(w.Arguments)))
		case g.Status != w.Status:
			problems = append(problems, fmt.Sprintf("%s: the runtime ended it %s, the recording has %s", name, g.Status, w.Status))
		case g.CostCents != w.CostCents:
			problems = append(problems, fmt.Sprintf("%s: it cost %d cents, the recording %d", name, g.CostCents, w.CostCents))
		default:
			continue
		}
		break
	}
	if len(got.Model) != len(want.Model) {
		problems = append(problems, fmt.Sprintf("%d model calls, the recording has %d", len(got.Model), len(want.Model)))
	}
	for i := 0; i < max(len(want.Tools), len(got.Tools)); i++ {
		if i >= len(got.Tools) || i >= len(want.Tools) {
			problems = append(problems, fmt.Sprintf("%d tool calls, the recording has %d", len(got.Tools), len(want.Tools)))
			break
		}
		g, w := got.Tools[i], want.Tools[i]
		if g.Tool != w.Tool || !reflect.DeepEqual(jsonValue(g.Arguments), jsonValue(w.Arguments)) {
			problems = append(problems, fmt.Sprintf("tool call %d: %s %s, the recording has %s %s", i+1, g.Tool, compactJSON(g.Arguments), w.Tool, compactJSON(w.Arguments)))
			break
		}
	}
	var gs, ws []string
	for _, s := range got.Stops {
		gs = append(gs, s.Status)
	}
	for _, s := range want.Stops {
		ws = append(ws, s.Status)
	}
	if !slices.Equal(gs, ws) {
		problems = append(problems, fmt.Sprintf("waits %v, the recording has %v", gs, ws))
	}
	if got.Final != want.Final {
		problems = append(problems, fmt.Sprintf("final status %s, the recording has %s", got.Final, want.Final))
	}
	for _, d := range got.Diverged {
		if !slices.Contains(problems, d) {
			problems = append(problems, d)
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("the runtime took another path on the recorded history:\n  %s", strings.Join(problems, "\n  "))
}

// idsAndTimes are what differs from one run to the next in what the
// runtime records (ids, instants); recordings keep placeholders.
var (
	idPattern   = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	timePattern = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})`)
)

func normalizeText(s string) string {
	return timePattern.ReplaceAllString(idPattern.ReplaceAllString(s, "<id>"), "<time>")
}

func normalizeArgs(args map[string]any) map[string]any {
	b, _ := json.Marshal(args)
	var out map[string]any
	_ = json.Unmarshal([]byte(normalizeText(string(b))), &out)
	return out
}

// jsonValue is v as JSON decodes it, so values compare alike whatever
// type built them.
func jsonValue(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

func compactJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func readRecording(t *testing.T, path string) recording {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rec recording
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil || rec.Name == "" {
		t.Fatalf("%s: %v", path, err)
	}
	return rec
}

func cloneRecording(t *testing.T, rec recording) *recording {
	t.Helper()
	b, _ := json.Marshal(rec)
	var out recording
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

func writeRecording(t *testing.T, rec *recording) {
	t.Helper()
	if len(rec.Diverged) > 0 {
		t.Fatalf("recording %s: %v", rec.Name, rec.Diverged)
	}
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(replayDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(replayDir, rec.Name+".json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
