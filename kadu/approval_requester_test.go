package kadu

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit/producttest"
)

// TestStepApprovalNamesTheClient: the approval a step of an execution
// asks for names, as who asks, the OAuth client whose call queued the
// execution — by its registered name, escaped, on the approval page (not
// "Kadu — uma execução de tarefa") and in kadu_approvals_get's
// requested_by —, and still links the execution's page.
func TestStepApprovalNamesTheClient(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startPages(t, db)
		task := e.task(map[string]any{"name": "Limpar", "allowed_tools": []string{"alpha_delete"},
			"steps": []map[string]any{{"id": "del", "tool": "alpha_delete", "arguments": map[string]any{"id": "b2"}}}})
		id := e.runAsClient(task.ID, nil)
		x := e.wait(id, records.ExecWaitingApproval)
		aid := deref(x.ApprovalID)
		a, err := e.svc.approvals.Get(e.ctx, aid)
		if err != nil || a.ClientID != e.clientID {
			t.Fatalf("the approval's client %q (%v), want %q", a.ClientID, err, e.clientID)
		}

		if err := e.Acc.SetPassword(e.ctx, e.member.ID, producttest.Password); err != nil {
			t.Fatal(err)
		}
		p := e.Browser().Open(e.URL+"/approvals/"+aid, e.member.Email)
		for _, want := range []string{`<span id="client">Planilha &lt;b&gt;Financeira&lt;/b&gt;</span>`,
			`<a id="requester-page" href="` + e.URL + ExecutionPagePrefix + id + `">`} {
			if p.Status != http.StatusOK || !strings.Contains(p.Body, want) {
				t.Errorf("the approval page lacks %q:\n%s", want, p.Body)
			}
		}
		if strings.Contains(p.Body, "uma execução de tarefa") {
			t.Errorf("the approval page still names Kadu as who asks:\n%s", p.Body)
		}

		resp := e.do(e.member, "GET", "/api/v1/approvals/"+aid, nil, 200)
		var out struct {
			Data struct {
				RequestedBy *struct {
					ClientID   string `json:"client_id"`
					ClientName string `json:"client_name"`
				} `json:"requested_by"`
				Execution *struct {
					ID string `json:"id"`
				} `json:"execution"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(resp), &out); err != nil || out.Data.RequestedBy == nil ||
			out.Data.RequestedBy.ClientID != e.clientID || out.Data.RequestedBy.ClientName != "Planilha <b>Financeira</b>" ||
			out.Data.Execution == nil || out.Data.Execution.ID != id {
			t.Fatalf("kadu_approvals_get: %s", resp)
		}
	})
}
