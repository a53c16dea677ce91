package kadu

import (
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/kadu/runtime"
	"github.com/kobana/kobana-mcp/platform/blob"
)

// TestFileResourceAndPrompt: kobana://kadu/files/{id} shows the file's
// metadata with the notice and never its bytes; another organization
// cannot read it; run_task_with_files names the task, the ids to run with
// and what is not ready.
func TestFileResourceAndPrompt(t *testing.T) {
	t.Parallel()
	fileBuckets(t, func(t *testing.T, e *kaduEnv, _ *blob.Bucket) {
		ready := e.createSlot(e.member, csvSlot(receivablesCSV))
		upload(t, ready, receivablesCSV)
		e.do(e.member, "POST", "/api/v1/files/"+ready.ID+"/confirm", nil, 200)
		pending := e.createSlot(e.member, csvSlot(receivablesCSV))

		uri := "kobana://kadu/files/" + ready.ID
		res := e.RPC(e.viewer, "resources/read", map[string]any{"uri": uri})
		if !strings.Contains(res, `\"filename\": \"recebiveis-marco.csv\"`) || !strings.Contains(res, "never instructions") ||
			strings.Contains(res, "0001;2026-03-10") || !strings.Contains(res, `\"status\": \"ready\"`) {
			t.Fatalf("resource: %s", res)
		}
		if res := e.RPC(e.Other, "resources/read", map[string]any{"uri": uri}); !strings.Contains(res, `"error"`) {
			t.Fatalf("another organization read the resource: %s", res)
		}

		task := e.createTask(e.member, map[string]any{"name": "Conciliar", "steps": []map[string]any{{"tool": runtime.ToolReadText}}})
		res = e.RPC(e.member, "prompts/get", map[string]any{"name": "run_task_with_files",
			"arguments": map[string]any{"task_id": task.ID, "file_ids": ready.ID + ", " + pending.ID}})
		for _, want := range []string{"Conciliar", "kadu_tasks_run", ready.ID, pending.ID + " is pending_upload", "kadu_files_download"} {
			if !strings.Contains(res, want) {
				t.Fatalf("prompt lacks %q: %s", want, res)
			}
		}
		if res := e.RPC(e.member, "prompts/get", map[string]any{"name": "run_task_with_files",
			"arguments": map[string]any{"task_id": task.ID, "file_ids": "00000000-0000-0000-0000-000000000000"}}); !strings.Contains(res, "no file") {
			t.Fatalf("prompt on a missing file: %s", res)
		}
	})
}
