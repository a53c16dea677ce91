package inbox

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestWorkspacesCreateUpdate: creating with settings (and the defaults),
// the workspace JSON with usage, validation with fields, duplicates,
// admins only, updates of each field (-1 removing a limit), and another
// organization's workspace not found.
func TestWorkspacesCreateUpdate(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := newTestEnv(t, db, Config{SMTPAddr: "off"})
		code, body := e.Do(e.Owner, "POST", "/api/v1/workspaces", map[string]any{"label": "Filial São Paulo", "external_id": "sp", "source": "kobana_billing",
			"monthly_cost_limit": 150.555, "monthly_emails_limit": 1000, "custom_metadata": map[string]any{"cnpj": "00.000.000/0001-00", "tier": 2}})
		if code != 201 {
			t.Fatalf("create: %d %s", code, body)
		}
		w := cfgData[workspaceJSON](t, body)
		if w.EmailPrefix != "filial-sao-paulo" || w.ExternalID != "sp" || w.Source != "kobana_billing" || *w.MonthlyCostLimit != 150.56 || *w.MonthlyEmailsLimit != 1000 ||
			w.MonthlyCostUsed != 0 || w.MonthlyEmailsUsed != 0 || w.CustomMetadata["cnpj"] != "00.000.000/0001-00" || w.CreatedAt.IsZero() || w.UpdatedAt.IsZero() {
			t.Fatalf("created %s", body)
		}
		code, body = e.Do(e.Owner, "POST", "/api/v1/workspaces", map[string]any{"label": "Plain"})
		plain := cfgData[workspaceJSON](t, body)
		if code != 201 || plain.Source != "kobana_autonomous_inbox" || plain.MonthlyCostLimit != nil || plain.ExternalID != plain.ID || !strings.Contains(body, `"custom_metadata":{}`) {
			t.Fatalf("defaults: %d %s", code, body)
		}
		if code, _ := e.Do(e.Owner, "POST", "/api/v1/workspaces", map[string]any{"label": "Again", "external_id": "sp"}); code != 409 {
			t.Fatalf("taken external_id: %d", code)
		}
		if code, _ := e.Do(e.Other, "POST", "/api/v1/workspaces", map[string]any{"label": "Theirs", "external_id": "sp"}); code != 201 {
			t.Fatalf("another organization's external_id: %d", code)
		}
		for name, c := range map[string]struct {
			body  map[string]any
			field string
		}{
			"no label":       {map[string]any{}, "label"},
			"blank label":    {map[string]any{"label": "  "}, "label"},
			"bad prefix":     {map[string]any{"label": "x", "email_prefix": "Not Kebab"}, "email_prefix"},
			"long prefix":    {map[string]any{"label": "x", "email_prefix": strings.Repeat("a", 61)}, "email_prefix"},
			"bad source":     {map[string]any{"label": "x", "source": "kobana_space"}, "source"},
			"negative limit": {map[string]any{"label": "x", "monthly_cost_limit": -1}, "monthly_cost_limit"},
			"metadata array": {map[string]any{"label": "x", "custom_metadata": []int{1}}, "custom_metadata"},
			"huge metadata":  {map[string]any{"label": "x", "custom_metadata": map[string]any{"x": strings.Repeat("a", 17<<10)}}, "custom_metadata"},
		} {
			if code, body := e.Do(e.Owner, "POST", "/api/v1/workspaces", c.body); code != 422 || !cfgError(t, body).hasField(c.field) {
				t.Errorf("%s: %d %s", name, code, body)
			}
		}
		member := cfgUser(t, e, "member@mine.example", identity.RoleMember)
		if code, _ := e.Do(member, "POST", "/api/v1/workspaces", map[string]any{"label": "No"}); code != 403 {
			t.Fatalf("a member creating: %d", code)
		}
		if code, _ := e.Do(member, "PATCH", "/api/v1/workspaces/sp", map[string]any{"label": "No"}); code != 403 {
			t.Fatalf("a member updating: %d", code)
		}
		admin := cfgUser(t, e, "admin@mine.example", identity.RoleAdmin)

		code, body = e.Do(admin, "PATCH", "/api/v1/workspaces/sp", map[string]any{"label": "SP", "monthly_cost_limit": -1, "monthly_emails_limit": 5, "custom_metadata": map[string]any{}, "email_prefix": "sp-branch"})
		u := cfgData[workspaceJSON](t, body)
		if code != 200 || u.Label != "SP" || u.MonthlyCostLimit != nil || *u.MonthlyEmailsLimit != 5 || len(u.CustomMetadata) != 0 || u.EmailPrefix != "sp-branch" || u.Source != "kobana_billing" || !u.UpdatedAt.After(w.UpdatedAt) {
			t.Fatalf("update: %d %s", code, body)
		}
		code, body = e.Do(e.Owner, "PATCH", "/api/v1/workspaces/"+w.ID, map[string]any{"external_id": "sao-paulo", "source": "kobana_team"})
		if code != 200 || cfgData[workspaceJSON](t, body).ExternalID != "sao-paulo" {
			t.Fatalf("update external_id: %d %s", code, body)
		}
		if code, body := e.Do(e.Owner, "GET", "/api/v1/workspaces/sao-paulo", nil); code != 200 || cfgData[workspaceJSON](t, body).Source != "kobana_team" {
			t.Fatalf("get after update: %d %s", code, body)
		}
		if code, _ := e.Do(e.Owner, "PATCH", "/api/v1/workspaces/sao-paulo", map[string]any{"external_id": plain.ID}); code != 409 {
			t.Fatalf("update to a taken external_id: %d", code)
		}
		for name, c := range map[string]struct {
			body  map[string]any
			field string
		}{
			"blank label": {map[string]any{"label": ""}, "label"},
			"bad limit":   {map[string]any{"monthly_emails_limit": -5}, "monthly_emails_limit"},
			"bad prefix":  {map[string]any{"email_prefix": "a--b"}, "email_prefix"},
			"unknown":     {map[string]any{"monthly_limit": 3}, "monthly_limit"},
		} {
			if code, body := e.Do(e.Owner, "PATCH", "/api/v1/workspaces/sao-paulo", c.body); code != 422 || !cfgError(t, body).hasField(c.field) {
				t.Errorf("%s: %d %s", name, code, body)
			}
		}
		if code, _ := e.Do(e.Other, "PATCH", "/api/v1/workspaces/"+w.ID, map[string]any{"label": "x"}); code != 404 {
			t.Fatalf("updating another organization's workspace: %d", code)
		}
		// An inbox made in the workspace uses its new prefix; the listing
		// shows every workspace with its settings.
		code, body = e.Do(e.Owner, "POST", "/api/v1/inboxes", map[string]any{"label": "Notas"}, "X-Workspace-Id", "sao-paulo")
		if code != 201 || !strings.HasPrefix(cfgData[inboxJSON](t, body).Email, "sp-branch-notas-") {
			t.Fatalf("inbox in the new workspace: %d %s", code, body)
		}
		_, body = e.Do(e.Owner, "GET", "/api/v1/workspaces?limit=200", nil)
		var p cfgPage[workspaceJSON]
		_ = json.Unmarshal([]byte(body), &p)
		if len(p.Data) != 3 || p.Data[0].ID != e.MineWS.ID || p.Data[0].Source != defaultSource || p.Data[1].Source != "kobana_team" {
			t.Fatalf("list: %s", body)
		}
	})
}

// TestWorkspacesWriteTools: workspaces_create and workspaces_update
// through MCP, with an error each.
func TestWorkspacesWriteTools(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := newTestEnv(t, db, Config{SMTPAddr: "off"})
		text, isErr := e.Call(e.Owner, "workspaces_create", map[string]any{"label": "Tools", "external_id": "tools", "monthly_emails_limit": 10})
		if isErr || !strings.Contains(text, `"monthly_emails_limit":10`) || !strings.Contains(text, `"monthly_emails_used":0`) {
			t.Fatalf("create: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "workspaces_create", map[string]any{"label": "Tools", "external_id": "tools"}); !isErr || !strings.Contains(text, "conflict") {
			t.Fatalf("create error: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "workspaces_update", map[string]any{"id": "tools", "monthly_emails_limit": -1}); isErr || !strings.Contains(text, `"monthly_emails_limit":null`) {
			t.Fatalf("update: %s", text)
		}
		if text, isErr := e.Call(e.Other, "workspaces_update", map[string]any{"id": "tools", "label": "x"}); !isErr || !strings.Contains(text, "not_found") {
			t.Fatalf("update error: %s", text)
		}
	})
}
