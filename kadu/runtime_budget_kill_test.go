package kadu

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/internal/childproc"
	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// budgetKill is the scene of a budget kill test: a database shared with
// a worker process, the tools' side counting every call, the model, an
// API replica that only enqueues, and an agent execution queued with a
// ceiling of R$ 2,50 (two model steps of 101 cents fit, the third does
// not).
type budgetKill struct {
	t      *testing.T
	ctx    context.Context
	db     *store.DB
	dbURL  string
	model  *fakeModel
	tools  *httptest.Server
	api    *service
	member accounts.User
	exec   *records.Execution

	mu    sync.Mutex
	calls []string
}

func newBudgetKill(t *testing.T, engine store.Dialect, replies ...func(w http.ResponseWriter, r *http.Request, req map[string]any)) *budgetKill {
	t.Helper()
	k := &budgetKill{t: t, ctx: context.Background()}
	k.db, k.dbURL = storetest.OpenShared(t, engine, Migrations)
	k.tools = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var c struct {
			Tool      string          `json:"tool"`
			Arguments json.RawMessage `json:"arguments"`
		}
		_ = json.NewDecoder(r.Body).Decode(&c)
		k.mu.Lock()
		k.calls = append(k.calls, c.Tool+" "+string(c.Arguments))
		k.mu.Unlock()
		if c.Tool == "alpha_list" {
			_, _ = io.WriteString(w, `{"data":[{"id":"b1"},{"id":"b2"}]}`)
			return
		}
		_, _ = fmt.Fprintf(w, `{"data":{"id":"r-%s"}}`, c.Arguments)
	}))
	t.Cleanup(k.tools.Close)
	k.model = newFakeModel(t)
	k.model.script(replies...)

	acc := accounts.New(k.db, accounts.Options{})
	org, err := acc.CreateOrganization(k.ctx, "Mine")
	if err != nil {
		t.Fatal(err)
	}
	if k.member, err = acc.CreateUser(k.ctx, accounts.NewUser{Email: "member@mine.example", OrganizationID: org.ID, Role: identity.RoleMember}); err != nil {
		t.Fatal(err)
	}
	q, err := jobs.New(k.ctx, k.db, jobs.Config{Work: false, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	k.api = runtimeOnly(k.db, q, remoteTools(k.tools.URL), killConfig(k.model.srv.URL+"/v1"))
	jobs.AddWorker(q, k.api.runtime.Worker())
	model := "test-model"
	now := store.Now()
	task := &records.Task{ID: store.NewID(), OrganizationID: org.ID, OwnerUserID: k.member.ID, Name: "Agente", Instructions: "Record each boleto.",
		Mode: records.ModeAgent, AllowedTools: []string{"alpha_list", "alpha_record"}, GrantedScopes: map[string][]string{"alpha": {"alpha.read", "alpha.write"}},
		Model: &model, Status: records.TaskActive, CreatedAt: now, UpdatedAt: now}
	if err := records.InsertTask(k.ctx, k.db, task); err != nil {
		t.Fatal(err)
	}
	ceiling := int64(250)
	if err := k.db.WithTx(k.ctx, func(tx *store.Tx) error {
		k.exec, err = k.api.queueExecution(k.ctx, tx, task, runRequest{Trigger: records.TriggerManual, TriggeredBy: &k.member.ID, MaxCostCents: &ceiling})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return k
}

// worker starts a worker process on the shared database.
func (k *budgetKill) worker() *childproc.Child {
	return childproc.Start(k.t, workerEnv, workerConfig{DatabaseURL: k.dbURL, ModelURL: k.model.srv.URL + "/v1", ToolsURL: k.tools.URL})
}

// survivor starts a worker in this process, once a killed process's job
// can be rescued.
func (k *budgetKill) survivor() {
	time.Sleep(killRescueAfter)
	q, err := jobs.New(k.ctx, k.db, jobs.Config{Work: true, PollInterval: 50 * time.Millisecond, JobTimeout: killJobTimeout,
		RescueAfter: killRescueAfter, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		k.t.Fatal(err)
	}
	s := runtimeOnly(k.db, q, remoteTools(k.tools.URL), killConfig(k.model.srv.URL+"/v1"))
	jobs.AddWorker(q, s.runtime.Worker())
	if err := q.Start(k.ctx); err != nil {
		k.t.Fatal(err)
	}
	k.t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = q.Stop(sctx)
	})
}

// until polls the execution until its status is one of want.
func (k *budgetKill) until(want ...string) *records.Execution {
	k.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		x := k.api.mustExec(k.t, k.exec.ID)
		if slices.Contains(want, x.Status) {
			return x
		}
		if records.IsTerminal(x.Status) || time.Now().After(deadline) {
			k.t.Fatalf("the execution is %s (%s: %s), want %v", x.Status, deref(x.ErrorCode), deref(x.ErrorMessage), want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// decide gives the person's budget decision as kadu_executions_continue
// does (its handler's write path), as the task's owner.
func (k *budgetKill) decide(in *continueIn) {
	k.t.Helper()
	in.ID = k.exec.ID
	id := &identity.Identity{UserID: k.member.ID, Email: k.member.Email, OrganizationID: k.exec.OrganizationID, Role: identity.RoleMember}
	h := &executionsAPI{k.api}
	if err := k.db.WithTx(k.ctx, func(tx *store.Tx) error {
		e, err := records.LockExecution(k.ctx, tx, k.exec.OrganizationID, k.exec.ID)
		if err != nil {
			return err
		}
		t, err := records.TaskOfExecution(k.ctx, tx, e)
		if err != nil {
			return err
		}
		return h.continueBudget(k.ctx, tx, id, t, e, in)
	}); err != nil {
		k.t.Fatal(err)
	}
}

func (k *budgetKill) toolCalls() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.calls)
}

func (k *budgetKill) steps() []string {
	rows, err := records.ListSteps(k.ctx, k.db, k.exec.ID, 0, 100)
	if err != nil {
		k.t.Fatal(err)
	}
	var lines []string
	for _, st := range rows {
		lines = append(lines, stepLine(st))
	}
	return lines
}

// TestBudgetPauseSurvivesKill: a worker process pauses an agent execution
// at its ceiling and is killed with SIGKILL while it waits. The pause is
// in the database: the person raises the ceiling, a worker in this
// process resumes it from the step that waited, and it succeeds — every
// tool call made once, every model step once, every finished step kept.
func TestBudgetPauseSurvivesKill(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts and kills a worker process")
	}
	for _, engine := range storetest.Engines {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			k := newBudgetKill(t, engine,
				callTools(budgetUsage, "alpha_list", `{}`),
				callTools(budgetUsage, "alpha_record", `{"boleto":"b1"}`),
				answer(budgetUsage, "Recorded b1."),
			)
			child := k.worker()
			x := k.until(records.ExecWaitingBudget)
			child.Kill(t)
			if w := waitingBudget(t, x); w.ModelStep != 3 || x.CostCents != 202 {
				t.Fatalf("paused at step %d, cost %d", w.ModelStep, x.CostCents)
			}

			raise := 5.0
			k.decide(&continueIn{MaxCost: &raise})
			k.survivor()
			x = k.until(records.ExecSucceeded)
			if got := k.toolCalls(); !slices.Equal(got, []string{"alpha_list {}", `alpha_record {"boleto":"b1"}`}) {
				t.Errorf("every tool call must have run exactly once: %v", got)
			}
			if n := len(k.model.Requests()); n != 3 || x.CostCents != 303 || x.MaxCostCents != 500 {
				t.Errorf("%d model calls, cost %d of %d", n, x.CostCents, x.MaxCostCents)
			}
			want := []string{"1 llm  succeeded", "2 tool_call alpha_list succeeded", "3 llm  succeeded", "4 tool_call alpha_record succeeded",
				"5 message  succeeded", "6 message  succeeded", "7 llm  succeeded"}
			if got := k.steps(); !slices.Equal(got, want) {
				t.Errorf("steps\n%v\nwant\n%v", got, want)
			}
		})
	}
}

// TestBudgetResumeSurvivesKill: the person approves the overrun of the
// step that waited; the worker process resuming it is killed with SIGKILL
// while that model call is in flight. A worker in this process rescues
// the job: the interrupted model step is marked unknown and made again
// under the same approval (it is still the approved step), its tool call
// runs once, and the step after it is held to the ceiling again — the
// execution waits for its budget once more. Nothing lost, nothing
// repeated.
func TestBudgetResumeSurvivesKill(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts and kills a worker process")
	}
	for _, engine := range storetest.Engines {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			hung := make(chan struct{})
			release := make(chan struct{})
			t.Cleanup(func() { close(release) })
			k := newBudgetKill(t, engine,
				callTools(budgetUsage, "alpha_list", `{}`),
				callTools(budgetUsage, "alpha_record", `{"boleto":"b1"}`),
				func(w http.ResponseWriter, r *http.Request, req map[string]any) {
					close(hung)
					select {
					case <-release:
					case <-r.Context().Done():
					}
				},
				callTools(budgetUsage, "alpha_record", `{"boleto":"b2"}`),
				answer(budgetUsage, "Recorded b1 and b2."),
			)
			child := k.worker()
			k.until(records.ExecWaitingBudget)
			k.decide(&continueIn{ApproveOverrun: true})
			select {
			case <-hung:
			case <-time.After(60 * time.Second):
				t.Fatal("the worker process never resumed the model step that waited")
			}
			child.Kill(t)
			if x := k.api.mustExec(t, k.exec.ID); x.Status != records.ExecRunning || x.CostCents != 202 {
				t.Fatalf("after the kill: %s, cost %d", x.Status, x.CostCents)
			}

			k.survivor()
			x := k.until(records.ExecWaitingBudget)
			if w := waitingBudget(t, x); w.ModelStep != 4 || x.CostCents != 303 || x.MaxCostCents != 250 {
				t.Fatalf("after the resume: waits at step %d, cost %d of %d", w.ModelStep, x.CostCents, x.MaxCostCents)
			}
			if got := k.toolCalls(); !slices.Equal(got, []string{"alpha_list {}", `alpha_record {"boleto":"b1"}`, `alpha_record {"boleto":"b2"}`}) {
				t.Errorf("every tool call must have run exactly once: %v", got)
			}
			if n := len(k.model.Requests()); n != 4 {
				t.Errorf("%d model calls, want 4 (the interrupted one made again)", n)
			}
			want := []string{"1 llm  succeeded", "2 tool_call alpha_list succeeded", "3 llm  succeeded", "4 tool_call alpha_record succeeded",
				"5 message  succeeded", "6 message  succeeded", "7 llm  unknown", "8 llm  succeeded", "9 tool_call alpha_record succeeded",
				"10 message  succeeded"}
			if got := k.steps(); !slices.Equal(got, want) {
				t.Errorf("steps\n%v\nwant\n%v", got, want)
			}
		})
	}
}
