package approval_test

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit/approval"
	"github.com/kobana/kobana-mcp/productkit/approval/approvaltest"
)

const (
	urlOnly = `{"elicitation":{"url":{}}}`
	accept  = `{"approval":{"action":"accept"}}`
)

// prompted checks an input_required URL elicitation and returns the
// approval's id and the requestState.
func (e *env) prompted(r reply, wantNote string) (id, state string) {
	e.t.Helper()
	if r.status != http.StatusOK || r.msg.Result["resultType"] != "input_required" {
		e.t.Fatalf("want input_required, got %d:\n%s", r.status, r.body)
	}
	reqs, _ := r.msg.Result["inputRequests"].(map[string]any)
	ask, _ := reqs[approval.ElicitKey].(map[string]any)
	params, _ := ask["params"].(map[string]any)
	if len(reqs) != 1 || ask["method"] != "elicitation/create" || params["mode"] != "url" {
		e.t.Fatalf("inputRequests = %v", reqs)
	}
	link, _ := params["url"].(string)
	id, ok := strings.CutPrefix(link, e.ts.URL+"/approvals/")
	msg, _ := params["message"].(string)
	if !ok || id == "" || !strings.Contains(msg, alphaMessage) || !strings.Contains(msg, "Nothing runs until you choose Continuar") || !strings.Contains(msg, wantNote) {
		e.t.Fatalf("url %q, message %q", link, msg)
	}
	for _, k := range []string{"content", "isError"} {
		if _, ok := r.msg.Result[k]; ok {
			e.t.Errorf("input_required carries %q", k)
		}
	}
	state, _ = r.msg.Result["requestState"].(string)
	if state == "" {
		e.t.Fatalf("no requestState:\n%s", r.body)
	}
	return id, state
}

// wantToolError checks an isError result with a JSON error code.
func (e *env) wantToolError(r reply, code string) {
	e.t.Helper()
	if r.status != http.StatusOK || r.msg.Error != nil || !r.isError() || !strings.Contains(r.text(), `"code":"`+code+`"`) || !strings.Contains(r.text(), "Nothing was done") {
		e.t.Fatalf("want isError %s, got %d:\n%s", code, r.status, r.body)
	}
}

// TestURLElicitation: a 2026 client that declared URL elicitation gets the
// link as an input_required URL request; retries re-prompt while it is
// pending; the retry after the approval runs the call once; a further
// retry answers the recorded outcome and runs nothing again.
func TestURLElicitation(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, approvaltest.Options{})
		first := call{modern: true, caps: urlOnly}
		id, state := e.prompted(e.do(first), "")
		if a := e.approval(id); a.Status != approval.StatusPending || a.Tool != "projects_delete" {
			t.Fatalf("approval = %+v", a)
		}
		// Pending: accept (the person agreed to open the link) or no
		// answer at all asks again, for the same approval.
		for _, answers := range []string{accept, ""} {
			retry := first
			retry.requestState, retry.inputResponses = state, answers
			again, next := e.prompted(e.do(retry), "")
			if again != id {
				t.Fatalf("re-prompt is for approval %s, want %s", again, id)
			}
			state = next
		}
		e.wantRuns("alpha", 0)

		// Approved (by the page's store step, with no background run): the
		// retry claims the run and answers the tool's result.
		if ok, err := e.srv.Policy.Store().Approve(context.Background(), id, e.srv.Owner.ID); !ok || err != nil {
			t.Fatalf("approve: %v %v", ok, err)
		}
		retry := first
		retry.requestState, retry.inputResponses = state, accept
		r := e.do(retry)
		if r.msg.Result["resultType"] != "complete" || r.isError() || r.text() != `{"deleted":"alpha","runs":1}` {
			t.Fatalf("retry after the approval:\n%s", r.body)
		}
		e.wantRuns("alpha", 1)
		a := e.approval(id)
		if a.Status != approval.StatusSucceeded || a.ResultText() != `{"deleted":"alpha","runs":1}` {
			t.Fatalf("approval = %+v", a)
		}
		// The same state again: the recorded outcome, nothing runs.
		r2 := e.do(retry)
		if r2.isError() || r2.text() != r.text() {
			t.Fatalf("second retry:\n%s", r2.body)
		}
		e.wantRuns("alpha", 1)
		// The page shows it ran.
		b := e.browser()
		if p := b.open("/approvals/"+id, approvaltest.OwnerEmail, approvaltest.OwnerPassword); !strings.Contains(p.body, `data-status="succeeded"`) {
			t.Errorf("page:\n%s", p.body)
		}
	})
}

// TestURLElicitationContinuar: Continuar on the page runs the call in the
// background; the client's retry answers that run's outcome.
func TestURLElicitationContinuar(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, approvaltest.Options{})
		first := call{modern: true, caps: urlOnly}
		id, state := e.prompted(e.do(first), "")
		b := e.browser()
		p := b.open("/approvals/"+id, approvaltest.OwnerEmail, approvaltest.OwnerPassword)
		b.decide(p, "/approvals/"+id, "continuar")
		retry := first
		retry.requestState, retry.inputResponses = state, accept
		r := e.do(retry)
		if r.isError() || r.text() != `{"deleted":"alpha","runs":1}` {
			t.Fatalf("retry:\n%s", r.body)
		}
		e.waitStatus(id, approval.StatusSucceeded)
		e.wantRuns("alpha", 1)
	})
}

// TestURLElicitationDeclined: declining (or cancelling) the URL request
// cancels the approval; nothing runs, and the page cannot run it later.
func TestURLElicitationDeclined(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, approvaltest.Options{})
		for _, action := range []string{"decline", "cancel"} {
			first := call{modern: true, caps: urlOnly}
			id, state := e.prompted(e.do(first), "")
			retry := first
			retry.requestState, retry.inputResponses = state, `{"approval":{"action":"`+action+`"}}`
			e.wantToolError(e.do(retry), "approval_declined")
			if a := e.approval(id); a.Status != approval.StatusCancelled {
				t.Errorf("%s: status %s", action, a.Status)
			}
			retry.inputResponses = accept
			e.wantToolError(e.do(retry), "approval_cancelled")
			if ok, _ := e.srv.Policy.Store().Approve(context.Background(), id, e.srv.Owner.ID); ok {
				t.Errorf("%s: a cancelled approval was approved", action)
			}
		}
		e.wantRuns("alpha", 0)
	})
}

// TestURLElicitationExpired: the retry of an approval nobody approved in
// time answers isError, and nothing runs.
func TestURLElicitationExpired(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, approvaltest.Options{})
		first := call{modern: true, caps: urlOnly}
		id, state := e.prompted(e.do(first), "")
		e.clock.Advance(approval.DefaultTTL + time.Second)
		retry := first
		retry.requestState, retry.inputResponses = state, accept
		e.wantToolError(e.do(retry), "approval_expired")
		if a := e.approval(id); a.Status != approval.StatusExpired {
			t.Errorf("status %s", a.Status)
		}
		e.wantRuns("alpha", 0)
	})
}

// TestClickAndRetryRace: the background run of a click and a client's
// retry race for an approved call; it runs once, and both see its outcome.
func TestClickAndRetryRace(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, approvaltest.Options{})
		gate := make(chan struct{})
		e.srv.Projects.Gate = gate
		first := call{modern: true, caps: urlOnly}
		id, state := e.prompted(e.do(first), "")
		if ok, err := e.srv.Policy.Store().Approve(context.Background(), id, e.srv.Owner.ID); !ok || err != nil {
			t.Fatalf("approve: %v %v", ok, err)
		}
		var wg sync.WaitGroup
		var r reply
		retry := first
		retry.requestState, retry.inputResponses = state, accept
		wg.Go(func() { r = e.do(retry) })
		wg.Go(func() {
			if err := e.srv.Policy.RunApproved(context.Background(), id); err != nil {
				t.Errorf("RunApproved: %v", err)
			}
		})
		time.Sleep(100 * time.Millisecond)
		close(gate)
		wg.Wait()
		if r.isError() || r.text() != `{"deleted":"alpha","runs":1}` {
			t.Fatalf("retry:\n%s", r.body)
		}
		e.waitStatus(id, approval.StatusSucceeded)
		e.wantRuns("alpha", 1)
	})
}

// TestRetryWhileRunning: a retry that finds the run still going after
// RetryWait is asked to come back, and runs nothing itself.
func TestRetryWhileRunning(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite), approvaltest.Options{RetryWait: 200 * time.Millisecond})
	gate := make(chan struct{})
	e.srv.Projects.Gate = gate
	first := call{modern: true, caps: urlOnly}
	id, state := e.prompted(e.do(first), "")
	b := e.browser()
	p := b.open("/approvals/"+id, approvaltest.OwnerEmail, approvaltest.OwnerPassword)
	b.decide(p, "/approvals/"+id, "continuar")
	e.waitStatus(id, approval.StatusRunning)
	if running := b.get("/approvals/" + id); !strings.Contains(running.body, `data-status="running"`) || !strings.Contains(running.body, `http-equiv="refresh"`) {
		t.Errorf("running page:\n%s", running.body)
	}
	retry := first
	retry.requestState, retry.inputResponses = state, accept
	again, next := e.prompted(e.do(retry), "It was approved and is running now")
	if again != id {
		t.Fatalf("re-prompt for %s, want %s", again, id)
	}
	close(gate)
	e.waitStatus(id, approval.StatusSucceeded)
	retry.requestState = next
	if r := e.do(retry); r.isError() || r.text() != `{"deleted":"alpha","runs":1}` {
		t.Fatalf("retry after the run:\n%s", r.body)
	}
	e.wantRuns("alpha", 1)
}

// TestStateBinding: an approval's requestState works only for the same
// caller, tool and arguments (the framework's binding), so it cannot run
// anything else.
func TestStateBinding(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.Open(t, store.SQLite), approvaltest.Options{})
	first := call{modern: true, caps: urlOnly}
	id, state := e.prompted(e.do(first), "")
	if ok, _ := e.srv.Policy.Store().Approve(context.Background(), id, e.srv.Owner.ID); !ok {
		t.Fatal("approve")
	}
	for name, c := range map[string]call{
		"other arguments": {modern: true, caps: urlOnly, arguments: `{"project":"beta"}`},
		"other person":    {modern: true, caps: urlOnly, token: e.token(e.srv.Other, e.srv.Org.ID)},
		"tampered":        {modern: true, caps: urlOnly},
	} {
		c.requestState, c.inputResponses = state, accept
		if name == "tampered" {
			c.requestState = state + "-TAMPERED"
		}
		r := e.do(c)
		if r.msg.Error == nil || r.msg.Error.Code != -32602 {
			t.Errorf("%s: want -32602, got %d:\n%s", name, r.status, r.body)
		}
	}
	if !reflect.DeepEqual(e.srv.Projects.AllRuns(), map[string]int{}) {
		t.Errorf("runs: %v", e.srv.Projects.AllRuns())
	}
	if a := e.approval(id); a.Status != approval.StatusApproved {
		t.Errorf("status %s", a.Status)
	}
}
