package kadu

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/internal/childproc"
	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/oauth/server/sqlstore"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/productkit/toolreg"
)

// The kill test's times, in the order the queue requires: a run of the
// job is bounded by killJobTimeout, and River rescues a job running
// longer than killRescueAfter (its process died).
const (
	killJobTimeout  = 3 * time.Second
	killRescueAfter = 4 * time.Second
)

// workerEnv, when set, makes the test binary a Kadu worker process that
// works executions until it is killed: the JSON of a workerConfig.
const workerEnv = "KOBANA_KADU_TEST_WORKER"

type workerConfig struct {
	DatabaseURL string `json:"database_url"`
	ModelURL    string `json:"model_url"`
	ToolsURL    string `json:"tools_url"`
}

func TestMain(m *testing.M) {
	childproc.Serve(workerEnv, runWorkerProcess)
	childproc.Serve(schedulerEnv, runSchedulerProcess)
	os.Exit(m.Run())
}

// remoteTools is the test catalog whose handlers run in the parent test
// process: each call is posted to it, which counts it and answers.
func remoteTools(url string) *toolreg.Registry {
	h := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		body, _ := json.Marshal(map[string]any{"tool": req.Name, "arguments": json.RawMessage(req.Arguments)})
		hreq, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		resp, err := http.DefaultClient.Do(hreq)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		text, _ := io.ReadAll(resp.Body)
		return mcp.TextResult(string(text)), nil
	}
	reg := toolreg.New()
	_ = reg.Add("alpha", []mcp.Tool{
		{Name: "alpha_list", Annotations: roAnn, Handler: h, Requires: mcp.Requirement{Scopes: []string{"alpha.read"}, Permission: identity.PermRead}},
		{Name: "alpha_record", Annotations: writeAnn, Handler: h, Requires: mcp.Requirement{Scopes: []string{"alpha.write"}, Permission: identity.PermWrite}},
	})
	return reg
}

func killConfig(modelURL string) Config {
	return Config{ModelURL: modelURL, DefaultModel: "test-model", Prices: testPrices,
		Runtime: RuntimeConfig{JobTimeout: killJobTimeout, Slice: 2 * time.Second, ModelTimeout: 2500 * time.Millisecond, RetryDelay: 10 * time.Millisecond}}
}

// runWorkerProcess is the worker process of TestWorkerKilledMidExecution.
func runWorkerProcess(raw []byte) int {
	var cfg workerConfig
	if err := json.Unmarshal(raw, &cfg); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 2
	}
	ctx := context.Background()
	db, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 2
	}
	q, err := jobs.New(ctx, db, jobs.Config{Work: true, PollInterval: 50 * time.Millisecond, JobTimeout: killJobTimeout, RescueAfter: killRescueAfter,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 2
	}
	s := runtimeOnly(db, q, remoteTools(cfg.ToolsURL), killConfig(cfg.ModelURL))
	jobs.AddWorker(q, s.runtime.Worker())
	if err := q.Start(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 2
	}
	fmt.Println("working")
	select {} // until killed
}

// TestWorkerKilledMidExecution: a separate worker process runs an agent
// execution — a model step, a tool call, a model step, a tool call — and
// is killed with SIGKILL while its third model call is in flight. River
// rescues the job; a worker in this process resumes the execution from
// its checkpoint: the interrupted model step is marked unknown and made
// again, and the execution completes. Every tool call ran exactly once.
func TestWorkerKilledMidExecution(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts and kills a worker process")
	}
	for _, engine := range storetest.Engines {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db, dbURL := storetest.OpenShared(t, engine, Migrations)

			// The tools' side: counts every call.
			var mu sync.Mutex
			calls := map[string][]string{}
			tools := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var c struct {
					Tool      string          `json:"tool"`
					Arguments json.RawMessage `json:"arguments"`
				}
				_ = json.NewDecoder(r.Body).Decode(&c)
				mu.Lock()
				calls[c.Tool] = append(calls[c.Tool], string(c.Arguments))
				mu.Unlock()
				if c.Tool == "alpha_list" {
					_, _ = io.WriteString(w, `{"data":[{"id":"b1","amount":10.5},{"id":"b2","amount":3}]}`)
					return
				}
				_, _ = fmt.Fprintf(w, `{"data":{"id":"r-%s"}}`, c.Arguments)
			}))
			t.Cleanup(tools.Close)

			// The model: the third call hangs until the test ends.
			m := newFakeModel(t)
			hung := make(chan struct{})
			release := make(chan struct{})
			t.Cleanup(func() { close(release) })
			m.script(
				callTools([3]int{800, 20, 0}, "alpha_list", `{}`),
				callTools([3]int{1000, 20, 0}, "alpha_record", `{"boleto":"b1"}`),
				func(w http.ResponseWriter, r *http.Request, req map[string]any) {
					close(hung)
					select {
					case <-release:
					case <-r.Context().Done():
					}
				},
				callTools([3]int{1200, 20, 0}, "alpha_record", `{"boleto":"b2"}`),
				answer([3]int{1400, 10, 0}, "Recorded b1 and b2."),
			)

			// The organization, the task and its queued execution, written
			// by an API replica that only enqueues.
			acc := accounts.New(db, accounts.Options{})
			org, err := acc.CreateOrganization(ctx, "Mine")
			if err != nil {
				t.Fatal(err)
			}
			member, err := acc.CreateUser(ctx, accounts.NewUser{Email: "member@mine.example", OrganizationID: org.ID, Role: identity.RoleMember})
			if err != nil {
				t.Fatal(err)
			}
			api, err := jobs.New(ctx, db, jobs.Config{Work: false, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			cfg := killConfig(m.srv.URL + "/v1")
			apiSvc := runtimeOnly(db, api, remoteTools(tools.URL), cfg)
			jobs.AddWorker(api, apiSvc.runtime.Worker())
			model := "test-model"
			now := store.Now()
			task := &records.Task{ID: store.NewID(), OrganizationID: org.ID, OwnerUserID: member.ID, Name: "Agente", Instructions: "Record each boleto.",
				Mode: records.ModeAgent, AllowedTools: []string{"alpha_list", "alpha_record"}, GrantedScopes: map[string][]string{"alpha": {"alpha.read", "alpha.write"}},
				Model: &model, Status: records.TaskActive, CreatedAt: now, UpdatedAt: now}
			if err := records.InsertTask(ctx, db, task); err != nil {
				t.Fatal(err)
			}
			var x *records.Execution
			if err := db.WithTx(ctx, func(tx *store.Tx) error {
				x, err = apiSvc.queueExecution(ctx, tx, task, runRequest{Trigger: records.TriggerManual, TriggeredBy: &member.ID, Input: map[string]any{"month": "2026-03"}})
				return err
			}); err != nil {
				t.Fatal(err)
			}

			child := childproc.Start(t, workerEnv, workerConfig{DatabaseURL: dbURL, ModelURL: m.srv.URL + "/v1", ToolsURL: tools.URL})
			select {
			case <-hung:
			case <-time.After(60 * time.Second):
				t.Fatal("the worker process never reached its third model call")
			}
			child.Kill(t)

			if got := apiSvc.mustExec(t, x.ID); got.Status != records.ExecRunning {
				t.Fatalf("after the kill: %s", got.Status)
			}
			mu.Lock()
			before := fmt.Sprint(calls)
			mu.Unlock()
			if before != `map[alpha_list:[{}] alpha_record:[{"boleto":"b1"}]]` {
				t.Fatalf("calls before the kill: %s", before)
			}

			// The surviving worker, once the job is stuck: River's leader
			// looks for stuck jobs when it starts and every 30 s.
			time.Sleep(killRescueAfter)
			survivor, err := jobs.New(ctx, db, jobs.Config{Work: true, PollInterval: 50 * time.Millisecond, JobTimeout: killJobTimeout,
				RescueAfter: killRescueAfter, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			s := runtimeOnly(db, survivor, remoteTools(tools.URL), cfg)
			jobs.AddWorker(survivor, s.runtime.Worker())
			if err := survivor.Start(ctx); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				_ = survivor.Stop(sctx)
			})
			deadline := time.Now().Add(90 * time.Second)
			var end *records.Execution
			for {
				end = s.mustExec(t, x.ID)
				if records.IsTerminal(end.Status) || time.Now().After(deadline) {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if end.Status != records.ExecSucceeded {
				t.Fatalf("the execution ended %s (%s: %s)", end.Status, deref(end.ErrorCode), deref(end.ErrorMessage))
			}
			mu.Lock()
			after := fmt.Sprint(calls)
			mu.Unlock()
			if after != `map[alpha_list:[{}] alpha_record:[{"boleto":"b1"} {"boleto":"b2"}]]` {
				t.Errorf("every tool call must have run exactly once: %s", after)
			}
			steps, _ := records.ListSteps(ctx, db, x.ID, 0, 100)
			var lines []string
			for _, st := range steps {
				lines = append(lines, stepLine(st))
			}
			want := fmt.Sprint([]string{"1 llm  succeeded", "2 tool_call alpha_list succeeded", "3 llm  succeeded", "4 tool_call alpha_record succeeded",
				"5 llm  unknown", "6 llm  succeeded", "7 tool_call alpha_record succeeded", "8 llm  succeeded"})
			if fmt.Sprint(lines) != want {
				t.Errorf("steps\n%v\nwant\n%v", lines, want)
			}
			t.Logf("the execution succeeded %s after the surviving worker started", time.Since(deadline.Add(-90*time.Second)).Round(100*time.Millisecond))
		})
	}
}

// runtimeOnly is a service whose queue knows only kadu.run_execution
// (the webhooks' worker, with its 30 s timeout, would not fit the short
// rescue time of these tests).
func runtimeOnly(db *store.DB, q *jobs.Queue, reg *toolreg.Registry, cfg Config) *service {
	deps := productkit.Deps{DB: db, Tools: reg, Roles: sqlstore.RoleLookup(db)}
	s := newService(deps, cfg)
	s.jobs = q
	s.runtime = s.newRuntime(deps) // on the queue too
	return s
}

func (s *service) mustExec(t *testing.T, id string) *records.Execution {
	t.Helper()
	x, err := records.ExecutionByID(context.Background(), s.db, id)
	if err != nil {
		t.Fatal(err)
	}
	return x
}
