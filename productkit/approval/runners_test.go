package approval_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit/approval"
	"github.com/kobana/kobana-mcp/productkit/approval/approvaltest"
)

// TestRunnersOneWorkerPerQueue: policies on one queue share its one
// approval.run worker (a second worker of the kind would not register),
// and two policies claiming the same tool are a wiring mistake New
// reports, instead of one silently running the other's calls.
func TestRunnersOneWorkerPerQueue(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.SQLite, approval.Migrations)
	q, err := jobs.New(context.Background(), db, jobs.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	runners := approval.NewRunners(db, q)
	tools := approvaltest.NewProjects().Tools()
	opts := approval.Options{DB: db, PublicURL: "http://127.0.0.1:1", Tools: tools[:1], Jobs: q, Runners: runners}
	if _, err := approval.New(opts); err != nil {
		t.Fatal(err)
	}
	opts.PublicURL, opts.Tools = "http://127.0.0.1:2", tools[1:]
	if _, err := approval.New(opts); err != nil {
		t.Fatalf("a second product's policy on the same runner: %v", err)
	}
	opts.Tools = tools[:1]
	if _, err := approval.New(opts); err == nil || !strings.Contains(err.Error(), "already has a runner") {
		t.Fatalf("two policies for %s: %v", tools[0].Name, err)
	}
}

// TestRunnersFitTheQueuesRescueTime: on a queue whose jobs are rescued
// after 65 s (the shortest --job-rescue-after serve allows with its
// one-minute job timeout), the approved calls' run is bounded so that
// their job still fits, and the queue starts; with the default RunTimeout
// (2 min) and its half minute to record the outcome it would not.
func TestRunnersFitTheQueuesRescueTime(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.SQLite, approval.Migrations)
	q, err := jobs.New(context.Background(), db, jobs.Config{Work: true, RescueAfter: 65 * time.Second, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	runners := approval.NewRunners(db, q)
	if _, err := approval.New(approval.Options{DB: db, PublicURL: "http://127.0.0.1:1", Tools: approvaltest.NewProjects().Tools(), Jobs: q, Runners: runners}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := q.Start(ctx); err != nil {
		t.Fatalf("the queue refuses the approval runs' timeout: %v", err)
	}
	_ = q.Stop(context.Background())
}
