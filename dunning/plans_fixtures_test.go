package dunning

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/dunning/collection"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/store"
)

func planSeedOptOut(t *testing.T, db *store.DB, orgID, debtorID, channel, reason string) {
	t.Helper()
	if _, err := db.Exec(context.Background(), `INSERT INTO dunning_opt_outs (debtor_id, organization_id, channel, reason, source, created_at)
		VALUES (?, ?, ?, ?, 'debtor', ?)`, debtorID, orgID, channel, reason, time.Date(2026, 1, 20, 15, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
}

// planSeedSettings stores an organization's settings row with extra
// closed days and quiet hours.
func planSeedSettings(t *testing.T, db *store.DB, orgID, quietStart, quietEnd string, closed []string) {
	t.Helper()
	if closed == nil {
		closed = []string{}
	}
	days, _ := json.Marshal(closed)
	if _, err := db.Exec(context.Background(), `INSERT INTO dunning_settings (organization_id, timezone, quiet_start, quiet_end, grace_days,
		channels, company_fine_cap, closed_days, updated_at) VALUES (?, 'America/Sao_Paulo', ?, ?, 0, ?, 1000000, ?, ?)`,
		orgID, quietStart, quietEnd, `{"email":{"enabled":true,"provider":"outbox"},"sms":{"enabled":true,"provider":"outbox"},"whatsapp":{"enabled":true,"provider":"outbox"}}`,
		string(days), store.Now()); err != nil {
		t.Fatal(err)
	}
}

// planBody and stepBody are what the tests create.
func (pe *dunEnv) createPlan(name string) collection.PlanDetailJSON {
	pe.t.Helper()
	return planData[collection.PlanDetailJSON](pe.t, pe.must(pe.Owner, 201, "POST", "/v1/collection-plans", map[string]any{"name": name}))
}

func (pe *dunEnv) addStep(planID string, body map[string]any) collection.StepJSON {
	pe.t.Helper()
	return planData[collection.StepJSON](pe.t, pe.must(pe.Owner, 201, "POST", "/v1/collection-plans/"+planID+"/steps", body))
}

func (pe *dunEnv) activate(planID string) {
	pe.t.Helper()
	pe.must(pe.Owner, 200, "PATCH", "/v1/collection-plans/"+planID, map[string]any{"status": "active"})
}

// planData is a body's data member.
func planData[T any](t testing.TB, body string) T {
	t.Helper()
	var out struct{ Data T }
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return out.Data
}

// planErrorBody is an error answer: its code, message and details.
type planErrorBody struct {
	Code    string
	Message string
	Details []struct{ Field, Message string }
}

func planErrorOf(t testing.TB, body string) planErrorBody {
	t.Helper()
	var out struct{ Error planErrorBody }
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return out.Error
}

// wantError checks an error answer's status, code and that its message
// contains each of texts.
func (pe *dunEnv) wantError(user accounts.User, status int, code, method, path string, body any, texts ...string) planErrorBody {
	pe.t.Helper()
	got, out := pe.Do(user, method, path, body)
	e := planErrorOf(pe.t, out)
	if got != status || e.Code != code {
		pe.t.Fatalf("%s %s: %d %s, want %d %s: %s", method, path, got, e.Code, status, code, out)
	}
	for _, text := range texts {
		if !strings.Contains(e.Message, text) {
			pe.t.Fatalf("%s %s: message %q lacks %q", method, path, e.Message, text)
		}
	}
	return e
}

// events are the slugs of the Dunning events stored for org, oldest
// first.
func planEvents(t *testing.T, db *store.DB, orgID string) []string {
	t.Helper()
	var slugs []string
	if err := db.Select(context.Background(), &slugs, `SELECT slug FROM system_events WHERE organization_id = ? AND product = 'dunning'
		ORDER BY created_at, id`, orgID); err != nil {
		t.Fatal(err)
	}
	return slugs
}

func planCount(t *testing.T, db *store.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.Get(context.Background(), &n, query, args...); err != nil {
		t.Fatal(err)
	}
	return n
}

// planConfirmedCall runs a destructive tool as user the way a 2026 client
// with form elicitation does: the call asks (its message is returned),
// the retry accepts; it returns the message, the retry's first text and
// whether the retry is an error, and the state (to replay it).
func (pe *dunEnv) planConfirmedCall(user accounts.User, tool string, args map[string]any) (message, text string, isErr bool, state string) {
	pe.t.Helper()
	meta := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "plans-test", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}},
	}
	var ask struct {
		Result struct {
			ResultType    string                    `json:"resultType"`
			RequestState  string                    `json:"requestState"`
			InputRequests map[string]map[string]any `json:"inputRequests"`
			Content       []struct{ Text string }
			IsError       bool
		}
	}
	raw := pe.RPC(user, "tools/call", map[string]any{"name": tool, "arguments": args, "_meta": meta})
	if err := json.Unmarshal([]byte(raw), &ask); err != nil || ask.Result.ResultType != "input_required" {
		pe.t.Fatalf("%s asked nothing: %s", tool, raw)
	}
	params, _ := ask.Result.InputRequests["confirm"]["params"].(map[string]any)
	message, _ = params["message"].(string)
	state = ask.Result.RequestState
	text, isErr = pe.planRetry(user, tool, args, state)
	return message, text, isErr, state
}

// planRetry answers a confirmation with state: accepted.
func (pe *dunEnv) planRetry(user accounts.User, tool string, args map[string]any, state string) (string, bool) {
	pe.t.Helper()
	meta := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "plans-test", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}},
	}
	raw := pe.RPC(user, "tools/call", map[string]any{"name": tool, "arguments": args, "_meta": meta, "requestState": state,
		"inputResponses": map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}})
	var done struct {
		Result struct {
			Content []struct{ Text string }
			IsError bool `json:"isError"`
		}
		Error *struct{ Message string }
	}
	if err := json.Unmarshal([]byte(raw), &done); err != nil {
		pe.t.Fatalf("%s: %s", tool, raw)
	}
	if done.Error != nil {
		return done.Error.Message, true
	}
	if len(done.Result.Content) == 0 {
		pe.t.Fatalf("%s: no content: %s", tool, raw)
	}
	return done.Result.Content[0].Text, done.Result.IsError
}
