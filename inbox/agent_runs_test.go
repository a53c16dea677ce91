package inbox

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// whAgent inserts a live agent and returns its id.
func whAgent(t *testing.T, db *store.DB, orgID, workspaceID, externalID string) string {
	t.Helper()
	id, now := store.NewID(), store.Now()
	if _, err := db.Exec(context.Background(), `INSERT INTO inbox_agents (id, organization_id, workspace_id, external_id, label, llm_model,
		system_message, skills_repo, created_at, updated_at) VALUES (?, ?, ?, ?, 'Agent', 'extractor-v1', 'Extract.', NULL, ?, ?)`,
		id, orgID, workspaceID, externalID, now, now); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestAgentRuns records runs as processing does (startAgentRun, then
// finishAgentRun) and reads them through the API and MCP: newest first,
// pagination to the end, every filter, one run with its usage and output,
// and 404 for another organization's.
func TestAgentRuns(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newTestEnv(t, db, Config{SMTPAddr: "off"})
		agent := whAgent(t, db, e.Mine.ID, e.MineWS.ID, "extractor")
		billing := whInbox(t, db, e.Mine.ID, e.MineWS.ID, "billing")
		sales := whInbox(t, db, e.Mine.ID, e.MineWS.ID, "sales")
		mail1 := whEmail(t, db, e.Mine.ID, e.MineWS.ID, billing)
		mail2 := whEmail(t, db, e.Mine.ID, e.MineWS.ID, sales)
		theirInbox := whInbox(t, db, e.Theirs.ID, e.TheirWS.ID, "theirs")
		theirMail := whEmail(t, db, e.Theirs.ID, e.TheirWS.ID, theirInbox)

		start := func(org, ws, inbox, mail string, agentID *string) agentRunRecord {
			r, err := startAgentRun(ctx, db, agentRunRecord{OrganizationID: org, WorkspaceID: ws, InboxID: inbox, EmailID: mail, AgentID: agentID,
				Provider: "extractor", LLMModel: "extractor-v1"})
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		ok := start(e.Mine.ID, e.MineWS.ID, billing, mail1, &agent)
		failed := start(e.Mine.ID, e.MineWS.ID, billing, mail1, &agent)
		running := start(e.Mine.ID, e.MineWS.ID, sales, mail2, nil)
		theirs := start(e.Theirs.ID, e.TheirWS.ID, theirInbox, theirMail, nil)
		usage := agentRunUsage{InputTokens: 1200, OutputTokens: 300, CacheRead: 50, CacheWrite: 7, CostPerToken: 0.00001, TotalCost: 0.015}
		if err := finishAgentRun(ctx, db, e.Mine.ID, ok.ID, agentRunSuccess, nil, usage, json.RawMessage(`{"boleto":{"amount":"123.45"}}`), ok.StartedAt.Add(1500*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		msg := "the model timed out"
		if err := finishAgentRun(ctx, db, e.Mine.ID, failed.ID, agentRunFailed, &msg, agentRunUsage{InputTokens: 10}, nil, failed.StartedAt.Add(time.Second)); err != nil {
			t.Fatal(err)
		}

		// One run, finished: usage, output as an object, duration.
		code, body := e.Do(e.Owner, "GET", "/api/v1/agent-runs/"+ok.ID, nil)
		got := whJSON[agentRunJSON](t, code, body, 200)
		if got.Status != "success" || got.InputTokens != 1200 || got.OutputTokens != 300 || got.CacheRead != 50 || got.CacheWrite != 7 ||
			got.TotalCost != 0.015 || got.CostPerToken != 0.00001 || got.DurationMS == nil || *got.DurationMS != 1500 || got.FinishedAt == nil ||
			got.AgentID == nil || *got.AgentID != agent || got.EmailID != mail1 || got.InboxID != billing || got.Provider != "extractor" ||
			!strings.Contains(body, `"output":{"boleto":{"amount":"123.45"}}`) {
			t.Fatalf("finished run: %s", body)
		}
		code, body = e.Do(e.Owner, "GET", "/api/v1/agent-runs/"+running.ID, nil)
		if got = whJSON[agentRunJSON](t, code, body, 200); got.Status != "running" || got.FinishedAt != nil || got.DurationMS != nil ||
			!strings.Contains(body, `"output":{}`) || !strings.Contains(body, `"agent_id":null`) {
			t.Fatalf("running run: %s", body)
		}
		code, body = e.Do(e.Owner, "GET", "/api/v1/agent-runs/"+failed.ID, nil)
		if got = whJSON[agentRunJSON](t, code, body, 200); got.Status != "failed" || got.Error == nil || *got.Error != msg {
			t.Fatalf("failed run: %s", body)
		}

		// Pagination to the end, newest first.
		p := whListGet[agentRunJSON](t, e, e.Owner, "/api/v1/agent-runs?limit=2")
		if len(p.Data) != 2 || p.Data[0].ID != running.ID || p.Data[1].ID != failed.ID || p.Meta.NextCursor == nil {
			t.Fatalf("page 1: %+v", p)
		}
		p = whListGet[agentRunJSON](t, e, e.Owner, "/api/v1/agent-runs?limit=2&cursor="+*p.Meta.NextCursor)
		if len(p.Data) != 1 || p.Data[0].ID != ok.ID || p.Meta.NextCursor != nil {
			t.Fatalf("page 2: %+v", p)
		}

		for name, c := range map[string]struct {
			query string
			want  []string
		}{
			"status":        {"status=failed", []string{failed.ID}},
			"agent by ext":  {"agent_id=extractor", []string{failed.ID, ok.ID}},
			"email":         {"email_id=" + mail2, []string{running.ID}},
			"inbox by ext":  {"inbox_id=billing", []string{failed.ID, ok.ID}},
			"inbox by id":   {"inbox_id=" + billing + "&status=success", []string{ok.ID}},
			"none matching": {"inbox_id=sales&status=success", nil},
		} {
			p := whListGet[agentRunJSON](t, e, e.Owner, "/api/v1/agent-runs?"+c.query)
			var ids []string
			for _, r := range p.Data {
				ids = append(ids, r.ID)
			}
			if strings.Join(ids, ",") != strings.Join(c.want, ",") {
				t.Errorf("%s: %v, want %v", name, ids, c.want)
			}
		}
		for name, c := range map[string]struct {
			query string
			code  int
			field string
		}{
			"bad status":                    {"status=done", 422, "status"},
			"unknown argument":              {"model=x", 422, "model"},
			"bad cursor":                    {"cursor=zzz", 422, "cursor"},
			"unknown agent":                 {"agent_id=nobody", 404, ""},
			"another organization's inbox":  {"inbox_id=" + theirInbox, 404, ""},
			"another organization's e-mail": {"email_id=" + theirMail, 404, ""},
		} {
			code, body := e.Do(e.Owner, "GET", "/api/v1/agent-runs?"+c.query, nil)
			if code != c.code || (c.field != "" && !whFieldError(body, c.field)) {
				t.Errorf("%s: %d %s", name, code, body)
			}
		}
		for _, id := range []string{theirs.ID, store.NewID(), "not-a-run"} {
			if code, body := e.Do(e.Owner, "GET", "/api/v1/agent-runs/"+id, nil); code != 404 || !strings.Contains(body, "agent run not found") {
				t.Errorf("run %s: %d %s", id, code, body)
			}
		}
		if p := whListGet[agentRunJSON](t, e, e.Other, "/api/v1/agent-runs"); len(p.Data) != 1 || p.Data[0].ID != theirs.ID {
			t.Errorf("their listing: %+v", p.Data)
		}

		// Through MCP.
		if text, isErr := e.Call(e.Owner, "agent_runs_list", map[string]any{"status": "success"}); isErr || !strings.Contains(text, ok.ID) || strings.Contains(text, failed.ID) {
			t.Fatalf("agent_runs_list: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "agent_runs_list", map[string]any{"status": "done"}); !isErr || !strings.Contains(text, `"status"`) {
			t.Fatalf("agent_runs_list, bad status: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "agent_runs_get", map[string]any{"id": ok.ID}); isErr || !strings.Contains(text, `"total_cost":0.015`) {
			t.Fatalf("agent_runs_get: %s", text)
		}
		if text, isErr := e.Call(e.Other, "agent_runs_get", map[string]any{"id": ok.ID}); !isErr || !strings.Contains(text, `"not_found"`) {
			t.Fatalf("agent_runs_get, another organization: %s", text)
		}
	})
}
