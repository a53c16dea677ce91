package kadu

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/kadu/runtime"
	"github.com/kobana/kobana-mcp/oauth/server/sqlstore"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/productkit/producttest"
)

// kaduEnv is Kadu served for a test (producttest) with people of every
// role in Mine, and a service on the same database for what the runtime
// does (steps, transitions) and the jobs' functions.
type kaduEnv struct {
	*producttest.Env
	svc                   *service
	viewer, member, admin accounts.User
	member2               accounts.User
	t                     *testing.T
	ctx                   context.Context
}

// testModelConfig is a deployment with a model API configured.
var testModelConfig = Config{ModelURL: "http://127.0.0.1:9/v1", DefaultModel: "gpt-4o-mini"}

func startKadu(t *testing.T, db *store.DB, cfg Config) *kaduEnv {
	t.Helper()
	// These tests drive executions by hand: the runtime's worker leaves
	// them as they are (the runtime's own tests run it: runtime_test.go).
	cfg.Runtime.Hold = true
	spec := specWith(cfg)
	e := &kaduEnv{Env: producttest.Start(t, db, spec, producttest.Options{}), t: t, ctx: context.Background()}
	e.svc = newService(productkit.Deps{DB: db, Jobs: e.Jobs, Roles: sqlstore.RoleLookup(db)}, cfg)
	for _, u := range []struct {
		dst  *accounts.User
		role identity.Role
		name string
	}{{&e.viewer, identity.RoleViewer, "viewer"}, {&e.member, identity.RoleMember, "member"},
		{&e.member2, identity.RoleMember, "member2"}, {&e.admin, identity.RoleAdmin, "admin"}} {
		var err error
		if *u.dst, err = e.Acc.CreateUser(e.ctx, accounts.NewUser{Email: u.name + "@mine.example", OrganizationID: e.Mine.ID, Role: u.role}); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// do is Do with the status checked; it returns the body.
func (e *kaduEnv) do(user accounts.User, method, path string, body any, want int, header ...string) string {
	e.t.Helper()
	code, resp := e.Do(user, method, path, body, header...)
	if code != want {
		e.t.Fatalf("%s %s: %d, want %d: %s", method, path, code, want, resp)
	}
	return resp
}

// wantError checks an error answer's status and code.
func (e *kaduEnv) wantError(user accounts.User, method, path string, body any, status int, code string) string {
	e.t.Helper()
	got, resp := e.Do(user, method, path, body)
	if got != status || !strings.Contains(resp, `"code":"`+code+`"`) {
		e.t.Fatalf("%s %s: %d %s, want %d %s", method, path, got, resp, status, code)
	}
	return resp
}

// createTask creates a task as user and returns it.
func (e *kaduEnv) createTask(user accounts.User, body map[string]any) taskJSON {
	e.t.Helper()
	code, resp := e.Do(user, "POST", "/api/v1/tasks", body)
	return data[taskJSON](e.t, code, resp, 201)
}

// workflow is a one-step workflow task body.
func workflow(name string) map[string]any {
	return map[string]any{"name": name, "instructions": "list the month's e-mails",
		"steps": []map[string]any{{"id": "list", "tool": "inbox_emails_list", "arguments": map[string]any{"status": "processed"}}}}
}

// count is a COUNT(*) query's answer.
func (e *kaduEnv) count(query string, args ...any) int {
	e.t.Helper()
	var n int
	if err := e.DB.Get(e.ctx, &n, query, args...); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// runJobs is how many kadu.run_execution jobs were enqueued.
func (e *kaduEnv) runJobs() int {
	e.t.Helper()
	return e.count(`SELECT COUNT(*) FROM river_job WHERE kind = ?`, runtime.RunExecutionKind)
}

// execution reads an execution row.
func (e *kaduEnv) execution(id string) *records.Execution {
	e.t.Helper()
	x, err := records.GetExecution(e.ctx, e.DB, e.Mine.ID, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return x
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprint(err))
	}
	return string(b)
}

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}
