package kadu

import (
	"testing"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/kadu/runtime"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// A quarantined execution job (its attempts kept killing their process,
// platform/jobs) fails its execution with worker_crashed through the
// runtime's write path, once: a second call, or a call for an execution
// already ended, changes nothing. The queue's side — when a job is
// quarantined, across real processes killed with SIGKILL — is
// platform/jobs' TestPoisonJobIsQuarantinedAfterTwoCrashes.
func TestQuarantinedExecutionFails(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		cfg := Config{}
		cfg.Runtime.Hold = true
		e := startRuntime(t, db, cfg)
		task := e.task(threeSteps())
		id := e.run(task.ID, map[string]any{"month": "2026-03"})
		if x := e.exec(id); x.Status != "queued" {
			t.Fatalf("held execution is %s", x.Status)
		}
		w := e.svc.runtime.Worker().(jobs.Quarantiner[runtime.RunExecutionArgs])
		job := &river.Job[runtime.RunExecutionArgs]{Args: runtime.RunExecutionArgs{ExecutionID: id}}
		if err := w.Quarantined(e.ctx, job, jobs.QuarantineReason); err != nil {
			t.Fatal(err)
		}
		x := e.exec(id)
		if x.Status != "failed" || deref(x.ErrorCode) != jobs.QuarantineReason || deref(x.ErrorMessage) == "" || x.FinishedAt == nil {
			t.Fatalf("quarantined execution: %s %s %q", x.Status, deref(x.ErrorCode), deref(x.ErrorMessage))
		}
		finished := *x.FinishedAt
		if err := w.Quarantined(e.ctx, job, jobs.QuarantineReason); err != nil {
			t.Fatal(err)
		}
		if again := e.exec(id); again.Status != "failed" || !again.FinishedAt.Equal(finished) {
			t.Fatalf("a second quarantine changed the execution: %s %v", again.Status, again.FinishedAt)
		}
		// An execution that is gone is not an error.
		if err := w.Quarantined(e.ctx, &river.Job[runtime.RunExecutionArgs]{Args: runtime.RunExecutionArgs{ExecutionID: "00000000-0000-0000-0000-000000000000"}}, jobs.QuarantineReason); err != nil {
			t.Fatalf("missing execution: %v", err)
		}
	})
}
