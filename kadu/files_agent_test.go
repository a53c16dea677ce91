package kadu

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/kadu/runtime"
	"github.com/kobana/kobana-mcp/platform/blob/blobtest"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestAgentReadsInputFiles: an agent run on a file is told of it by
// reference (metadata, as data; never its content in the prompt), is
// offered the file tools, and reads the text through files_read_text;
// a file not ready, or unknown, is refused when the run is asked for.
func TestAgentReadsInputFiles(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		m := newFakeModel(t)
		m.script(
			callTools([3]int{100, 10, 0}, runtime.ToolReadText, `{"index":0}`),
			answer([3]int{200, 10, 0}, "Two receivables, R$ 1.820,50 in all."),
		)
		cfg := agentConfig(m)
		cfg.Files = FilesConfig{bucket: blobtest.Dir(t), URLSecret: "agent files secret"}
		e := startRuntime(t, db, cfg)
		slot := e.createSlot(e.member, csvSlot(receivablesCSV))
		upload(t, slot, receivablesCSV)
		pending := e.createSlot(e.member, csvSlot(receivablesCSV))
		task := e.task(agentTask("alpha_list"))
		resp := e.wantError(e.member, "POST", "/api/v1/tasks/"+task.ID+"/run", map[string]any{"input_file_ids": []string{slot.ID}}, 422, "validation_failed")
		if !strings.Contains(resp, "only ready (confirmed) files") {
			t.Fatalf("a run on an unconfirmed file: %s", resp)
		}
		e.do(e.member, "POST", "/api/v1/files/"+slot.ID+"/confirm", nil, 200)
		e.wantError(e.member, "POST", "/api/v1/tasks/"+task.ID+"/run", map[string]any{"input_file_ids": []string{slot.ID, pending.ID}}, 422, "validation_failed")
		if n := e.count(`SELECT COUNT(*) FROM kadu_executions`); n != 0 {
			t.Fatalf("a refused run queued %d executions", n)
		}
		out := e.do(e.member, "POST", "/api/v1/tasks/"+task.ID+"/run", map[string]any{"input_file_ids": []string{slot.ID}}, 202)
		var queued struct{ Data executionJSON }
		_ = json.Unmarshal([]byte(out), &queued)
		e.wait(queued.Data.ID, records.ExecSucceeded)

		reqs := m.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d model requests", len(reqs))
		}
		if got := functionsOffered(reqs[0]); !slices.Equal(got, []string{"alpha_list", runtime.ToolReadText, runtime.ToolWriteOutput, runtime.AskTool}) {
			t.Fatalf("offered %v", got)
		}
		first, _ := json.Marshal(reqs[0]["messages"])
		if !strings.Contains(string(first), "recebiveis-marco.csv") || !strings.Contains(string(first), slot.ID) || strings.Contains(string(first), "0001;2026-03-10") {
			t.Fatalf("the first prompt should name the file, not hold its content: %s", first)
		}
		second, _ := json.Marshal(reqs[1]["messages"])
		if !strings.Contains(string(second), `0001;2026-03-10;1500,00`) {
			t.Fatalf("the tool answer lacks the file's text: %s", second)
		}
		var steps []string
		for _, st := range e.steps(queued.Data.ID) {
			steps = append(steps, st.Kind+":"+deref(st.ToolName)+":"+st.Status)
		}
		if !slices.Contains(steps, "tool_call:"+runtime.ToolReadText+":succeeded") {
			t.Fatalf("steps %v", steps)
		}
	})
}
