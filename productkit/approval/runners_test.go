package approval_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

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
