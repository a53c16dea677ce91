package approval_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit/approval"
	"github.com/kobana/kobana-mcp/productkit/approval/approvaltest"
)

// TestStoreTransitions: every step is conditional, so racing steps change
// the row once, and a status never moves back.
func TestStoreTransitions(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, approvaltest.Options{})
		ctx := context.Background()
		st := e.srv.Policy.Store()
		l := e.createLink(`{"project":"alpha"}`)
		id := l.ApprovalID

		if ok, _ := st.Approve(ctx, id, e.srv.Other.ID); ok {
			t.Error("another person approved it")
		}
		if ok, _ := st.Claim(ctx, id); ok {
			t.Error("a pending approval was claimed")
		}
		var approvals, claims atomic.Int32
		var wg sync.WaitGroup
		for range 10 {
			wg.Go(func() {
				if ok, err := st.Approve(ctx, id, e.srv.Owner.ID); err != nil {
					t.Error(err)
				} else if ok {
					approvals.Add(1)
				}
				if ok, err := st.Claim(ctx, id); err != nil {
					t.Error(err)
				} else if ok {
					claims.Add(1)
				}
			})
		}
		wg.Wait()
		if approvals.Load() != 1 || claims.Load() != 1 {
			t.Fatalf("%d approvals, %d claims; want one each", approvals.Load(), claims.Load())
		}
		if ok, _ := st.Cancel(ctx, id); ok {
			t.Error("a running approval was cancelled")
		}
		if ok, err := st.Finish(ctx, id, approval.StatusSucceeded, []mcp.Content{mcp.TextContent("ok")}); !ok || err != nil {
			t.Fatalf("finish: %v %v", ok, err)
		}
		if ok, _ := st.Finish(ctx, id, approval.StatusFailed, nil); ok {
			t.Error("an outcome was recorded twice")
		}
		a := e.approval(id)
		if a.Status != approval.StatusSucceeded || a.ResultText() != "ok" {
			t.Errorf("approval = %+v", a)
		}
		// Another organization does not see it.
		if _, err := st.GetInOrganization(ctx, store.NewID(), id); err != store.ErrNotFound {
			t.Errorf("GetInOrganization of another organization: %v", err)
		}
		if got, err := st.GetInOrganization(ctx, e.srv.Org.ID, id); err != nil || got.ID != id {
			t.Errorf("GetInOrganization: %v", err)
		}
	})
}

// TestInterruptedRun: a run whose process died is given up as failed once
// twice the run timeout has passed, saying its outcome is unknown.
func TestInterruptedRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite), approvaltest.Options{})
	ctx := context.Background()
	st := e.srv.Policy.Store()
	l := e.createLink(`{"project":"alpha"}`)
	if ok, _ := st.Approve(ctx, l.ApprovalID, e.srv.Owner.ID); !ok {
		t.Fatal("approve")
	}
	if ok, _ := st.Claim(ctx, l.ApprovalID); !ok { // a runner that then dies
		t.Fatal("claim")
	}
	e.clock.Advance(2*approval.DefaultRunTimeout + time.Minute)
	b := e.browser()
	p := b.open(l.ApprovalURL, approvaltest.OwnerEmail, approvaltest.OwnerPassword)
	if a := e.approval(l.ApprovalID); a.Status != approval.StatusFailed || a.ResultText() == "" {
		t.Fatalf("approval = %+v\n%s", a, p.body)
	}
	e.wantRuns("alpha", 0)
}
