package inbox

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// --- helpers shared by the configuration tests (inboxes, agents,
// workspaces, idempotency) ---

// cfgData decodes {"data": …} into T, failing the test otherwise.
func cfgData[T any](t *testing.T, body string) T {
	t.Helper()
	var out struct{ Data T }
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("not {data}: %v: %s", err, body)
	}
	return out.Data
}

// cfgPage decodes a listing.
type cfgPage[T any] struct {
	Data []T
	Meta struct {
		NextCursor *string `json:"next_cursor"`
	}
}

// cfgMCP sends one tools/call at 2026-07-28 to base+"/mcp" with the given
// client capabilities, and the requestState and inputResponses of a retry.
func cfgMCP(t *testing.T, base, token, tool string, args map[string]any, caps, state, responses string, header ...string) mcpReply {
	t.Helper()
	params := map[string]any{"name": tool, "arguments": args, "_meta": map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "inbox-test", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": json.RawMessage(caps),
	}}
	if state != "" {
		params["requestState"] = state
		params["inputResponses"] = json.RawMessage(responses)
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
	req, _ := http.NewRequest("POST", base+"/mcp", strings.NewReader(string(body)))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	out := mcpReply{status: resp.StatusCode, raw: string(b)}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("not JSON (%d): %s", resp.StatusCode, b)
	}
	return out
}

// cfgConfirmed runs a destructive tool as user the way a 2026 client with
// form elicitation does: the call asks (its message is returned), the
// retry accepts.
func cfgConfirmed(t *testing.T, e *testEnv, user accounts.User, tool string, args map[string]any) (message string, done mcpReply) {
	t.Helper()
	tok := e.Token(user, "mcp")
	ask := cfgMCP(t, e.URL, tok, tool, args, `{"elicitation":{}}`, "", "")
	if ask.Result.ResultType != "input_required" || ask.Result.RequestState == "" {
		return "", ask
	}
	form, _ := ask.Result.InputRequests["confirm"].(map[string]any)["params"].(map[string]any)
	message, _ = form["message"].(string)
	done = cfgMCP(t, e.URL, tok, tool, args, `{"elicitation":{}}`, ask.Result.RequestState, `{"confirm":{"action":"accept","content":{"confirm":true}}}`)
	return message, done
}

// cfgUser adds a person with role to Mine.
func cfgUser(t *testing.T, e *testEnv, email string, role identity.Role) accounts.User {
	t.Helper()
	u, err := e.Acc.CreateUser(context.Background(), accounts.NewUser{Email: email, Password: "a long enough password", OrganizationID: e.Mine.ID, Role: role})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// cfgErr decodes an error body.
type cfgErrBody struct {
	Error struct {
		Code    string
		Message string
		Details []struct{ Field, Message string }
	}
}

func cfgError(t *testing.T, body string) cfgErrBody {
	t.Helper()
	var out cfgErrBody
	if err := json.Unmarshal([]byte(body), &out); err != nil || out.Error.Code == "" {
		t.Fatalf("not an error body: %s", body)
	}
	return out
}

// hasField reports whether an error names field in its details.
func (b cfgErrBody) hasField(field string) bool {
	for _, d := range b.Error.Details {
		if d.Field == field {
			return true
		}
	}
	return false
}

// --- inboxes ---

// TestInboxesCreateGetDelete: creating with a generated and a given
// address, the defaults, the JSON shape, normalised allow-lists, every
// validation error with its field, conflicts, another organization's ids,
// and soft deletion that frees the address.
func TestInboxesCreateGetDelete(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := newTestEnv(t, db, Config{SMTPAddr: "off"})
		code, body := e.Do(e.Owner, "POST", "/api/v1/inboxes", map[string]any{"label": "Contas a Pagar — Março"})
		if code != 201 {
			t.Fatalf("create: %d %s", code, body)
		}
		gen := cfgData[map[string]any](t, body)
		addr := regexp.MustCompile(`^` + regexp.QuoteMeta(e.MineWS.EmailPrefix) + `-contas-a-pagar-marco-[a-z0-9]{6}@inbox\.localhost$`)
		if !addr.MatchString(gen["email"].(string)) {
			t.Fatalf("generated address %v", gen["email"])
		}
		for k, want := range map[string]any{"status": "active", "attachments_allow": true, "agent_id": nil, "workspace_id": e.MineWS.ID, "external_id": gen["id"],
			"attachments_max_file_number": nil, "attachments_max_file_size": nil, "attachments_max_total_size": nil} {
			if gen[k] != want {
				t.Errorf("%s = %v, want %v", k, gen[k], want)
			}
		}
		for _, k := range []string{"allowed_recipients", "filters"} {
			if l, ok := gen[k].([]any); !ok || len(l) != 0 {
				t.Errorf("%s = %v, want []", k, gen[k])
			}
		}
		for _, k := range []string{"created_at", "updated_at"} {
			if s, _ := gen[k].(string); !strings.HasSuffix(s, "Z") {
				t.Errorf("%s = %v, want RFC 3339 UTC", k, gen[k])
			}
		}

		code, body = e.Do(e.Owner, "POST", "/api/v1/inboxes", map[string]any{
			"label": "AP", "external_id": "ap", "email": " AP@Inbox.Localhost ", "status": "inactive",
			"allowed_recipients": []string{"Boss@Supplier.COM", "@Bank.example", "boss@supplier.com"},
			"filters":            []map[string]any{{"field": "subject", "operator": "matches", "value": "^(re|fwd):", "action": "reject"}},
			"attachments_allow":  false, "attachments_max_file_number": 3, "attachments_max_file_size": 1000, "attachments_max_total_size": 5000,
		})
		if code != 201 {
			t.Fatalf("create with everything: %d %s", code, body)
		}
		ap := cfgData[inboxJSON](t, body)
		if ap.Email != "ap@inbox.localhost" || ap.Status != "inactive" || ap.AttachmentsAllow || *ap.AttachmentsMaxFileNumber != 3 || *ap.AttachmentsMaxTotalSize != 5000 ||
			strings.Join(ap.AllowedRecipients, ",") != "boss@supplier.com,@bank.example" || len(ap.Filters) != 1 || ap.Filters[0].Operator != "matches" {
			t.Fatalf("stored %+v", ap)
		}
		// The record the intake reads has the same, decoded.
		rec, err := inboxByAddress(context.Background(), db, "AP@INBOX.localhost")
		if err != nil || rec.ID != ap.ID || len(rec.AllowedRecipients) != 2 || len(rec.Filters) != 1 || rec.Filters[0].Value != "^(re|fwd):" {
			t.Fatalf("inboxByAddress: %+v %v", rec, err)
		}
		if r, err := getInbox(context.Background(), db, e.Mine.ID, e.MineWS.ID, "ap"); err != nil || r.ID != ap.ID || r.AllowedRecipients == nil {
			t.Fatalf("getInbox by external id: %+v %v", r, err)
		}
		if _, err := getInbox(context.Background(), db, e.Theirs.ID, e.TheirWS.ID, ap.ID); err != store.ErrNotFound {
			t.Fatalf("getInbox across organizations: %v", err)
		}

		// Conflicts: the address is unique across organizations; the
		// external_id within the workspace.
		if code, body := e.Do(e.Other, "POST", "/api/v1/inboxes", map[string]any{"label": "Mine?", "email": "ap@inbox.localhost"}); code != 409 || !cfgError(t, body).hasField("email") {
			t.Fatalf("taken address: %d %s", code, body)
		}
		if code, body := e.Do(e.Owner, "POST", "/api/v1/inboxes", map[string]any{"label": "Again", "external_id": "ap"}); code != 409 || cfgError(t, body).Error.Code != "conflict" {
			t.Fatalf("taken external_id: %d %s", code, body)
		}
		if code, body := e.Do(e.Other, "POST", "/api/v1/inboxes", map[string]any{"label": "Theirs", "external_id": "ap"}); code != 201 {
			t.Fatalf("another organization's external_id: %d %s", code, body)
		}

		// Validation, each with its field.
		for name, c := range map[string]struct {
			body   map[string]any
			status int
			code   string
			field  string
		}{
			"no label":        {map[string]any{}, 422, "validation_failed", "label"},
			"blank label":     {map[string]any{"label": "   "}, 422, "validation_failed", "label"},
			"other domain":    {map[string]any{"label": "x", "email": "x@gmail.com"}, 422, "invalid_domain", "email"},
			"not an address":  {map[string]any{"label": "x", "email": "not an address"}, 422, "validation_failed", "email"},
			"bad recipient":   {map[string]any{"label": "x", "allowed_recipients": []string{"ok@x.com", "nope"}}, 422, "validation_failed", "allowed_recipients.1"},
			"bad @domain":     {map[string]any{"label": "x", "allowed_recipients": []string{"@"}}, 422, "validation_failed", "allowed_recipients.0"},
			"bad operator":    {map[string]any{"label": "x", "filters": []map[string]any{{"field": "from", "operator": "like", "value": "a", "action": "reject"}}}, 422, "validation_failed", "filters.0.operator"},
			"bad regexp":      {map[string]any{"label": "x", "filters": []map[string]any{{"field": "from", "operator": "matches", "value": "(", "action": "reject"}}}, 422, "validation_failed", "filters.0.value"},
			"bad filter side": {map[string]any{"label": "x", "filters": []map[string]any{{"field": "cc", "operator": "equals", "value": "a", "action": "drop"}}}, 422, "validation_failed", "filters.0.action"},
			"bad status":      {map[string]any{"label": "x", "status": "paused"}, 422, "validation_failed", "status"},
			"negative limit":  {map[string]any{"label": "x", "attachments_max_file_size": -1}, 422, "validation_failed", "attachments_max_file_size"},
			"unknown agent":   {map[string]any{"label": "x", "agent_id": "ghost"}, 422, "validation_failed", "agent_id"},
			"unknown field":   {map[string]any{"label": "x", "colour": "red"}, 422, "validation_failed", "colour"},
		} {
			code, body := e.Do(e.Owner, "POST", "/api/v1/inboxes", c.body)
			if code != c.status {
				t.Errorf("%s: %d %s", name, code, body)
				continue
			}
			if b := cfgError(t, body); b.Error.Code != c.code || !b.hasField(c.field) {
				t.Errorf("%s: %s", name, body)
			}
		}
		// Another organization's agent is not this workspace's.
		_, body = e.Do(e.Other, "POST", "/api/v1/agents", map[string]any{"label": "Theirs"})
		theirAgent := cfgData[agentJSON](t, body)
		if code, body := e.Do(e.Owner, "POST", "/api/v1/inboxes", map[string]any{"label": "x", "agent_id": theirAgent.ID}); code != 422 || !cfgError(t, body).hasField("agent_id") {
			t.Fatalf("their agent: %d %s", code, body)
		}

		// Reads: by id and external_id; another organization's is 404.
		if code, body := e.Do(e.Owner, "GET", "/api/v1/inboxes/ap", nil); code != 200 || cfgData[inboxJSON](t, body).ID != ap.ID {
			t.Fatalf("get by external_id: %d %s", code, body)
		}
		if code, _ := e.Do(e.Other, "GET", "/api/v1/inboxes/"+ap.ID, nil); code != 404 {
			t.Fatalf("another organization's inbox: %d", code)
		}
		if code, _ := e.Do(e.Other, "DELETE", "/api/v1/inboxes/"+ap.ID, nil); code != 404 {
			t.Fatalf("deleting another organization's inbox: %d", code)
		}

		// Soft delete: 404 afterwards, gone from the list and the intake,
		// address and external_id free again.
		if code, body := e.Do(e.Owner, "DELETE", "/api/v1/inboxes/ap", nil); code != 204 {
			t.Fatalf("delete: %d %s", code, body)
		}
		if code, _ := e.Do(e.Owner, "GET", "/api/v1/inboxes/"+ap.ID, nil); code != 404 {
			t.Fatalf("deleted inbox: %d", code)
		}
		if code, _ := e.Do(e.Owner, "DELETE", "/api/v1/inboxes/"+ap.ID, nil); code != 404 {
			t.Fatalf("deleting twice: %d", code)
		}
		if _, err := inboxByAddress(context.Background(), db, "ap@inbox.localhost"); err != store.ErrNotFound {
			t.Fatalf("a deleted inbox still receives: %v", err)
		}
		_, body = e.Do(e.Owner, "GET", "/api/v1/inboxes", nil)
		if strings.Contains(body, ap.ID) {
			t.Fatalf("deleted inbox listed: %s", body)
		}
		if code, body := e.Do(e.Owner, "POST", "/api/v1/inboxes", map[string]any{"label": "AP again", "external_id": "ap", "email": "ap@inbox.localhost"}); code != 201 {
			t.Fatalf("reusing a deleted inbox's address: %d %s", code, body)
		}
	})
}

// TestInboxesListPagesAndFilters pages to the end oldest first, and
// filters by status, agent and text (a literal % included).
func TestInboxesListPagesAndFilters(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := newTestEnv(t, db, Config{SMTPAddr: "off"})
		_, body := e.Do(e.Owner, "POST", "/api/v1/agents", map[string]any{"label": "Extractor", "external_id": "ext"})
		agent := cfgData[agentJSON](t, body)
		var ids []string
		for i, in := range []map[string]any{
			{"label": "Suppliers"}, {"label": "Bank 100%", "status": "inactive"}, {"label": "Receipts", "agent_id": "ext"},
			{"label": "Other", "email": "special-box@inbox.localhost"}, {"label": "Fifth", "agent_id": agent.ID, "status": "inactive"},
		} {
			code, body := e.Do(e.Owner, "POST", "/api/v1/inboxes", in)
			if code != 201 {
				t.Fatalf("create %d: %d %s", i, code, body)
			}
			ids = append(ids, cfgData[inboxJSON](t, body).ID)
		}
		e.Do(e.Other, "POST", "/api/v1/inboxes", map[string]any{"label": "Suppliers of theirs"})

		var got []string
		cursor := ""
		for pages := 0; ; pages++ {
			path := "/api/v1/inboxes?limit=2"
			if cursor != "" {
				path += "&cursor=" + cursor
			}
			code, body := e.Do(e.Owner, "GET", path, nil)
			if code != 200 || pages > 3 {
				t.Fatalf("page %d: %d %s", pages, code, body)
			}
			var p cfgPage[inboxJSON]
			_ = json.Unmarshal([]byte(body), &p)
			for _, in := range p.Data {
				got = append(got, in.ID)
			}
			if p.Meta.NextCursor == nil {
				break
			}
			cursor = *p.Meta.NextCursor
		}
		if strings.Join(got, ",") != strings.Join(ids, ",") {
			t.Fatalf("pages %v, want %v (oldest first, mine only)", got, ids)
		}
		for query, want := range map[string][]string{
			"status=inactive":           {ids[1], ids[4]},
			"agent_id=ext":              {ids[2], ids[4]},
			"agent_id=" + agent.ID:      {ids[2], ids[4]},
			"agent_id=ghost":            {},
			"q=SUPPLIERS":               {ids[0]},
			"q=100%25":                  {ids[1]},
			"q=%25":                     {ids[1]},
			"q=special-box":             {ids[3]},
			"status=active&q=Special-B": {ids[3]},
		} {
			code, body := e.Do(e.Owner, "GET", "/api/v1/inboxes?"+query, nil)
			var p cfgPage[inboxJSON]
			_ = json.Unmarshal([]byte(body), &p)
			var ids []string
			for _, in := range p.Data {
				ids = append(ids, in.ID)
			}
			if code != 200 || strings.Join(ids, ",") != strings.Join(want, ",") {
				t.Errorf("%s: %d %v, want %v", query, code, ids, want)
			}
		}
		for _, bad := range []string{"status=paused", "limit=0", "limit=201", "cursor=nope", "workspace=x"} {
			if code, body := e.Do(e.Owner, "GET", "/api/v1/inboxes?"+bad, nil); code != 422 {
				t.Errorf("%s: %d %s", bad, code, body)
			}
		}
	})
}

// TestInboxesUpsertAndUpdate: PUT creates (201) then replaces (200) the
// inbox with that external_id, keeping its address unless one is given;
// replacing the allow-list needs an admin; PATCH changes only what it
// names, has no allowed_recipients, and -1 removes a limit.
func TestInboxesUpsertAndUpdate(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := newTestEnv(t, db, Config{SMTPAddr: "off"})
		code, body := e.Do(e.Owner, "PUT", "/api/v1/inboxes/erp-42", map[string]any{"label": "ERP", "allowed_recipients": []string{"a@x.com"}, "attachments_max_file_number": 2})
		if code != 201 {
			t.Fatalf("upsert create: %d %s", code, body)
		}
		first := cfgData[inboxJSON](t, body)
		if first.ExternalID != "erp-42" {
			t.Fatalf("external_id %q", first.ExternalID)
		}
		code, body = e.Do(e.Owner, "PUT", "/api/v1/inboxes/erp-42", map[string]any{"label": "ERP renamed", "allowed_recipients": []string{"A@x.com"}})
		second := cfgData[inboxJSON](t, body)
		if code != 200 || second.ID != first.ID || second.Email != first.Email || second.Label != "ERP renamed" || second.AttachmentsMaxFileNumber != nil || !second.CreatedAt.Equal(first.CreatedAt) {
			t.Fatalf("upsert replace: %d %s", code, body)
		}
		if code, body := e.Do(e.Owner, "PUT", "/api/v1/inboxes/erp-42", map[string]any{"label": "ERP", "email": "erp@elsewhere.example"}); code != 422 || cfgError(t, body).Error.Code != "invalid_domain" {
			t.Fatalf("upsert to another domain: %d %s", code, body)
		}
		if code, body := e.Do(e.Owner, "PUT", "/api/v1/inboxes/erp-42", map[string]any{}); code != 422 || !cfgError(t, body).hasField("label") {
			t.Fatalf("upsert without label: %d %s", code, body)
		}
		// A member may replace the inbox but not who may send to it.
		member := cfgUser(t, e, "member@mine.example", identity.RoleMember)
		if code, body := e.Do(member, "PUT", "/api/v1/inboxes/erp-42", map[string]any{"label": "ERP", "allowed_recipients": []string{"a@x.com"}}); code != 200 {
			t.Fatalf("member, same allow-list: %d %s", code, body)
		}
		if code, body := e.Do(member, "PUT", "/api/v1/inboxes/erp-42", map[string]any{"label": "ERP"}); code != 403 {
			t.Fatalf("member emptying the allow-list: %d %s", code, body)
		}
		// Another organization's upsert of the same external_id is its own.
		if code, body := e.Do(e.Other, "PUT", "/api/v1/inboxes/erp-42", map[string]any{"label": "Theirs"}); code != 201 || cfgData[inboxJSON](t, body).ID == first.ID {
			t.Fatalf("their upsert: %d %s", code, body)
		}

		_, body = e.Do(e.Owner, "POST", "/api/v1/agents", map[string]any{"label": "A"})
		agent := cfgData[agentJSON](t, body)
		code, body = e.Do(e.Owner, "PATCH", "/api/v1/inboxes/erp-42", map[string]any{"status": "inactive", "agent_id": agent.ExternalID, "attachments_max_file_size": 10,
			"filters": []map[string]any{{"field": "from", "operator": "ends_with", "value": "@spam.example", "action": "reject"}}})
		patched := cfgData[inboxJSON](t, body)
		if code != 200 || patched.Status != "inactive" || patched.AgentID == nil || *patched.AgentID != agent.ID || patched.Label != "ERP" ||
			*patched.AttachmentsMaxFileSize != 10 || len(patched.Filters) != 1 || len(patched.AllowedRecipients) != 1 || !patched.UpdatedAt.After(first.UpdatedAt) {
			t.Fatalf("patch: %d %s", code, body)
		}
		code, body = e.Do(e.Owner, "PATCH", "/api/v1/inboxes/"+first.ID, map[string]any{"agent_id": "", "attachments_max_file_size": -1, "email": "ERP@inbox.localhost", "external_id": "erp-43"})
		patched = cfgData[inboxJSON](t, body)
		if code != 200 || patched.AgentID != nil || patched.AttachmentsMaxFileSize != nil || patched.Email != "erp@inbox.localhost" || patched.ExternalID != "erp-43" || len(patched.Filters) != 1 {
			t.Fatalf("patch clearing: %d %s", code, body)
		}
		for name, c := range map[string]struct {
			body  map[string]any
			field string
		}{
			"allowed_recipients": {map[string]any{"allowed_recipients": []string{}}, "allowed_recipients"},
			"blank label":        {map[string]any{"label": " "}, "label"},
			"bad filter":         {map[string]any{"filters": []map[string]any{{"field": "from", "operator": "matches", "value": "[", "action": "allow"}}}, "filters.0.value"},
			"unknown agent":      {map[string]any{"agent_id": "nobody"}, "agent_id"},
			"bad limit":          {map[string]any{"attachments_max_file_number": -2}, "attachments_max_file_number"},
		} {
			if code, body := e.Do(e.Owner, "PATCH", "/api/v1/inboxes/erp-43", c.body); code != 422 || !cfgError(t, body).hasField(c.field) {
				t.Errorf("%s: %d %s", name, code, body)
			}
		}
		if code, body := e.Do(e.Owner, "PATCH", "/api/v1/inboxes/erp-43", map[string]any{"email": "x@other.example"}); code != 422 || cfgError(t, body).Error.Code != "invalid_domain" {
			t.Fatalf("patch to another domain: %d %s", code, body)
		}
		e.Do(e.Owner, "POST", "/api/v1/inboxes", map[string]any{"label": "B", "external_id": "b", "email": "b@inbox.localhost"})
		if code, _ := e.Do(e.Owner, "PATCH", "/api/v1/inboxes/erp-43", map[string]any{"email": "b@inbox.localhost"}); code != 409 {
			t.Fatalf("patch to a taken address: %d", code)
		}
		if code, _ := e.Do(e.Owner, "PATCH", "/api/v1/inboxes/erp-43", map[string]any{"external_id": "b"}); code != 409 {
			t.Fatalf("patch to a taken external_id: %d", code)
		}
		if code, _ := e.Do(e.Other, "PATCH", "/api/v1/inboxes/"+first.ID, map[string]any{"label": "x"}); code != 404 {
			t.Fatalf("patching another organization's inbox: %d", code)
		}
	})
}

// TestInboxesTools drives every inbox tool through MCP: happy paths and
// errors, the annotations of docs/tools/inbox.md, inboxes_update without
// allowed_recipients, and destructive tools that ask first.
func TestInboxesTools(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := newTestEnv(t, db, Config{SMTPAddr: "off"})
		var listed struct {
			Result struct {
				Tools []struct {
					Name        string
					Annotations map[string]any
					InputSchema struct {
						Properties map[string]any
					}
				}
			}
		}
		_ = json.Unmarshal([]byte(e.RPC(e.Owner, "tools/list", nil)), &listed)
		want := map[string]string{ // RO DE ID OW
			"inboxes_list": "TFTF", "inboxes_get": "TFTF", "inboxes_create": "FFFF", "inboxes_upsert": "FFTF", "inboxes_update": "FFTF",
			"inboxes_delete": "FTTF", "inboxes_recipients_add": "FTTF", "inboxes_recipients_remove": "FTTF",
		}
		seen := 0
		for _, tool := range listed.Result.Tools {
			w, ok := want[tool.Name]
			if !ok {
				continue
			}
			seen++
			got := ""
			for _, h := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
				got += map[bool]string{true: "T", false: "F"}[tool.Annotations[h] == true]
			}
			if got != w {
				t.Errorf("%s annotations %s, want %s", tool.Name, got, w)
			}
			if tool.Name == "inboxes_update" && tool.InputSchema.Properties["allowed_recipients"] != nil {
				t.Error("inboxes_update must not take allowed_recipients")
			}
		}
		if seen != len(want) {
			t.Fatalf("%d of %d inbox tools listed", seen, len(want))
		}

		text, isErr := e.Call(e.Owner, "inboxes_create", map[string]any{"label": "Tools", "external_id": "tools"})
		created := cfgData[inboxJSON](t, text)
		if isErr || created.ExternalID != "tools" {
			t.Fatalf("create: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "inboxes_create", map[string]any{"label": "x", "email": "x@gmail.com"}); !isErr || !strings.Contains(text, "invalid_domain") {
			t.Fatalf("create error: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "inboxes_get", map[string]any{"id": "tools"}); isErr || !strings.Contains(text, created.ID) {
			t.Fatalf("get: %s", text)
		}
		if text, isErr := e.Call(e.Other, "inboxes_get", map[string]any{"id": created.ID}); !isErr || !strings.Contains(text, "not_found") {
			t.Fatalf("get across organizations: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "inboxes_list", map[string]any{"q": "tools"}); isErr || !strings.Contains(text, created.ID) {
			t.Fatalf("list: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "inboxes_list", map[string]any{"organization_id": e.Theirs.ID}); !isErr || !strings.Contains(text, "organization_id") {
			t.Fatalf("list error: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "inboxes_upsert", map[string]any{"external_id": "tools", "label": "Tools 2"}); isErr || !strings.Contains(text, `"Tools 2"`) {
			t.Fatalf("upsert: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "inboxes_upsert", map[string]any{"external_id": "tools"}); !isErr || !strings.Contains(text, "label") {
			t.Fatalf("upsert error: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "inboxes_update", map[string]any{"id": "tools", "status": "inactive"}); isErr || !strings.Contains(text, `"inactive"`) {
			t.Fatalf("update: %s", text)
		}
		if text, isErr := e.Call(e.Owner, "inboxes_update", map[string]any{"id": "tools", "allowed_recipients": []string{}}); !isErr || !strings.Contains(text, "allowed_recipients") {
			t.Fatalf("update with allowed_recipients: %s", text)
		}
		// Destructive: refused without a way to confirm, run once confirmed.
		if text, isErr := e.Call(e.Owner, "inboxes_delete", map[string]any{"id": "tools"}); !isErr || !strings.Contains(text, "confirmation_required") {
			t.Fatalf("delete without confirmation: %s", text)
		}
		msg, done := cfgConfirmed(t, e, e.Other, "inboxes_delete", map[string]any{"id": created.ID})
		if msg != "" || !done.Result.IsError || !strings.Contains(done.text(), "not_found") {
			t.Fatalf("delete across organizations asked %q: %s", msg, done.raw)
		}
		msg, done = cfgConfirmed(t, e, e.Owner, "inboxes_delete", map[string]any{"id": "tools"})
		if msg != "Delete inbox 'Tools 2' ("+created.Email+")? It stops receiving e-mail. This cannot be undone." || done.text() != `{"status":204}` {
			t.Fatalf("confirmed delete %q: %s", msg, done.raw)
		}
		if code, _ := e.Do(e.Owner, "GET", "/api/v1/inboxes/tools", nil); code != 404 {
			t.Fatalf("after the confirmed delete: %d", code)
		}
	})
}
