package kadu

import (
	"errors"
	"testing"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/platform/webhooks"
)

// TestDeliveryFollowsDestinations: a status change emits the webhook
// event and queues the e-mails of the destinations that want it, in its
// own transaction — one event however many webhook destinations want it,
// no e-mail for a destination whose "on" leaves it out,
// nothing for a transition that lost the race; waits are delivered too,
// and timed_out as failed.
func TestDeliveryFollowsDestinations(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startKadu(t, db, testModelConfig)
		hook, _, err := e.svc.hooks.Create(e.ctx, webhooks.NewWebhook{OrganizationID: e.Mine.ID, WorkspaceID: e.MineWS.ID, Label: "ERP",
			URL: "https://erp.example/hook", Auth: webhooks.AuthNone, SubscribedEvents: []string{"kadu.execution.*"}})
		if err != nil {
			t.Fatal(err)
		}
		task := e.createTask(e.member, workflow("Conciliar"))
		e.do(e.admin, "PUT", "/api/v1/tasks/"+task.ID+"/destinations", map[string]any{"destinations": []map[string]any{
			{"kind": "webhook", "on": []string{"failed", "timed_out"}},
			{"kind": "webhook"}, // every end and every wait
			{"kind": "email", "target": "financeiro@mine.example", "on": []string{"succeeded"}}}}, 200)
		running := func() *records.Execution {
			t.Helper()
			now := store.Now()
			x := &records.Execution{ID: store.NewID(), OrganizationID: e.Mine.ID, TaskID: task.ID, Trigger: records.TriggerManual, TriggeredBy: &e.member.ID,
				Status: records.ExecRunning, InputJSON: "{}", InputFileIDsJSON: "[]", MaxCostCents: 100, StartedAt: &now, CreatedAt: now, UpdatedAt: now}
			if err := records.InsertExecution(e.ctx, db, x); err != nil {
				t.Fatal(err)
			}
			return x
		}
		slugs := func() []string {
			t.Helper()
			ds, err := e.svc.hooks.ListDeliveries(e.ctx, e.Mine.ID, e.MineWS.ID, hook.ID, "", 50)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, d := range ds {
				out = append(out, d.EventSlug)
			}
			return out
		}
		emails := func() int { return e.count(`SELECT COUNT(*) FROM river_job WHERE kind = 'kadu.result_email'`) }

		ok := running()
		if err := e.svc.machine.Transition(e.ctx, db, ok, records.ExecSucceeded, records.Change{}); err != nil {
			t.Fatal(err)
		}
		if got := slugs(); len(got) != 1 || got[0] != "kadu.execution.succeeded" || emails() != 1 {
			t.Fatalf("succeeded: deliveries %v, e-mails %d (want one event, 1)", got, emails())
		}
		bad := running()
		code, msg := "boom", "it failed"
		if err := e.svc.machine.Transition(e.ctx, db, bad, records.ExecFailed, records.Change{ErrorCode: &code, ErrorMessage: &msg}); err != nil {
			t.Fatal(err)
		}
		// Two webhook destinations want it: one event all the same.
		if got := slugs(); len(got) != 2 || emails() != 1 {
			t.Fatalf("failed: deliveries %v, e-mails %d", got, emails())
		}
		// A transition that lost the race (the row is no longer running)
		// delivers nothing.
		stale := *bad
		stale.Status = records.ExecRunning
		if err := e.svc.machine.Transition(e.ctx, db, &stale, records.ExecCanceled, records.Change{}); !errors.Is(err, records.ErrStaleExecution) {
			t.Fatalf("stale transition: %v", err)
		}
		if got := slugs(); len(got) != 2 {
			t.Fatalf("a stale transition delivered: %v", got)
		}
		slow := running()
		if err := e.svc.machine.Transition(e.ctx, db, slow, records.ExecTimedOut, records.Change{}); err != nil {
			t.Fatal(err)
		}
		waiting := running()
		if err := e.svc.machine.Transition(e.ctx, db, waiting, records.ExecWaitingInput, records.Change{}); err != nil {
			t.Fatal(err)
		}
		got := slugs()
		want := map[string]int{"kadu.execution.succeeded": 1, "kadu.execution.failed": 2, "kadu.execution.waiting_input": 1}
		for _, s := range got {
			want[s]--
		}
		for s, n := range want {
			if n != 0 {
				t.Fatalf("deliveries %v: %s off by %d", got, s, n)
			}
		}
	})
}
