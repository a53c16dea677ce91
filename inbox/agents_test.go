package inbox

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestAgentsCRUD: defaults, validation with fields, conflicts, reads by
// id and external_id, another organization's 404, pagination to the end,
// update, and deletion refused while live inboxes use the agent.
func TestAgentsCRUD(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := newTestEnv(t, db, Config{SMTPAddr: "off"})
		code, body := e.Do(e.Owner, "POST", "/api/v1/agents", map[string]any{"label": "Boletos", "external_id": "boletos", "system_message": "Extract boletos.", "skills_repo": "https://github.com/kobana/skills"})
		if code != 201 {
			t.Fatalf("create: %d %s", code, body)
		}
		a := cfgData[agentJSON](t, body)
		if a.LLMModel != defaultLLMModel || a.SkillsRepo == nil || *a.SkillsRepo != "https://github.com/kobana/skills" || a.WorkspaceID != e.MineWS.ID || a.SystemMessage != "Extract boletos." {
			t.Fatalf("created %+v", a)
		}
		if code, _ := e.Do(e.Owner, "POST", "/api/v1/agents", map[string]any{"label": "Again", "external_id": "boletos"}); code != 409 {
			t.Fatalf("taken external_id: %d", code)
		}
		for name, c := range map[string]struct {
			body  map[string]any
			field string
		}{
			"no label":        {map[string]any{}, "label"},
			"blank label":     {map[string]any{"label": "  "}, "label"},
			"http repo":       {map[string]any{"label": "x", "skills_repo": "http://example.com/skills"}, "skills_repo"},
			"relative repo":   {map[string]any{"label": "x", "skills_repo": "/skills"}, "skills_repo"},
			"repo with creds": {map[string]any{"label": "x", "skills_repo": "https://me:secret@example.com/skills"}, "skills_repo"},
			"unknown field":   {map[string]any{"label": "x", "temperature": 1}, "temperature"},
		} {
			if code, body := e.Do(e.Owner, "POST", "/api/v1/agents", c.body); code != 422 || !cfgError(t, body).hasField(c.field) {
				t.Errorf("%s: %d %s", name, code, body)
			}
		}
		if code, body := e.Do(e.Owner, "GET", "/api/v1/agents/boletos", nil); code != 200 || cfgData[agentJSON](t, body).ID != a.ID {
			t.Fatalf("get by external_id: %d %s", code, body)
		}
		if code, _ := e.Do(e.Other, "GET", "/api/v1/agents/"+a.ID, nil); code != 404 {
			t.Fatalf("another organization's agent: %d", code)
		}
		if code, _ := e.Do(e.Other, "PATCH", "/api/v1/agents/"+a.ID, map[string]any{"label": "x"}); code != 404 {
			t.Fatalf("patching another organization's agent: %d", code)
		}

		code, body = e.Do(e.Owner, "PATCH", "/api/v1/agents/boletos", map[string]any{"llm_model": "gpt-x", "skills_repo": ""})
		p := cfgData[agentJSON](t, body)
		if code != 200 || p.LLMModel != "gpt-x" || p.SkillsRepo != nil || p.Label != "Boletos" || p.SystemMessage != "Extract boletos." {
			t.Fatalf("patch: %d %s", code, body)
		}
		if code, body := e.Do(e.Owner, "PATCH", "/api/v1/agents/boletos", map[string]any{"skills_repo": "ftp://x"}); code != 422 || !cfgError(t, body).hasField("skills_repo") {
			t.Fatalf("patch bad repo: %d %s", code, body)
		}
		if code, body := e.Do(e.Owner, "PATCH", "/api/v1/agents/boletos", map[string]any{"label": ""}); code != 422 || !cfgError(t, body).hasField("label") {
			t.Fatalf("patch blank label: %d %s", code, body)
		}

		// Pagination to the end, oldest first.
		ids := []string{a.ID}
		for i := range 4 {
			_, body := e.Do(e.Owner, "POST", "/api/v1/agents", map[string]any{"label": fmt.Sprintf("A%d", i)})
			ids = append(ids, cfgData[agentJSON](t, body).ID)
		}
		e.Do(e.Other, "POST", "/api/v1/agents", map[string]any{"label": "Theirs"})
		var got []string
		path := "/api/v1/agents?limit=2"
		for range 4 {
			_, body := e.Do(e.Owner, "GET", path, nil)
			var pg cfgPage[agentJSON]
			_ = json.Unmarshal([]byte(body), &pg)
			for _, a := range pg.Data {
				got = append(got, a.ID)
			}
			if pg.Meta.NextCursor == nil {
				break
			}
			path = "/api/v1/agents?limit=2&cursor=" + *pg.Meta.NextCursor
		}
		if strings.Join(got, ",") != strings.Join(ids, ",") {
			t.Fatalf("pages %v, want %v", got, ids)
		}

		// In use by two live inboxes (a deleted one does not count): 409.
		for _, ext := range []string{"i1", "i2", "i3"} {
			e.Do(e.Owner, "POST", "/api/v1/inboxes", map[string]any{"label": ext, "external_id": ext, "agent_id": "boletos"})
		}
		e.Do(e.Owner, "DELETE", "/api/v1/inboxes/i3", nil)
		code, body = e.Do(e.Owner, "DELETE", "/api/v1/agents/boletos", nil)
		if code != 409 || !strings.Contains(cfgError(t, body).Error.Message, "2 live inboxes") {
			t.Fatalf("delete in use: %d %s", code, body)
		}
		e.Do(e.Owner, "PATCH", "/api/v1/inboxes/i1", map[string]any{"agent_id": ""})
		e.Do(e.Owner, "DELETE", "/api/v1/inboxes/i2", nil)
		if code, _ := e.Do(e.Other, "DELETE", "/api/v1/agents/"+a.ID, nil); code != 404 {
			t.Fatalf("deleting another organization's agent: %d", code)
		}
		member := cfgUser(t, e, "member@mine.example", identity.RoleMember)
		if code, _ := e.Do(member, "DELETE", "/api/v1/agents/boletos", nil); code != 403 {
			t.Fatalf("a member deleting: %d", code)
		}
		if code, body := e.Do(e.Owner, "DELETE", "/api/v1/agents/boletos", nil); code != 204 {
			t.Fatalf("delete: %d %s", code, body)
		}
		if code, _ := e.Do(e.Owner, "GET", "/api/v1/agents/"+a.ID, nil); code != 404 {
			t.Fatalf("deleted agent: %d", code)
		}
		if code, body := e.Do(e.Owner, "POST", "/api/v1/inboxes", map[string]any{"label": "late", "agent_id": a.ID}); code != 422 || !cfgError(t, body).hasField("agent_id") {
			t.Fatalf("a deleted agent for a new inbox: %d %s", code, body)
		}
		if code, _ := e.Do(e.Owner, "POST", "/api/v1/agents", map[string]any{"label": "Reborn", "external_id": "boletos"}); code != 201 {
			t.Fatalf("a deleted agent's external_id is free: %d", code)
		}
	})
}

// TestAgentsTools: every agent tool through MCP, with an error each, and
// the confirmed delete naming the agent.
func TestAgentsTools(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := newTestEnv(t, db, Config{SMTPAddr: "off"})
		text, isErr := e.Call(e.Owner, "agents_create", map[string]any{"label": "Pix", "external_id": "pix"})
		if isErr || !strings.Contains(text, `"kobana-extractor-1"`) {
			t.Fatalf("create: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "agents_create", map[string]any{"label": "x", "skills_repo": "git@github.com:x/y"}); !isErr || !strings.Contains(text, "skills_repo") {
			t.Fatalf("create error: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "agents_list", map[string]any{"limit": 10}); isErr || !strings.Contains(text, `"pix"`) {
			t.Fatalf("list: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "agents_list", map[string]any{"cursor": "garbage"}); !isErr || !strings.Contains(text, "cursor") {
			t.Fatalf("list error: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "agents_get", map[string]any{"id": "pix"}); isErr || !strings.Contains(text, `"Pix"`) {
			t.Fatalf("get: %s", text)
		}
		if text, isErr := e.Call(e.Other, "agents_get", map[string]any{"id": "pix"}); !isErr || !strings.Contains(text, "not_found") {
			t.Fatalf("get error: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "agents_update", map[string]any{"id": "pix", "system_message": "Be brief."}); isErr || !strings.Contains(text, "Be brief.") {
			t.Fatalf("update: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "agents_update", map[string]any{"id": "nope", "label": "x"}); !isErr || !strings.Contains(text, "not_found") {
			t.Fatalf("update error: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "agents_delete", map[string]any{"id": "pix"}); !isErr || !strings.Contains(text, "confirmation_required") {
			t.Fatalf("delete without confirmation: %s", text)
		}
		e.Do(e.Owner, "POST", "/api/v1/inboxes", map[string]any{"label": "uses pix", "external_id": "u", "agent_id": "pix"})
		msg, done := cfgConfirmed(t, e, e.Owner, "agents_delete", map[string]any{"id": "pix"})
		if msg != "" || !done.Result.IsError || !strings.Contains(done.text(), "1 live inbox uses this agent") {
			t.Fatalf("delete in use asked %q: %s", msg, done.raw)
		}
		e.Do(e.Owner, "DELETE", "/api/v1/inboxes/u", nil)
		msg, done = cfgConfirmed(t, e, e.Owner, "agents_delete", map[string]any{"id": "pix"})
		if msg != "Delete agent 'Pix' (model kobana-extractor-1)? This cannot be undone." || done.text() != `{"status":204}` {
			t.Fatalf("confirmed delete %q: %s", msg, done.raw)
		}
	})
}
