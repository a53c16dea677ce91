package kadu

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit/approval"
	"github.com/kobana/kobana-mcp/productkit/producttest"
)

var (
	progressRE = regexp.MustCompile(`id="progress" data-state="([a-z_]+)"`)
	reloadRE   = regexp.MustCompile(`<meta http-equiv="refresh"`)
)

// TestApprovedRunSaysTheExecutionIsQueued: kadu_tasks_run approved on the
// page queues an execution; the page then says the call ran and the
// execution is queued (not "done"), links the execution page and its API
// route, names its resource, and reloads itself; as the execution moves
// (running, waiting for input, succeeded) the page follows it, and stops
// reloading once it has ended. The runtime holds executions here, so each state is the
// test's to set.
func TestApprovedRunSaysTheExecutionIsQueued(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		cfg := Config{}
		cfg.Runtime.Hold = true
		e := producttest.Start(t, db, specWith(cfg), producttest.Options{SignIn: true})
		ctx := context.Background()
		tk := &records.Task{ID: store.NewID(), OrganizationID: e.Mine.ID, OwnerUserID: e.Owner.ID, Name: "Boletos", Mode: records.ModeWorkflow,
			Steps: []records.WorkflowStep{{Tool: "inbox_emails_list"}}, AllowedTools: []string{"inbox_emails_list"}, Status: records.TaskActive,
			CreatedAt: store.Now(), UpdatedAt: store.Now()}
		if err := records.InsertTask(ctx, db, tk); err != nil {
			t.Fatal(err)
		}
		text, isErr := e.Call2025(e.Owner, "kadu_tasks_run", map[string]any{"task_id": tk.ID})
		var l approval.LinkResult
		if isErr || json.Unmarshal([]byte(text), &l) != nil || l.ApprovalURL == "" {
			t.Fatalf("kadu_tasks_run from a 2025 client: %v %s", isErr, text)
		}
		b := e.Browser()
		page := b.Open(l.ApprovalURL, e.Owner.Email)
		if page.Status != http.StatusOK || !strings.Contains(page.Body, "Executar uma tarefa") || !strings.Contains(page.Body, "em 10 minutos") {
			t.Fatalf("approval page: %d\n%s", page.Status, page.Body)
		}
		if r := b.Decide(page, l.ApprovalURL, "continuar"); r.Status != http.StatusSeeOther {
			t.Fatalf("Continuar: %d %s", r.Status, r.Body)
		}
		a := e.WaitApproval(l.ApprovalID, approval.StatusSucceeded)
		var run struct{ Data struct{ ID, Status string } }
		if err := json.Unmarshal([]byte(a.ResultText()), &run); err != nil || run.Data.ID == "" || run.Data.Status != records.ExecQueued {
			t.Fatalf("the call's answer: %v %s", err, a.ResultText())
		}
		exec := run.Data.ID

		queued := b.Get(l.ApprovalURL)
		for _, want := range []string{`data-status="succeeded"`, "Ação iniciada", "Na fila", "a execução " + exec,
			`href="` + e.URL + APIBase + "/executions/" + exec + `"`, "kobana://kadu/executions/" + exec,
			`<a id="follow-page" href="` + e.URL + ExecutionPagePrefix + exec + `">Acompanhe passo a passo nesta página</a>`} {
			if !strings.Contains(queued.Body, want) {
				t.Errorf("queued: the page lacks %q", want)
			}
		}
		if strings.Contains(queued.Body, "Ação executada") || strings.Contains(queued.Body, "com sucesso") {
			t.Errorf("queued: the page says the task is done:\n%s", queued.Body)
		}
		if m := progressRE.FindStringSubmatch(queued.Body); m == nil || m[1] != "queued" || !reloadRE.MatchString(queued.Body) {
			t.Errorf("queued: progress %v, reloading %v", m, reloadRE.MatchString(queued.Body))
		}

		for _, c := range []struct{ status, state, says string }{
			{records.ExecRunning, "running", "Em execução"},
			{records.ExecWaitingInput, "waiting_input", "Aguardando uma resposta sua"},
			{records.ExecWaitingBudget, "waiting_budget", "Pausada no teto de custo"},
			{records.ExecSucceeded, "succeeded", "Ação concluída"},
			{records.ExecCostExceeded, "failed", "A execução atingiu o seu teto de custo."},
		} {
			if _, err := db.Exec(ctx, `UPDATE kadu_executions SET status = ? WHERE id = ?`, c.status, exec); err != nil {
				t.Fatal(err)
			}
			p := b.Get(l.ApprovalURL)
			m := progressRE.FindStringSubmatch(p.Body)
			final := c.state == "succeeded" || c.state == "failed"
			if m == nil || m[1] != c.state || !strings.Contains(p.Body, c.says) || reloadRE.MatchString(p.Body) == final {
				t.Errorf("execution %s: progress %v, reloading %v, want %s saying %q:\n%s", c.status, m, reloadRE.MatchString(p.Body), c.state, c.says, p.Body)
			}
		}
	})
}
